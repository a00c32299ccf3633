"""Escaped output: whatever the analysed tree holds, the Markdown renders inert.

fixtures/hostile_markdown has messages, docstrings, Literal values and a file name written to
break out: raw HTML, javascript: links, autolinks, backtick runs that would close a fence. Each
docs file is rendered with markdown-it-py (CommonMark, raw HTML on) and Python-Markdown (what
MkDocs uses); neither may produce an element, attribute or link the templates did not write.
"""

from __future__ import annotations

from html.parser import HTMLParser

import markdown
import pytest
from markdown_it import MarkdownIt

from extractor import extract, render
from extractor.model import to_data
from extractor.model.markdown import code_block, code_span, escape_text, safe_url
from extractor.options import Options

from .helpers import FIXTURES, make_git_repo, tree_files

ALLOWED = {"h1", "h2", "h3", "p", "ul", "ol", "li", "code", "pre", "blockquote", "a", "strong", "em", "hr",
           "table", "thead", "tbody", "tr", "th", "td", "br"}
ATTRIBUTES = {("a", "href"), ("code", "class"), ("th", "style"), ("td", "style")}


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, tuple[tuple[str, str | None], ...]]] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, tuple(attrs)))

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def _problems(html: str) -> list[str]:
    parser = _Elements()
    parser.feed(html)
    problems = [f"comment {c!r}" for c in parser.comments]
    for tag, attrs in parser.found:
        if tag not in ALLOWED:
            problems.append(f"element <{tag}>")
        for name, value in attrs:
            if (tag, name) not in ATTRIBUTES:
                problems.append(f"attribute {name} on <{tag}>")
            elif name == "href" and not (value or "").startswith(("https://", "http://")) and not (value or "").endswith((".md", ".json")):
                problems.append(f"link to {value!r}")
    return problems


def _docs(tmp_path) -> dict[str, str]:
    # Committed, so that cards carry permalinks (a file name is part of each one).
    repo = tmp_path / "repo"
    make_git_repo(repo, [("hostile", tree_files(FIXTURES / "hostile_markdown"))])
    options = Options(repo_url="https://github.com/acme/x", rev="main")
    return dict(render(to_data(extract(str(repo), options))))


@pytest.mark.parametrize("renderer", ["markdown-it-py", "Python-Markdown"])
def test_hostile_values_render_inert(renderer: str, tmp_path) -> None:
    convert = (MarkdownIt("commonmark", {"html": True}).enable("table").render if renderer == "markdown-it-py"
               else lambda text: markdown.markdown(text, extensions=["fenced_code", "tables"]))
    docs = {rel: text for rel, text in _docs(tmp_path).items() if rel.endswith(".md")}
    assert len(docs) == 7  # the index and six cards
    assert {rel: _problems(convert(text)) for rel, text in docs.items()} == {rel: [] for rel in docs}


def test_the_hostile_text_is_still_shown(tmp_path) -> None:
    html = MarkdownIt("commonmark", {"html": True}).render("\n".join(_docs(tmp_path).values()))
    for shown in ("&lt;script&gt;alert('message')&lt;/script&gt;", "[the docs](javascript:alert(7))", "&lt;img src=x onerror=alert(12)&gt;"):
        assert shown in html


@pytest.mark.parametrize(("value", "span"), [
    ("x", "`x`"),
    ("a `b` c", "``a `b` c``"),
    ("`edge", "`` `edge ``"),
    ("two\nlines", "`two lines`"),
    ("", "` `"),
])
def test_code_spans_are_delimited_past_their_backticks(value: str, span: str) -> None:
    assert code_span(value) == span


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    assert code_block("a\n```\nb", "text") == "````text\na\n```\nb\n````"


def test_text_escapes_only_what_markdown_would_act_on() -> None:
    assert escape_text("x <= 10 & y") == "x <= 10 & y"
    assert escape_text("<b>[x](javascript:y)</b> &amp; \\*") == "&lt;b>[x\\](javascript:y)&lt;/b> &amp;amp; \\\\*"
    assert escape_text("[a][b] [c] [d]: javascript:e [shape, dims]") == "[a\\][b\\] [c\\] [d\\]: javascript:e [shape, dims]"
    assert escape_text("keeps `a < b` and `[x]` as written") == "keeps `a < b` and `[x]` as written"


def test_only_http_links_are_kept() -> None:
    assert safe_url("https://github.com/a/b/blob/0/p q(1).py#L3") == "https://github.com/a/b/blob/0/p%20q%281%29.py#L3"
    assert [safe_url(u) for u in ("javascript:alert(1)", "JAVASCRIPT:x", "data:text/html,x", "//evil", "")] == [None] * 5
