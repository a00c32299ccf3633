"""Site: catalog data -> a static error-docs web site (HTML pages, search, JSON API files).

Works from catalog data alone, through the Jinja2 templates in ``templates/site`` with
autoescaping on: every message, docstring and line of code comes from the analysed
repository and is escaped. Each page allows only the site's own scripts and styles
(a Content-Security-Policy meta), and links are the site's own relative paths or the
catalog's permalinks (``model.markdown.safe_url``). The site needs no server: the search
index is also written as a script (``assets/search-index.js``), which browsers load from
``file://`` where they refuse ``fetch``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ..model import Card, CaughtVisibility, Standing, dumps_data
from ..model.markdown import safe_url
from ..model.serialize import compact
from ..model.spool import CardCatalog, DataCatalog
from ..options import strict_from_env
from .families import family_sites, folded, with_family
from .identity import template_root
from .ranking import module_rank, rank_key, standing
from .render import catalog_json, forge_name, repo_label, template_environment
from .search_index import INDEX_FILE, build_index, dump_index, index_entry

ASSETS = ("site.css", "site.js")


@lru_cache(maxsize=1)
def site_environment() -> jinja2.Environment:
    env = template_environment(autoescape=True)  # HTML: every value from the tree is escaped
    # The shared wording (_macros.j2) names Markdown filters; in HTML, escaping is autoescape's.
    for name in ("code", "fence", "text", "line", "cell"):
        env.filters[name] = lambda value, *_: value
    env.filters["pyrepr"] = repr
    env.filters["prose"] = prose
    env.filters["capitalize_first"] = lambda text: text[:1].upper() + text[1:]
    return env


_SPAN = re.compile(r"`([^`]+)`")


def prose(text: str) -> Markup:
    """Our own sentences (fix descriptions, reasons) with their `code` spans as <code>, escaped."""
    escaped = str(escape(text))
    return Markup(_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", escaped))


def highlight(card: dict[str, Any]) -> Markup:
    """The excerpt as highlighted HTML (Pygments), the raise's lines marked, numbered as in the file."""
    # (Pygments ships no type hints, and its stubs, types-Pygments, are no dependency of ours)
    from pygments import highlight as pygmentize  # type: ignore[import-untyped]
    from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
    from pygments.lexers import PythonLexer  # type: ignore[import-untyped]

    excerpt = card["excerpt"]
    start = excerpt["start_line"]
    marked = [n - start + 1 for n in range(card["line"], card["end_line"] + 1)]
    formatter = HtmlFormatter(linenos="inline", linenostart=start, hl_lines=marked, wrapcode=True)
    return Markup(pygmentize(excerpt["text"], PythonLexer(stripnl=False, ensurenl=False), formatter))


def pygments_css() -> str:
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style="default").get_style_defs(".highlight")
    dark = HtmlFormatter(style="monokai").get_style_defs(".highlight")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"


def site_assets() -> Iterator[tuple[str, str]]:
    """The site's own stylesheets and script, as every page links them."""
    for name in ASSETS:
        yield f"assets/{name}", (template_root() / "site" / name).read_text(encoding="utf-8")
    yield "assets/pygments.css", pygments_css()


def render_site(catalog: Any) -> Iterator[tuple[str, str]]:
    """Every file of the site as (relative POSIX path, text), one at a time."""
    source = catalog if isinstance(catalog, CardCatalog) else DataCatalog(catalog)
    envelope = source.envelope
    common = {"repo": repo_label(envelope["source"]), "forge": forge_name(envelope["source"]), "source": envelope["source"],
              "generator": envelope["generator"]}
    by_id = {s["id"]: s for s in source.summaries}
    families = family_sites(envelope.get("families") or [], source.summaries)
    env = site_environment()
    entries = []
    yield from site_assets()
    catalog_text = "".join(catalog_json(envelope, source.texts()))
    yield "api/catalog.json", catalog_text
    for card in source.cards():
        entries.append(with_family(index_entry(card), families))
        yield f"api/errors/{card['id']}.json", dumps_data(compact(Card, card))  # (as catalog.json holds it)
        yield f"errors/{card['id']}.html", card_page(env, card, by_id, common, families.get(card["id"]))
    index = build_index(entries, hashlib.sha256(catalog_text.encode("utf-8")).hexdigest())
    yield f"api/{INDEX_FILE}", dump_index(index)
    yield "assets/search-index.js", "window.RAISEDOCS_INDEX = " + json.dumps(index, sort_keys=True, separators=(",", ":")) + ";\n"
    yield "index.html", index_page(env, folded(families, source.summaries), common, len(source.summaries))
    for name, schema in api_schemas().items():
        yield f"api/schema/{name}", dumps_data(schema)


def card_page(env: jinja2.Environment, card: dict[str, Any], by_id: dict[str, Any], common: dict[str, Any],
              family: dict[str, Any] | None, root: str = "../") -> str:
    """One card's page (at ``errors/<id>.html`` below ``root``, the site's top); a card the
    templates cannot render (a catalog of another version, a bug of ours) gets a page saying
    so, and the site is written. ``common`` holds the templates' shared values, and the
    optional ones a corpus site sets (``jsonld``, ``data_link``, ``project_link``, ``scripts``,
    ``home_label``)."""
    try:
        return env.get_template("site/card.html.j2").render(
            card=card, root=root, related=[_summary(by_id[r]) for r in card.get("related", ()) if r in by_id],
            source_html=highlight(card), permalink=safe_url(card.get("permalink") or "") or None, family=family, **common,
        )
    except Exception as exc:  # the per-card boundary of rendering
        if strict_from_env():
            raise
        return str(env.from_string(_UNRENDERED).render(id=card.get("id", "?"), error=type(exc).__name__))


_UNRENDERED = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Card {{ id }}</title></head>\n'
    '<body><p>This card could not be rendered ({{ error }}); its data is in '
    '<a href="../api/errors/{{ id }}.json">{{ id }}.json</a>.</p></body></html>\n'
)


def _summary(summary: dict[str, Any]) -> dict[str, Any]:
    trigger = summary.get("trigger") or {}
    return {
        "id": summary["id"], "path": summary["path"], "line": summary["line"], "template": summary["message"]["template"],
        "exception": summary["exception"]["display"], "status": trigger.get("status") or "none",
        "hidden": summary.get("caught") == CaughtVisibility.HIDDEN,
        "standing": standing(summary), "rank": rank_key(summary), "family": summary.get("family"),
    }


def index_page(env: jinja2.Environment, summaries: list[dict[str, Any]], common: dict[str, Any], total: int, root: str = "") -> str:
    """The index: ``summaries`` as it lists them (a family at its first card), of ``total`` cards."""
    # Public modules first, and in a module the cards in rank order (publish.ranking); the
    # standing filter shows the errors users hit at first, where there are any, and all on demand.
    rows = sorted((_summary(s) for s in summaries), key=lambda r: (module_rank(r["path"]), r["path"], r["rank"], r["line"], r["id"]))
    modules: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        modules.setdefault(row["path"], []).append(row)
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, cards in modules.items():
        package = path.split("/", 1)[0].removesuffix(".py") if "/" in path else "(top level)"
        groups.setdefault(package, []).append({"module": path, "count": len(cards), "cards": cards})
    standings = Counter(r["standing"] for r in rows)
    return env.get_template("site/index.html.j2").render(
        root=root, total=total, listed=len(rows), groups=sorted(groups.items(), key=lambda item: (module_rank(item[0]), item[0])),
        exceptions=sorted(Counter(r["exception"] for r in rows).items()),
        statuses=sorted(Counter(r["status"] for r in rows).items()),
        modules=sorted((m, len(c)) for m, c in modules.items()),
        standings=[(code, standings[code]) for code in Standing if standings[code]],
        default_standing=Standing.USER if standings[Standing.USER] else "",
        **common,
    )


def api_schemas() -> dict[str, Any]:
    """The API files' schemas: the catalog's (shipped), a card's (a part of it), the index's."""
    from importlib import resources

    catalog = json.loads(resources.files("extractor.model").joinpath("catalog.schema.json").read_text("utf-8"))
    card = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "raisedocs/card/1",
            "$ref": "catalog.schema.json#/$defs/Card"}
    index = json.loads(resources.files("extractor.model").joinpath("search-index.schema.json").read_text("utf-8"))
    return {"catalog.schema.json": catalog, "card.schema.json": card, "search-index.schema.json": index}


def render_diff_site(result: Any, generator: dict[str, Any], link_base: str = "errors/") -> Iterator[tuple[str, str]]:
    """A release-diff site: ``index.html`` listing the changes of a CatalogDiff (data), each new
    card linked at ``link_base`` (the new release's site), with the site's assets."""
    from .conditions import MOST_CONDITIONS, describe
    from .diff import CATEGORIES, release_groups

    env = site_environment()
    yield from site_assets()
    yield "assets/search-index.js", "window.RAISEDOCS_INDEX = {\"entries\": []};\n"
    source = {"rev": None}
    yield "index.html", env.get_template("site/diff.html.j2").render(
        diff=result, link_base=link_base, order_kinds=CATEGORIES, root="", repo="release diff", source=source, generator=generator,
        describe=describe, groups=release_groups(result), MOST_CONDITIONS=MOST_CONDITIONS,
    )

