"""Server: a Library -> a stdio MCP server whose tools answer "what is this error, and how do I fix it".

Built on the official MCP Python SDK (``mcp``, the extra ``raisedocs[mcp]``). Every tool is
read only: it reads the catalogs the server was started with, never runs analysed code and
never writes. A tool given bad arguments answers with a tool error (``ToolError``: the call
fails, the server goes on).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ..errors import CatalogError
from ..version import VERSION
from .library import Library, NotFound, card_markdown, explain_text

INSTRUCTIONS = (
    "raisedocs holds error catalogs of Python projects, read from their source: one card per place that raises, with the "
    "message, the class to catch, the condition, a verified trigger where one is proven, and fixes. When a Python program "
    "fails, call search_error with the error message or the whole traceback as it was printed; call explain for fixes "
    "worked out for the values in the message; call get_error with a match's id for the whole card."
)
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

SEARCH = (
    "Find the error cards that a Python error message or traceback comes from. Call it first when code raises an exception "
    "and you want to know where in a library it comes from and why. Paste the message or the whole traceback raw, as printed "
    "(a pydantic ValidationError's text works too). Returns matches best first, each with its id (for get_error), repo, the "
    "exception class raised and the class to catch, the message template, the file:line, a score, and how it matched: "
    "frame (a traceback frame is on the raise), exact (the message with your values), template, class (only the exception "
    "class agrees) or fuzzy (shared words only). `confident` is false, with a note, when no match is an answer."
)
GET = (
    "Read one error card by the id search_error returned (`repo.card`): the message, where it is thrown, the condition under "
    "which it is raised, the verified trigger, the fixes ranked, a before/after example, and the class to catch; as Markdown, "
    "then the card's JSON, and its page's URL when the site is known."
)
EXPLAIN = (
    "Explain a pasted error message or traceback: the best matching card, with fixes worked out for the values your message "
    "shows (\"set `offload_num_in_group` to 2 (you have 4)\"), the condition and the generic fixes. Use it when you want to "
    "fix the call that failed."
)
REPOS = "List the projects (repos) whose error catalogs this server holds, with their card counts, and any catalog that failed to load."


def build_server(library: Library) -> MCPServer:
    """The MCP server over ``library``, its four tools registered."""
    server = MCPServer(name="raisedocs", title="raisedocs error catalogs", version=VERSION, instructions=INSTRUCTIONS)

    @server.tool(description=SEARCH, annotations=_READ_ONLY)
    def search_error(message: str, repo: str | None = None, limit: int = 5) -> dict[str, Any]:
        _require(message, "message")
        try:
            return library.search(message, repo, limit)
        except NotFound as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description=GET, annotations=_READ_ONLY)
    def get_error(id: str) -> str:  # (the argument is `id`, as agents see it)
        _require(id, "id")
        try:
            source, card_id = library.locate(id)
            return card_markdown(source, card_id)
        except (NotFound, CatalogError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description=EXPLAIN, annotations=_READ_ONLY)
    def explain(message: str) -> str:
        _require(message, "message")
        try:
            return explain_text(library, message)
        except CatalogError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description=REPOS, annotations=_READ_ONLY)
    def list_repos() -> dict[str, Any]:
        return library.repos()

    return server


def _require(value: str, name: str) -> None:
    if not value or not value.strip():
        raise ToolError(f"{name} is empty: pass the error text (or id) as printed")
