"""Library: docs folders and corpus datasets -> one searchable set of cards, loaded once, read only.

Each source is one project: a docs folder (or catalog.json) from ``extract``, whose search
index is read (``search-index.json``, or built in memory: the server never writes, not even
the user cache), or each project of a dataset from ``corpus publish`` (its
``search-index/<key>.json``). A card's id across the library is ``<repo>.<card id>``, as the
corpus dataset writes it; a bare card id is accepted where one source holds it.

Lookups return plain data. A search tells how each card matched (``MatchType``) and whether
the best match is confident; where none is, it says so rather than passing a weak match off
as an answer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from ..errors import CatalogError, RaisedocsError
from ..model import Card
from ..model.codes import CLAIMED
from ..model.serialize import complete
from ..model.spool import summary_of
from ..publish.catalog_file import locate_catalog, read_envelope
from ..publish.explain import Match
from ..publish.paste import CLASS_ONLY_SCORE, Paste, match_paste, read_paste, render_match
from ..publish.render import render_card
from ..publish.search_index import full_card, open_index
from ..solve.personal import personal_fixes

CONFIDENT = 0.5  # a match scoring below this (or found by its class alone) is no answer
MOST_RESULTS = 50
MOST_TEXT = 100_000  # characters of a pasted text read


class LibraryError(RaisedocsError):
    """No catalog could be loaded."""


class NotFound(RaisedocsError):
    """A lookup's arguments name nothing the library holds (an unknown id or repo)."""


class MatchType(StrEnum):
    """How a card matched a pasted text, strongest first."""

    FRAME = "frame"  # a frame of the pasted traceback is on the card's raise
    EXACT = "exact"  # the card's message, its holes filled with the pasted values, is the pasted message
    TEMPLATE = "template"  # the card's message template is found in the pasted text
    CLASS = "class"  # only the exception class agrees (the card's message is not known)
    FUZZY = "fuzzy"  # no template matches: the card shares most of the pasted words


@dataclass(slots=True)
class Source:
    """One project: where its cards are and how to read them."""

    repo: str
    index: dict[str, Any]
    envelope: dict[str, Any]
    catalog: str | None = None  # a docs folder's catalog.json
    dataset: str | None = None  # a corpus dataset's folder
    page_base: str | None = None  # the URL its card pages are under, where the site's URL is known
    entries_by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    words: list[set[str]] | None = None  # each entry's words, as ``fuzzy`` compares them (made on its first use)

    def card(self, card_id: str) -> dict[str, Any]:
        """The whole card.

        Raises:
            CatalogError: the card cannot be read.
        """
        if self.catalog is not None:
            return full_card(self.catalog, card_id)
        path = os.path.join(str(self.dataset), "errors", f"{self.repo}.{card_id}.json")
        try:
            with open(path, encoding="utf-8") as handle:
                return complete(Card, dict(json.load(handle)["card"]))  # (the dataset leaves defaults out)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CatalogError(f"cannot read card {self.repo}.{card_id}: {exc}") from None

    def url(self, card_id: str) -> str | None:
        return f"{self.page_base}{card_id}.html" if self.page_base else None


@dataclass(slots=True)
class Library:
    """The sources loaded, and those that failed to load (repo or path -> why)."""

    sources: list[Source]
    failures: dict[str, str] = field(default_factory=dict)

    def repos(self) -> dict[str, Any]:
        listed = [{"repo": s.repo, "cards": len(s.index["entries"]), "root": s.envelope.get("source", {}).get("root"),
                   "rev": s.envelope.get("source", {}).get("rev"), "version": s.envelope.get("version")} for s in self.sources]
        return {"repos": listed, "not_loaded": [{"path": p, "reason": r} for p, r in sorted(self.failures.items())]}

    def _source(self, repo: str | None) -> list[Source]:
        if repo is None or repo == "":
            return self.sources
        found = [s for s in self.sources if s.repo == repo]
        if not found:
            raise NotFound(f"no repo {repo!r}: list_repos names {', '.join(s.repo for s in self.sources)}")
        return found

    def locate(self, error_id: str) -> tuple[Source, str]:
        """The source and card id an error id names (``repo.card`` or a bare card id).

        Raises:
            NotFound: no card has that id.
        """
        repo, dot, card_id = error_id.strip().rpartition(".")
        for source in self.sources:
            if (not dot or source.repo == repo) and card_id in source.entries_by_id:
                return source, card_id
        raise NotFound(f"no card {error_id!r} (ids are `repo.card`, as search_error returns them)")

    def search(self, text: str, repo: str | None = None, limit: int = 5) -> dict[str, Any]:
        """The cards ``text`` (a message or a traceback, raw) points at, best first."""
        limit = max(1, min(limit, MOST_RESULTS))
        sources = self._source(repo)
        found = _found(text[:MOST_TEXT], sources, limit)
        found.sort(key=lambda f: (list(MatchType).index(f[2]), -f[1].score, is_vendored(f[1].card["path"]), f[0].repo,
                                  f[1].card["path"], f[1].card["line"]))
        found = found or fuzzy(text[:MOST_TEXT], sources, limit)
        matches = [_described(s, m, kind) for s, m, kind in found[:limit]]
        confident = bool(matches) and matches[0]["match"] in (MatchType.FRAME, MatchType.EXACT, MatchType.TEMPLATE) \
            and matches[0]["score"] >= CONFIDENT
        note = None if confident else ("No confident match: no card's message template is in the text. The matches listed "
                                       "share its class or its words only; check them against the message." if matches else
                                       "No card matches this text.")
        return {"matches": matches, "confident": confident, "note": note}

    def best(self, text: str) -> tuple[Source, Match, MatchType] | None:
        found = _found(text[:MOST_TEXT], self.sources, 1)
        found.sort(key=lambda f: (list(MatchType).index(f[2]), -f[1].score))
        return found[0] if found else None


def _found(text: str, sources: list[Source], limit: int) -> list[tuple[Source, Match, MatchType]]:
    """Each source's matches of ``text`` (at most ``limit`` each, in its own order), with how each matched."""
    paste = read_paste(text)  # (once: each match's type reads it)
    return [(s, m, match_type(m, paste, text)) for s in sources for m in match_paste(text, s.index, limit)[0]]


_VENDORED = ("_vendor", "vendor", "_vendored", "vendored", "third_party", "_vendored_packages")


def is_vendored(path: str) -> bool:
    """Whether the file is a copy of another project kept inside this one (``pip/_vendor/requests``):
    among equal matches, the project's own card comes first."""
    return any(part in _VENDORED for part in path.split("/")[:-1])


def _described(source: Source, match: Match, kind: MatchType) -> dict[str, Any]:
    entry = match.card
    shown = entry.get("shown")
    return {
        "id": f"{source.repo}.{match.id}", "repo": source.repo, "match": kind, "score": round(match.score, 3),
        "class": entry["exception"]["display"], "catch": shown["exception"] if shown else entry["exception"]["display"],
        "template": entry["message"].get("template"), "where": f"{entry['path']}:{entry['line']}",
        "function": entry.get("function"), "values": match.values, **({"note": match.note} if match.note else {}),
    }


def match_type(match: Match, paste: Paste, text: str) -> MatchType:
    """How ``match`` (from ``match_paste``) matched ``text`` (``paste``: what ``read_paste`` reads of it)."""
    entry = match.card
    for file, line, _ in paste.frames:
        posix = file.replace("\\", "/")
        if (posix == entry["path"] or posix.endswith("/" + entry["path"])) and entry["line"] <= line <= entry["end_line"]:
            return MatchType.FRAME
    if match.score <= CLASS_ONLY_SCORE and not entry["message"].get("template"):
        return MatchType.CLASS
    filled = _filled(entry, match.values)
    said = " ".join((paste.message if paste.message is not None else text).split())
    # (the template's own text must be most of it: "{name} must be {dtype}" fills any "... must be ..." exactly)
    literal = (entry.get("pattern") or {}).get("literal_chars", 0)
    is_exact = filled is not None and " ".join(filled.split()) == said and literal >= len(said.replace(" ", "")) / 2
    return MatchType.EXACT if is_exact else MatchType.TEMPLATE


def _filled(entry: dict[str, Any], values: dict[str, str]) -> str | None:
    """The entry's message, its literal runs and each hole's pasted value in order (the
    template as search compiled it), or None where it has no pattern or a hole no value."""
    pattern = entry.get("pattern")
    if not pattern:
        return None
    exprs = dict(pattern["groups"])
    out = []
    for kind, value in pattern["items"]:
        if kind == "text":
            out.append(value)
        elif exprs.get(value) in values:
            out.append(values[exprs[value]])
        else:
            return None
    return "".join(out)


_WORD = 3  # words shorter than this are not compared


def fuzzy(text: str, sources: list[Source], limit: int) -> list[tuple[Source, Match, MatchType]]:
    """Cards sharing at least two thirds of the text's words (in their message, class, function
    and path), scored below ``CONFIDENT``: a lead, never an answer."""
    words = {w for w in _words(text) if len(w) >= _WORD}
    if len(words) < 2:
        return []
    found = []
    for source in sources:
        if source.words is None:  # (each entry's words, once per server: fuzzy runs on every paste nothing else matches)
            source.words = [_words(" ".join([entry["message"].get("template") or "", entry["exception"]["display"],
                                             entry.get("function") or "", entry["path"]])) for entry in source.index["entries"]]
        for entry, have in zip(source.index["entries"], source.words):
            share = len(words & have) / len(words)
            if share >= 2 / 3:
                found.append((source, Match(id=entry["id"], score=round(0.4 * share, 3), values={}, card=entry), MatchType.FUZZY))
    found.sort(key=lambda f: -f[1].score)
    return found[:limit]


def _words(text: str) -> set[str]:
    from ..corpus.search import tokens

    return set(tokens(text))


def card_markdown(source: Source, card_id: str) -> str:
    """The card for an agent: the class to catch, the card's Markdown page, its URL and its JSON.

    Raises:
        CatalogError: the card cannot be read.
    """
    card = source.card(card_id)
    related = {}
    for other in (card.get("related") or [])[:10]:
        try:
            related[other] = summary_of(source.card(other))
        except CatalogError:
            continue
    page = render_card({**card, "related": [r for r in card.get("related") or [] if r in related]}, source.envelope, related)
    shown = card.get("shown")
    catch = shown["exception"] if shown else card["exception"]["display"]
    url = source.url(card_id)
    head = [f"Id: `{source.repo}.{card_id}` · Catch: `{catch}`" + (f" · Page: {url}" if url else "")]
    return "\n".join([*head, "", page.rstrip(), "", "## Data", "", "```json", json.dumps(card, indent=1, sort_keys=True), "```", ""])


def explain_text(library: Library, text: str) -> str:
    """The best card for a pasted text, with fixes solved for the values it shows."""
    best = library.best(text)
    if best is None:
        return "No card matches this text."
    source, match, kind = best
    card = source.card(match.id)
    personal = personal_fixes(card, match.values) if match.values and (card.get("trigger") or {}).get("status") in CLAIMED else None
    answer = render_match(replace(match, card=card, personal=personal), os.path.dirname(source.catalog or ""))
    lines = [f"Id: `{source.repo}.{match.id}` · matched by {kind}" + ("" if match.score >= CONFIDENT else " (not confident)"),
             *(line for line in answer.splitlines() if not line.startswith("Card: "))]
    url = source.url(match.id)
    return "\n".join([*lines, *([f"Page: {url}"] if url else [])])


def load_library(catalogs: list[str], datasets: list[str], site_urls: list[str]) -> Library:
    """Load every docs folder and dataset once (their search indexes; cards are read on demand).

    Raises:
        LibraryError: nothing could be loaded.
    """
    sources: list[Source] = []
    failures: dict[str, str] = {}
    for number, path in enumerate(catalogs):
        site = site_urls[number] if number < len(site_urls) else None
        try:
            sources.append(_docs_source(path, site))
        except (RaisedocsError, OSError, ValueError, KeyError) as exc:
            failures[path] = str(exc)
    for path in datasets:
        try:
            sources.extend(_dataset_sources(path))
        except (RaisedocsError, OSError, ValueError, KeyError) as exc:
            failures[path] = str(exc)
    if not sources:
        raise LibraryError("no catalog could be loaded: " + "; ".join(f"{p}: {r}" for p, r in failures.items()))
    _unique_repos(sources)
    return Library(sources=sources, failures=failures)


def _docs_source(path: str, site: str | None) -> Source:
    file = locate_catalog(path)
    envelope = read_envelope(file)
    if envelope is None:
        raise CatalogError(f"{file} is not a catalog raisedocs wrote")
    index = open_index(file, cache_dir=None)
    name = (envelope.get("options") or {}).get("repo_name") or envelope["source"].get("root") or "catalog"
    return _indexed(Source(repo=_key(name), index=index, envelope=envelope, catalog=file,
                           page_base=(site.rstrip("/") + "/errors/") if site else None))


def _dataset_sources(folder: str) -> list[Source]:
    with open(os.path.join(folder, "repos.json"), encoding="utf-8") as handle:
        projects = json.load(handle)["projects"]
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as handle:
        base = json.load(handle).get("base_url")
    out = []
    for project in projects:
        if project.get("status") != "done":
            continue
        key = project["key"]
        with open(os.path.join(folder, "search-index", f"{key}.json"), encoding="utf-8") as handle:
            index = json.load(handle)
        with open(os.path.join(folder, "repos", f"{key}.json"), encoding="utf-8") as handle:
            envelope = {**json.load(handle)["catalog"], "version": project.get("version")}
        out.append(_indexed(Source(repo=key, index=index, envelope=envelope, dataset=folder,
                                   page_base=f"{base}{key}/errors/" if base else None)))
    return out


def _indexed(source: Source) -> Source:
    source.entries_by_id = {entry["id"]: entry for entry in source.index["entries"]}
    return source


def _key(name: str) -> str:
    from ..corpus.projects import normalize

    return normalize(name)


def _unique_repos(sources: list[Source]) -> None:
    seen: dict[str, int] = {}
    for source in sources:
        if source.repo in seen:
            seen[source.repo] += 1
            source.repo = f"{source.repo}-{seen[source.repo]}"
        else:
            seen[source.repo] = 1
