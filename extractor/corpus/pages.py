"""Pages: one built project's catalog -> its corpus pages; all projects -> the home page, llms.txt, sitemaps.

A project's pages are the one-project site's (``publish.site``) one folder down, at
``<key>/``: its index and a page per card. On a corpus site the header's search is the
corpus search (``corpus.js``), a card page links its project and its data file, and it
carries JSON-LD: a ``TechArticle`` whose main entity is the error message as a question
and the card's top fix as its answer. A card page holds at most ``PAGE_BYTES``: a page
above it is rendered again with its longest parts cut (the excerpt to the lines around the
raise, docstrings, fixes, the validator), each cut saying so through the data link.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from markupsafe import Markup

from ..model import Card
from ..model.serialize import compact
from ..model.spool import DataCatalog
from ..publish.families import folded
from ..publish.render import forge_name
from ..publish.site import card_page, index_page, site_environment
from .dataset import error_id

PAGE_BYTES = 50_000
SCRIPTS = ["assets/corpus-search.js", "assets/site.js", "assets/corpus.js"]
TITLE = "Python error knowledge base"


def project_pages(project: dict[str, Any], catalog: DataCatalog, families: dict[str, dict[str, Any]],
                  base_url: str) -> Iterator[tuple[str, str]]:
    """``<key>/index.html`` and ``<key>/errors/<id>.html`` of one built project (``families``:
    its ``publish.families.family_sites``)."""
    key = project["key"]
    envelope = catalog.envelope
    common = {"repo": shown_name(project), "forge": forge_name(envelope["source"]), "source": envelope["source"],
              "generator": envelope["generator"], "scripts": SCRIPTS, "home_label": TITLE}
    by_id = {s["id"]: s for s in catalog.summaries}
    env = site_environment()
    for card in catalog.cards():
        extra = {"project_link": "../index.html", "data_link": f"../../errors/{error_id(key, card['id'])}.json",
                 "jsonld": json_ld(project, card, base_url)}
        yield f"{key}/errors/{card['id']}.html", capped_page(env, card, by_id, {**common, **extra}, families.get(card["id"]))
    yield f"{key}/index.html", index_page(env, folded(families, catalog.summaries), common, len(catalog.summaries), root="../")


def shown_name(project: dict[str, Any]) -> str:
    """The project as its pages name it: with its version, or its commit (a folder's digest is no name)."""
    if project["version"]:
        return f"{project['key']} {project['version']}"
    return f"{project['key']} {project['sha'][:10]}" if project["kind"] == "git" and project["sha"] else project["key"]


def capped_page(env: Any, card: dict[str, Any], by_id: dict[str, Any], common: dict[str, Any], family: dict[str, Any] | None) -> str:
    """The card's page, cut until it holds at most ``PAGE_BYTES`` (``trimmed``); a cut page says so."""
    page = card_page(env, card, by_id, common, family, root="../../")
    for level in range(1, 4):
        if len(page.encode("utf-8")) <= PAGE_BYTES:
            break
        page = card_page(env, trimmed(card, level), by_id, {**common, "cut": PAGE_BYTES}, family, root="../../")
    return page


_CUT = "\n… (cut here: the data file holds it whole)"


def trimmed(card: dict[str, Any], level: int) -> dict[str, Any]:
    """The card with its longest parts cut, more at each level: 1 the excerpt to 12 lines
    around the raise and docstrings to 1,500 characters; 2 also fixes to 3, the validator and
    the example to 2,000 characters; 3 also the excerpt to the raise's lines alone, docstrings
    to 300 characters, its lines to 500 characters, and related errors to 10."""
    out = dict(card)
    around, doc, code = (12, 1_500, None) if level == 1 else (12, 1_500, 2_000) if level == 2 else (0, 300, 1_000)
    excerpt = card["excerpt"]
    lines = excerpt["text"].split("\n")
    first = max(excerpt["start_line"], card["line"] - around // 2)
    last = min(excerpt["start_line"] + len(lines) - 1, card["end_line"] + around // 2)
    start = excerpt["start_line"]
    out["excerpt"] = {**excerpt, "start_line": first, "text": "\n".join(lines[first - start:last - start + 1])}
    out["docs"] = {k: (v[:doc] + _CUT if isinstance(v, str) and len(v) > doc else v) for k, v in (card.get("docs") or {}).items()}
    if code is not None:
        out["fixes"] = (card.get("fixes") or [])[:3]
        for name in ("validator", "example"):
            if isinstance(card.get(name), dict):
                out[name] = {k: (v[:code] + _CUT if isinstance(v, str) and len(v) > code else v) for k, v in card[name].items()}
    if level == 3:
        out["related"] = (card.get("related") or [])[:10]
        kept = out["excerpt"]["text"].split("\n")
        out["excerpt"]["text"] = "\n".join(line if len(line) <= 500 else line[:500] + " …" for line in kept)
    return out


def json_ld(project: dict[str, Any], card: dict[str, Any], base_url: str) -> Markup:
    """The card's JSON-LD (schema.org ``TechArticle``), safe inside a ``<script>`` element
    (no ``<``, ``>`` or ``&`` left: they are written as JSON escapes)."""
    message = card["message"].get("template") or card["exception"]["display"]
    fixes = card.get("fixes") or []
    question: dict[str, Any] = {"@type": "Question", "name": message[:300]}
    if fixes:
        question["acceptedAnswer"] = {"@type": "Answer", "text": fixes[0]["description"]}
    data = {
        "@context": "https://schema.org", "@type": "TechArticle",
        "headline": f"{card['exception']['display']}: {message}"[:110],
        "url": f"{base_url}{project['key']}/errors/{card['id']}.html",
        "about": {"@type": "SoftwareSourceCode", "name": project["key"], "version": project["version"] or (project["sha"] or "")[:12],
                  "programmingLanguage": "Python"},
        "mainEntity": question,
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def home_page(projects: list[dict[str, Any]], failed: list[dict[str, Any]], counts: dict[str, int], generator: dict[str, Any]) -> str:
    env = site_environment()
    return env.get_template("site/corpus.html.j2").render(
        title=TITLE, projects=projects, failed=failed, counts=counts, root="", repo=TITLE, home_label=TITLE, scripts=SCRIPTS,
        source={"rev": None}, generator=generator)


def llms_text(counts: dict[str, int], projects: list[dict[str, Any]], base_url: str) -> str:
    """``llms.txt``: what the site is and which files hold its data (llmstxt.org's form)."""
    listed = "\n".join(f"- [{p['key']} {p['version'] or (p['sha'] or '')[:12]}]({base_url}{p['data']}): {p['counts']['cards']} errors"
                       for p in projects)
    return (f"# {TITLE}\n\n> The errors of {counts['projects']} Python projects, one record per place that raises, read from each "
            "project's code by raisedocs: the message, the exception class, the source, the condition, verified triggers and "
            "fixes.\n\n## Dataset\n\n"
            f"- [manifest.json]({base_url}manifest.json): every data file with its size and sha256, and the dataset's version\n"
            f"- [index.json]({base_url}index.json): one compact record per error (id, project, class, message template, "
            "place, status); shards listed in it when large\n"
            f"- [repos.json]({base_url}repos.json): every project, with its version or commit, counts, and why any failed\n"
            f"- errors/<id>.json ({base_url}errors/): one error's whole card; ids are `<project>.<card id>`\n"
            f"- [schema/]({base_url}schema/manifest.schema.json): a JSON Schema for each kind of file\n\n"
            f"## Projects\n\n{listed}\n")


def sitemaps(pages: dict[str, list[str]], base_url: str) -> Iterator[tuple[str, str]]:
    """One sitemap per project (``sitemaps/<key>.xml``) and the index of them (``sitemap.xml``)."""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n'
    for key, paths in sorted(pages.items()):
        urls = "".join(f"<url><loc>{xml_escape(base_url + path)}</loc></url>\n" for path in sorted(paths))
        yield f"sitemaps/{key}.xml", f'{head}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n'
    listed = "".join(f"<sitemap><loc>{xml_escape(f'{base_url}sitemaps/{key}.xml')}</loc></sitemap>\n" for key in sorted(pages))
    yield "sitemap.xml", f'{head}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{listed}</sitemapindex>\n'


def published_card(card: dict[str, Any]) -> dict[str, Any]:
    """The card as catalog.json holds it (its defaults left out)."""
    return compact(Card, card)
