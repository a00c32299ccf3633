"""Rendering: catalog JSON data -> the files of a docs folder (Markdown cards, index pages, JSON).

Works from JSON data alone (``model.to_data`` of a Catalog, or a loaded catalog.json), so
a catalog written by one version can be rendered by another.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import quote

import jinja2

from ..model import (
    CALLED,
    CLAIMED,
    BuildFailure,
    Card,
    CaughtVisibility,
    ChangeKind,
    Code,
    Detailed,
    EntryKind,
    Framework,
    HandlerOutcome,
    NoFix,
    PydanticError,
    Reason,
    Standing,
    dumps_compact,
    dumps_data,
    to_data,
)
from ..model.codes import JOINS
from ..model.markdown import code_block, code_span, escape_cell, escape_line, escape_text, safe_url
from ..model.pytext import repeated_text
from ..model.serialize import complete
from ..model.spool import CardCatalog, DataCatalog
from ..options import strict_from_env
from .families import family_sites, folded, with_family
from .identity import render_identity, template_root
from .index_groups import group_modules, index_modules
from .search_index import INDEX_FILE, entry_text, index_chunks, index_entry


class _DataEnvironment(jinja2.Environment):
    """Templates read catalog data: ``card.message`` is nearly always a key of a dict. Jinja
    tries the attribute first and reaches the key through an AttributeError; this reads
    the key first where no attribute of a dict has that name, which is the same answer."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_DICT_ATTRIBUTES = frozenset(dir(dict))


def template_environment(*, autoescape: bool) -> jinja2.Environment:
    """A Jinja2 environment over the shipped templates (strict: a missing value is an error),
    with the codes' wording (model.codes) as globals: ``REASONS``, ``NO_FIX``, ``ENTRIES``,
    ``CHANGES``, ``OUTCOMES`` (HandlerOutcome), ``CAUGHT`` (CaughtVisibility), ``STANDINGS`` (publish.ranking's Standing),
    ``FAILURES`` (a corpus build's BuildFailure) and ``PYDANTIC``
    (pydantic's message templates) map a code to its description, ``reason_words`` words a
    reason as the catalog writes it, and the test ``claimed`` says whether a trigger's status is
    one a caller can act on."""
    env = _DataEnvironment(
        loader=jinja2.FileSystemLoader(str(template_root())),
        undefined=jinja2.StrictUndefined,
        autoescape=autoescape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=not autoescape,
        extensions=["jinja2.ext.do"],
    )
    env.globals.update(REASONS=wording(Reason), NO_FIX=wording(NoFix), ENTRIES=wording(EntryKind), FRAMEWORKS=wording(Framework),
                       CHANGES=wording(ChangeKind), OUTCOMES=wording(HandlerOutcome), CAUGHT=wording(CaughtVisibility),
                       PYDANTIC=wording(PydanticError), STANDINGS=wording(Standing), FAILURES=wording(BuildFailure),
                       reason_words=reason_words)
    env.tests["claimed"] = lambda status: status in CLAIMED
    env.tests["called"] = lambda status: status in CALLED  # (claimed, or any call reaches the raise)
    env.tests["private"] = lambda name: isinstance(name, str) and name.startswith("_") and not name.endswith("__")
    env.tests["startingwith"] = lambda text, prefix: isinstance(text, str) and text.startswith(prefix)
    return env


def wording(codes: type[Code]) -> dict[str, str]:
    """Each code's description (a code that carries a value is worded by ``reason_words``)."""
    return {code.value: code.description for code in codes if code not in JOINS}


def reason_words(text: str) -> str | None:
    """The wording of a reason as the catalog writes it (``no_candidate_values:dtype``), None
    for a string that is no reason (a catalog of another version)."""
    try:
        return Detailed.from_text(text).description
    except ValueError:
        return None


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = template_environment(autoescape=False)
    # Every value from the analysed tree goes through one of these (model.markdown).
    env.filters["code"] = code_span
    env.filters["fence"] = lambda text, language="": code_block(text, language)
    env.filters["text"] = escape_text
    env.filters["line"] = escape_line
    env.filters["cell"] = escape_cell
    env.filters["url"] = safe_url
    env.filters["relative_url"] = _relative_url
    env.filters["pyrepr"] = _pyrepr
    env.filters["capitalize_first"] = lambda text: text[:1].upper() + text[1:]
    return env


def _relative_url(url: str) -> str:
    """A link to a card given as a prefix (``--link-base``) and an id: percent-encoded."""
    return safe_url(url) or quote(url, safe="/#?&=%~@!$*+,;'")


def _pyrepr(value: Any) -> str:
    """JSON data shown as the Python literal it stands for (a long run of one item as a
    product: ``'a' * 1001``)."""
    return repeated_text(value) or repr(value)


_FENCE = re.compile(r"`{3,}")


def _tidy(text: str) -> str:
    """Collapse the blank-line runs that template conditionals leave behind (never inside
    a fenced block: its fence is as long as the longest backtick run it holds)."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group()
        elif fence is not None and line.rstrip() == fence:
            fence = None
            out.append(line)
            continue
        if fence is None and not line.strip() and out and not out[-1].strip():
            continue
        out.append(line.rstrip() if fence is None else line)
    return "\n".join(out).strip("\n") + "\n"


def render_card(card: dict[str, Any], catalog: dict[str, Any], cards_by_id: dict[str, Any]) -> str:
    """One card's page; ``catalog``: the catalog's envelope (source, generator); ``cards_by_id``:
    the summaries (``model.spool.summary_of``) of the cards it may relate to."""
    text = environment().get_template("card.md.j2").render(
        card=card, cards=cards_by_id, repo=repo_label(catalog["source"]), forge=forge_name(catalog["source"]),
        family=(cards_by_id.get(card["id"]) or {}).get("family"),  # publish.families.family_sites
        source=catalog["source"], generator=catalog["generator"],
        card_json=bool((catalog.get("options") or {}).get("card_json")),  # errors/<id>.json beside the page
    )
    return _tidy(text)


def repo_label(source: dict[str, Any]) -> str:
    """The name a page shows for the repository: ``owner/name`` of its URL, else the catalog's root."""
    repo = source["repo_url"] or source["root"]
    return repo.rstrip("/").split("://", 1)[-1].split("/", 1)[-1] if "://" in repo else repo


def forge_name(source: dict[str, Any]) -> str:
    """Where a permalink points, in words: GitHub, GitLab, or the forge."""
    url = source["repo_url"] or ""
    return "GitHub" if "github." in url else "GitLab" if "gitlab." in url else "the forge"


def _rendered_card(card: dict[str, Any], catalog: dict[str, Any], cards_by_id: dict[str, Any]) -> str:
    """The card's page; a card whose data the templates cannot render (a catalog written by
    another version, or a bug of ours) gets a page saying so, and the docs folder is written."""
    try:
        return render_card(card, catalog, cards_by_id)
    except Exception as exc:  # the per-card boundary of rendering
        if strict_from_env():
            raise
        return _unrenderable(card, type(exc).__name__)


def _unrenderable(card: dict[str, Any], why: str) -> str:
    name = code_span(card.get("id", "?"))
    return f"# Card {name}\n\nThis card could not be rendered ({escape_line(why)}); its data is in {name}.json.\n"


def render_index(catalog: dict[str, Any], summaries: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """``index.md``, and for a catalog too large for one page, a page per package
    (``index/<package>.md``, grouped by ``index_groups.group_modules``) that it links;
    ``summaries``: a family's first card stands for it (``families.folded``)."""
    groups = group_modules(summaries)
    env = environment()
    modules = index_modules(summaries) if groups is None else None
    families = catalog.get("families") or []
    folds = {"families": len(families), "cards": sum(len(family["cards"]) - 1 for family in families)}
    yield "index.md", _tidy(env.get_template("index.md.j2").render(**{**catalog, "modules": modules, "groups": groups, "folds": folds}))
    for group in groups or ():
        page = env.get_template("index_page.md.j2").render(source=catalog["source"], group=group, modules=index_modules(group["cards"]))
        yield group["page"], _tidy(page)


def dump_json(data: Any) -> str:
    return dumps_data(data)


Content = str | Iterable[str]  # a file's text, or its chunks in order (catalog.json of a large tree)


Rendered = list[tuple[str, str, str, str | None]]  # per card: id, search-index entry (its entry_text), page, JSON file or None


class PageMemo(Protocol):
    """Where a source file's rendered cards are kept between runs (``extractor.cache.Cache``)."""

    def get_pages(self, key: str) -> Rendered | None: ...

    def put_pages(self, key: str, rendered: Rendered) -> None: ...


Work = tuple[list[str], dict[str, Any], dict[str, Any], bool, PageMemo | None]  # (see file_pages)


def render_chunks(catalog: Any, mapper: Any = None, memo: PageMemo | None = None) -> Iterator[tuple[str, Content]]:
    """Every file of a docs folder as (relative POSIX path, content), one at a time: a large
    catalog is never held rendered in memory, and its cards are read one at a time from a
    spooled catalog (``model.spool``). A card's own JSON (``errors/<id>.json``) is written
    only where the catalog's options ask for it (``--card-json``): catalog.json holds them all,
    and a site's ``api/`` serves them one by one. ``mapper`` (``pool.mapper``'s) renders the
    cards of each file in a worker, in order; without it, here. ``memo`` keeps each file's
    rendered cards under a digest of all they are rendered from: after an edit, only the
    files whose cards (or the cards they show) changed are rendered again."""
    source = catalog if isinstance(catalog, CardCatalog) else DataCatalog(catalog if isinstance(catalog, dict) else to_data(catalog))
    card_json = bool((source.envelope.get("options") or {}).get("card_json"))
    digest = hashlib.sha256()
    yield "catalog.json", _hashed(catalog_json(source.envelope, source.texts()), digest)
    head = {"source": source.envelope["source"], "generator": source.envelope["generator"], "options": {"card_json": card_json}}
    families = family_sites(source.envelope.get("families") or [], source.summaries)
    count, files = _by_file(source, families)
    run = mapper or (lambda fn, items, count, on_death: map(fn, items))
    entries = []
    for rendered in run(file_pages, ((texts, summaries, head, card_json, memo) for texts, summaries in files), count, unrendered_pages):
        for card_id, entry, page, own_json in rendered:
            entries.append(entry if card_id not in families else entry_text(with_family(json.loads(entry), families)))
            if own_json is not None:
                yield f"errors/{card_id}.json", own_json
            yield f"errors/{card_id}.md", page
    yield from render_index(source.envelope, folded(families, source.summaries))
    # Last: the digest is complete once catalog.json's chunks were all taken.
    yield INDEX_FILE, index_chunks(entries, digest.hexdigest())


def file_pages(work: Work) -> Rendered:
    """The files of one source file's cards, from their texts; ``summaries``: the file's
    cards' summaries by id, with those of the other files' cards they relate to (_by_file; a
    related id the catalog lacks, in a catalog made by other means, gets the unrenderable page);
    ``head``: the catalog's source, generator and whether each card's JSON is written; the
    memo, if any, gives them as rendered before from the same texts, summaries and head."""
    _, summaries, head, _, memo = work
    if memo is None:
        return _pages(work, lambda card: _rendered_card(card, head, summaries))
    key = pages_key(work)
    found = memo.get_pages(key)
    if found is None:
        found = _pages(work, lambda card: _rendered_card(card, head, summaries))
        memo.put_pages(key, found)
    return found


def pages_key(work: Work) -> str:
    """A digest of all a file's pages are rendered from: the render identity, and the work's data."""
    texts, summaries, head, card_json, _ = work
    digest = hashlib.sha256(f"pages\0{render_identity()}\0".encode("ascii"))
    for text in texts:  # (each card's text as it is: JSON of it would escape it all again)
        raw = text.encode("utf-8", "surrogatepass")
        digest.update(len(raw).to_bytes(8, "big") + raw)
    digest.update(json.dumps([summaries, head, card_json], sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii"))
    return digest.hexdigest()


def unrendered_pages(work: Work) -> Rendered:
    """What a file whose worker died rendering its cards gets: their data, and a page saying so."""
    return _pages(work, lambda card: _unrenderable(card, "the worker process died"))


def _pages(work: Work, page: Callable[[dict[str, Any]], str]) -> Rendered:
    texts, _, _, card_json, _ = work
    out = []
    for text in texts:
        published = json.loads(text)
        own_json = dumps_data(published) if card_json else None  # (as catalog.json holds it)
        card = complete(Card, published)
        out.append((card["id"], entry_text(index_entry(card)), page(card), own_json))
    return out


def _by_file(source: CardCatalog, families: dict[str, dict[str, Any]]) -> tuple[int, Iterator[tuple[list[str], dict[str, Any]]]]:
    """How many runs of cards of one source file the catalog holds (one per file, in the
    order raisedocs writes), and each run's texts with the summaries of its file's cards by id
    (a member of a family with the family, as ``family_sites`` gives it)."""
    summaries = source.summaries
    by_path: dict[str, dict[str, Any]] = {}
    for summary in summaries:
        family = families.get(summary["id"])
        by_path.setdefault(summary["path"], {})[summary["id"]] = summary if family is None else {**summary, "family": family}
    starts = [i for i, summary in enumerate(summaries) if i == 0 or summary["path"] != summaries[i - 1]["path"]]

    by_id = {summary["id"]: summary for summary in summaries}

    def runs() -> Iterator[tuple[list[str], dict[str, Any]]]:
        texts = source.texts()
        for start, end in zip(starts, [*starts[1:], len(summaries)]):
            run = [next(texts) for _ in range(end - start)]
            yield run, _with_elsewhere(by_path[summaries[start]["path"]], run, by_id)

    return len(starts), runs()


_RELATED = re.compile(r'"related":\[([^\]]*)\]')


def _with_elsewhere(own: dict[str, Any], texts: list[str], by_id: dict[str, Any]) -> dict[str, Any]:
    """The file's summaries, and those of the cards of other files its cards relate to (a
    field constraint's card, in the file that declares the field: link.cards)."""
    wanted = {i for text in texts if (found := _RELATED.search(text)) for i in re.findall(r'"([0-9a-f]+)"', found.group(1))}
    elsewhere = {i: by_id[i] for i in sorted(wanted - own.keys()) if i in by_id}
    return {**own, **elsewhere} if elsewhere else own


def _hashed(chunks: Iterable[str], digest: Any) -> Iterator[str]:
    for chunk in chunks:
        digest.update(chunk.encode("utf-8"))
        yield chunk


def render_docs(catalog: Any) -> Iterator[tuple[str, str]]:
    """Every file of a docs folder as (relative POSIX path, text), one at a time."""
    for rel, content in render_chunks(catalog):
        yield rel, content if isinstance(content, str) else "".join(content)


def catalog_json(envelope: dict[str, Any], card_texts: Iterable[str]) -> Iterator[str]:
    """catalog.json in chunks, one card per line (compact JSON, sorted keys), then each other
    key on a line of its own: a third smaller than indented JSON, and a change to a card is
    still a change to its own line in a diff of the committed folder. Never the whole text
    at once."""
    cards = iter(card_texts)
    first = next(cards, None)
    if first is None:
        yield '{"errors": [],\n'
    else:
        yield '{"errors": [\n' + first
        for card in cards:
            yield ",\n" + card
        yield "\n],\n"
    rest = sorted((k, v) for k, v in envelope.items() if k != "errors")
    yield ",\n".join(f"{json.dumps(k)}: {dumps_compact(v).rstrip()}" for k, v in rest) + "}\n"


def render_diff(result: Any, link_base: str = "errors/") -> str:
    """Release-notes Markdown for a CatalogDiff, grouped by category, linking the new cards."""
    from .conditions import MOST_CONDITIONS, describe
    from .diff import CATEGORIES, folder_moves, release_groups

    data = result if isinstance(result, dict) else to_data(result)
    template = environment().get_template("diff.md.j2")
    renamed = {tuple(pair) for pair in data["renamed"]}
    return _tidy(template.render(diff=data, link_base=link_base, order_kinds=CATEGORIES, describe=describe, groups=release_groups(data),
                                 renamed=renamed, folder_moves=folder_moves(data), MOST_CONDITIONS=MOST_CONDITIONS))
