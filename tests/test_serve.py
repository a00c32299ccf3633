"""raisedocs mcp: the stdio MCP server, driven by the MCP SDK's own client (``mcp.Client``
over ``StdioServerParameters``): its tools, what they answer for a plain message, a
pydantic-wrapped one and a traceback, and its errors (an unknown id, a catalog that fails
to load)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .helpers import ROOT, run_cli

mcp = pytest.importorskip("mcp")
from mcp.client.stdio import StdioServerParameters  # noqa: E402

PLAIN = "offload_num_in_group (4) must be <= offload_group_size (2)"
WRAPPED = ("1 validation error for OffloadConfig\n  Value error, offload_prefetch_step (0) must be >= 1 when prefetch offloading is "
           "enabled (offload_group_size > 0) [type=value_error, input_value=ArgsKwargs((), {'offload_group_size': 2}), "
           "input_type=ArgsKwargs]\n    For further information visit https://errors.pydantic.dev/2.12/v/value_error")
TRACEBACK = ('Traceback (most recent call last):\n  File "/app/run.py", line 3, in <module>\n    main()\n'
             '  File "/usr/lib/python3/site-packages/minivllm/cli.py", line 31, in main\n'
             '    raise ValueError(f"--offload-group-size must be >= 0, got {args.offload_group_size}")\n'
             "ValueError: --offload-group-size must be >= 0, got -3")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("serve") / "docs"
    from extractor.cli import main

    assert main(["extract", str(ROOT / "fixtures" / "offload"), "-o", str(out), "--no-cache", "-q"]) == 0
    return out


def _ids(docs: Path) -> dict[tuple[str, int], str]:
    catalog = json.loads((docs / "catalog.json").read_text())
    return {(card["path"], card["line"]): card["id"] for card in catalog["errors"]}


def _session(*args: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    """Start ``raisedocs mcp ARGS`` and make ``calls`` through the SDK's client: the tools'
    names and each call's result."""
    async def run() -> tuple[list[str], list[Any]]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "extractor", "mcp", *args], cwd=str(ROOT))
        async with mcp.Client(params) as client:
            tools = await client.list_tools()
            return [t.name for t in tools.tools], [await client.call_tool(name, arguments) for name, arguments in calls]
    return asyncio.run(run())


def test_the_tools_answer_a_message_a_wrapped_message_and_a_traceback(docs: Path) -> None:
    ids = _ids(docs)
    names, (plain, wrapped, traced, weak) = _session("--catalog", str(docs), calls=[
        ("search_error", {"message": PLAIN}), ("search_error", {"message": WRAPPED, "limit": 2}),
        ("search_error", {"message": TRACEBACK}), ("search_error", {"message": "KeyError: 'gpu_memory'"})])
    assert names == ["search_error", "get_error", "explain", "list_repos"]
    first = plain.structured_content["matches"][0]
    assert first == {"id": f"minivllm.{ids[('minivllm/config/offload.py', 43)]}", "repo": "minivllm", "match": "exact",
                     "score": first["score"], "class": "ValueError", "catch": "pydantic.ValidationError",
                     "template": "offload_num_in_group ({self.prefetch.offload_num_in_group}) must be <= offload_group_size "
                                 "({self.prefetch.offload_group_size})",
                     "where": "minivllm/config/offload.py:43", "function": "OffloadConfig.validate_offload_config",
                     "values": {"self.prefetch.offload_num_in_group": "4", "self.prefetch.offload_group_size": "2"}}
    assert plain.structured_content["confident"] is True and plain.structured_content["note"] is None
    assert wrapped.structured_content["matches"][0]["id"] == f"minivllm.{ids[('minivllm/config/offload.py', 49)]}"
    assert wrapped.structured_content["matches"][0]["match"] == "template" and len(wrapped.structured_content["matches"]) <= 2
    assert traced.structured_content["matches"][0]["id"] == f"minivllm.{ids[('minivllm/cli.py', 31)]}"
    assert traced.structured_content["matches"][0]["match"] == "frame"
    assert weak.structured_content == {"matches": [], "confident": False, "note": "No card matches this text."}


def test_get_explain_and_list(docs: Path) -> None:
    ids = _ids(docs)
    card_id = f"minivllm.{ids[('minivllm/config/offload.py', 43)]}"
    _, (card, explained, repos, unknown, empty) = _session("--catalog", str(docs), calls=[
        ("get_error", {"id": card_id}), ("explain", {"message": PLAIN}), ("list_repos", {}),
        ("get_error", {"id": "minivllm.0000000000000000"}), ("search_error", {"message": "  "})])
    text = card.content[0].text
    assert text.startswith(f"Id: `{card_id}` · Catch: `pydantic.ValidationError`\n\n# ")
    assert "## Data\n\n```json\n" in text and json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0])["line"] == 43
    answer = explained.content[0].text
    assert answer.startswith(f"Id: `{card_id}` · matched by exact\n")
    assert ("set `prefetch.offload_num_in_group` to `2` (you have `4`), so that "
            "`self.prefetch.offload_num_in_group > self.prefetch.offload_group_size` is false") in answer
    assert repos.structured_content == {"repos": [{"repo": "minivllm", "cards": 8, "root": "minivllm", "rev": None, "version": None}],
                                        "not_loaded": []}
    assert unknown.is_error and "no card 'minivllm.0000000000000000'" in unknown.content[0].text
    assert empty.is_error and "message is empty" in empty.content[0].text


def test_a_catalog_that_fails_to_load_is_listed_and_the_rest_served(docs: Path, tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text("{not json")
    _, (repos, found) = _session("--catalog", str(tmp_path), "--catalog", str(docs), calls=[
        ("list_repos", {}), ("search_error", {"message": PLAIN})])
    assert [r["repo"] for r in repos.structured_content["repos"]] == ["minivllm"]
    (failure,) = repos.structured_content["not_loaded"]
    assert failure["path"] == str(tmp_path) and "catalog.json" in failure["reason"]
    assert found.structured_content["confident"] is True


def test_no_catalog_that_loads_gets_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = run_cli(capsys, "mcp", "--catalog", str(tmp_path / "missing"))
    assert run.code == 2 and run.err.startswith("raisedocs: error: no catalog could be loaded: ") and run.err.count("\n") == 1
    assert run_cli(capsys, "mcp").err == "raisedocs: error: give at least one --catalog or --dataset\n"


def test_the_server_never_writes(docs: Path, tmp_path: Path) -> None:
    """A docs folder without its search index is searched from an index built in memory."""
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "catalog.json").write_bytes((docs / "catalog.json").read_bytes())
    before = sorted(p.name for p in bare.iterdir())
    cache = tmp_path / "cache"
    _, (found,) = _session("--catalog", str(bare), calls=[("search_error", {"message": PLAIN})])
    assert found.structured_content["confident"] is True
    assert sorted(p.name for p in bare.iterdir()) == before and not cache.exists()


def test_the_server_reads_a_published_corpus_dataset(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from extractor.cli import main

    (tmp_path / "list.txt").write_text(f"{ROOT / 'fixtures' / 'offload'}\n{ROOT / 'fixtures' / 'corpus' / 'shelf'}\n")
    assert main(["corpus", "build", str(tmp_path / "list.txt"), "--state", str(tmp_path / "state"), "-j", "1", "-q"]) == 0
    assert main(["corpus", "publish", "--state", str(tmp_path / "state"), "-o", str(tmp_path / "site"),
                 "--base-url", "https://errors.example.org/"]) == 0
    _, (repos, found, card) = _session("--dataset", str(tmp_path / "site"), calls=[
        ("list_repos", {}), ("search_error", {"message": "OverflowError: the shelf is full"}),
        ("get_error", {"id": "offload." + _ids_from_dataset(tmp_path / "site", "minivllm/config/offload.py", 43)})])
    assert [r["repo"] for r in repos.structured_content["repos"]] == ["offload", "shelf"]
    assert found.structured_content["matches"][0]["repo"] == "shelf"
    assert "Page: https://errors.example.org/offload/errors/" in card.content[0].text.splitlines()[0]


def _ids_from_dataset(site: Path, path: str, line: int) -> str:
    for record in json.loads((site / "index.json").read_text())["records"]:
        if (record["path"], record["line"]) == (path, line):
            return record["id"].split(".", 1)[1]
    raise AssertionError("no such card")


def test_without_the_sdk_it_says_how_to_install_it(tmp_path: Path) -> None:
    code = ("import sys; sys.modules['mcp'] = None\nfrom extractor.cli import main\n"
            f"sys.exit(main(['mcp', '--catalog', {str(tmp_path)!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (2, 'raisedocs: error: the MCP server needs the MCP SDK: pip install "raisedocs[mcp]"\n')


def test_a_projects_own_card_comes_before_a_vendored_copy_of_it() -> None:
    from extractor.serve.library import is_vendored

    assert is_vendored("pip/_vendor/requests/models.py") and is_vendored("vllm/third_party/fmha/interface.py")
    assert not is_vendored("requests/models.py") and not is_vendored("vendor.py")
