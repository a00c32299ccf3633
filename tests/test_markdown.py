"""Escaped output: whatever the analysed tree holds, the Markdown renders inert.

fixtures/hostile_markdown has messages, docstrings, Literal values and a file name written to
break out: raw HTML, javascript: links, autolinks, backtick runs that would close a fence. Each
docs file is rendered with markdown-it-py (CommonMark, raw HTML on) and Python-Markdown (what
MkDocs uses); neither may produce an element, attribute or link the templates did not write.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import markdown
import pytest
from markdown_it import MarkdownIt

from extractor import extract, render
from extractor.model import to_data
from extractor.model.markdown import code_block, code_span, escape_text, safe_url
from extractor.model.spool import summary_of
from extractor.options import Options
from extractor.publish.index_groups import PAGE_CARDS, page_name
from extractor.publish.render import render_index

from .helpers import FIXTURES, make_git_repo, tree_files

ALLOWED = {"h1", "h2", "h3", "p", "ul", "ol", "li", "code", "pre", "blockquote", "a", "strong", "em", "hr",
           "table", "thead", "tbody", "tr", "th", "td", "br"}
ATTRIBUTES = {("a", "href"), ("code", "class"), ("th", "style"), ("td", "style")}
_URL_SAFE = re.compile(r"[A-Za-z0-9_.~-]+")  # unreserved in a URL: a link to the page needs no encoding


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


HOSTILE_FOLDERS = ("pkg/evil [x](javascript:alert(1))", "pkg/<img src=x onerror=alert(2)>", "pkg/a|b `c`")


@pytest.mark.parametrize("renderer", ["markdown-it-py", "Python-Markdown"])
def test_index_pages_of_hostile_folders_render_inert(renderer: str) -> None:
    convert = (MarkdownIt("commonmark", {"html": True}).enable("table").render if renderer == "markdown-it-py"
               else lambda text: markdown.markdown(text, extensions=["fenced_code", "tables"]))
    catalog = to_data(extract(str(FIXTURES / "hostile_markdown"), Options()))
    card = summary_of(catalog["errors"][0])
    # Past PAGE_CARDS in pkg/, so that each hostile folder gets a page of its own.
    summaries = [{**card, "id": f"{n:016x}", "path": f"{folder}/m.py", "line": n}
                 for folder in HOSTILE_FOLDERS for n in range(PAGE_CARDS // 2)]
    pages = dict(render_index({k: v for k, v in catalog.items() if k != "errors"}, summaries))
    assert sorted(pages) == ["index.md", "index/pkg.a~7cb~20~60c~60.md",
                             "index/pkg.evil~20~5bx~5d~28javascript~3aalert~281~29~29.md", "index/pkg.~3cimg~20src~3dx~20onerror~3dalert~282~29~3e.md"]
    assert {rel: _problems(convert(text)) for rel, text in pages.items()} == {rel: [] for rel in pages}
    links = [href for text in pages.values() for href in _hrefs(convert(text))]
    assert sorted(href for href in links if not href.startswith("../errors/")) == sorted(["../index.md"] * 3 + list(pages)[1:])
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(pages["index.md"])
    for shown in ("<code>pkg/evil [x](javascript:alert(1))/</code>", "<code>pkg/&lt;img src=x onerror=alert(2)&gt;/</code>"):
        assert shown in html


def _hrefs(html: str) -> list[str]:
    parser = _Elements()
    parser.feed(html)
    return [value or "" for tag, attrs in parser.found for name, value in attrs if (tag, name) == ("a", "href")]


def test_each_folder_has_an_index_page_of_its_own() -> None:
    folders = ["", "a", "a/b", "a.b", "a/b.c", "a.b/c", "top-level", "top~2dlevel", "é", "~c3~a9", "x y", "-", "_", "a" * 300, "a" * 300 + "b"]
    names = [page_name(folder) for folder in folders]
    assert names[:13] == ["top-level", "a", "a.b", "a~2eb", "a.b~2ec", "a~2eb.c", "top~2dlevel", "top~7e2dlevel", "~c3~a9",
                          "~7ec3~7ea9", "x~20y", "-", "_"]
    assert len(set(names)) == len(names) and all(len(name) <= 200 and _URL_SAFE.fullmatch(name) for name in names)
