"""Search: every project's search entries -> shards a browser loads only as a paste needs them.

A pasted message or traceback is cut into tokens as the site's script cuts it
(``site.js``'s ``tokens``: identifiers split at case changes, lower case, runs of letters and
digits), and each traceback frame's file path into its trailing parts
(``site-packages/a/b.py``, ``a/b.py``, ``b.py``), each matched against the entries' whole
paths. Term shards (``search/tNNNN.js``) map each token to the numbers of the entries that
hold it; a token's shard is its FNV-1a hash modulo the shard count. Entry shards
(``search/eNNNN.js``) hold ``ENTRY_SHARD`` entries each, in number order: what the site's
matching reads of a card (``publish.search_index.index_entry``), with its project. The
browser loads the term shards of the paste's tokens, ranks the entries that share its rarer
tokens, loads the entry shards of the best few and matches them as a one-project site does.
A token held by more than ``STOP_SHARE`` of the entries (``error``, ``self``) is left out:
it tells no card apart. Shards are scripts (``raisedocsShard(name, data)``), so the site
also works from ``file://``, where browsers refuse ``fetch``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

ENTRY_SHARD = 100
TERM_SHARD_BYTES = 64_000
STOP_SHARE = 0.05
STOP_FLOOR = 200  # a token is never a stop token while fewer entries than this hold it

_CASE = re.compile(r"([a-z0-9])([A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")
PATH_MARK = "@"  # a term of the entry's whole path: a traceback's frame ending in it finds it (no token holds "@")
_KEPT = ("id", "exception", "path", "line", "end_line", "function", "message", "pattern", "shown", "rank", "family")


def tokens(text: str) -> list[str]:
    """The tokens of ``text``, as site.js's ``tokens`` cuts them."""
    return [t for t in _SPLIT.split(_CASE.sub(r"\1 \2", text).lower()) if len(t) > 1]


def fnv1a(text: str) -> int:
    """The 32-bit FNV-1a hash of ``text``'s UTF-8 bytes (corpus.js computes the same)."""
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def entry_terms(entry: dict[str, Any]) -> set[str]:
    """The terms a search entry is found by: the tokens of its message, exception classes,
    function and path, and its whole path after ``PATH_MARK``."""
    exception = entry["exception"]
    names = [exception["display"], *(c.rsplit(".", 1)[-1] for c in exception.get("classes") or ())]
    if entry.get("shown"):
        names.append(entry["shown"]["exception"])
    text = " ".join([entry["message"].get("template") or "", *names, entry.get("function") or "", entry["path"]])
    return {*tokens(text), PATH_MARK + entry["path"]}


def _script(name: str, data: Any) -> str:
    return f"raisedocsShard({json.dumps(name)}, {json.dumps(data, sort_keys=True, separators=(',', ':'))});\n"


class SearchShards:
    """Collects the entries of every project in order; yields entry shards as they fill and
    the term shards and the script's settings at the end."""

    def __init__(self) -> None:
        self.postings: dict[str, list[int]] = {}
        self.count = 0
        self.pending: list[dict[str, Any]] = []

    def add(self, key: str, entry: dict[str, Any]) -> Iterator[tuple[str, str]]:
        """Take one project's search entry (``index_entry``); an entry shard when one fills."""
        kept = {name: entry[name] for name in _KEPT if name in entry}
        kept.update(repo=key, href=f"{key}/errors/{entry['id']}.html")
        if "family" in kept:
            kept["family"] = f"{key}.{kept['family']}"  # (a family id is its catalog's own)
        for term in entry_terms(entry):
            self.postings.setdefault(term, []).append(self.count)
        self.count += 1
        self.pending.append(kept)
        if len(self.pending) == ENTRY_SHARD:
            yield self._entry_shard()

    def _entry_shard(self) -> tuple[str, str]:
        name = f"e{(self.count - 1) // ENTRY_SHARD:04d}"
        shard, self.pending = self.pending, []
        return f"search/{name}.js", _script(name, shard)

    def finish(self) -> Iterator[tuple[str, str]]:
        """The last entry shard, the term shards, and ``assets/corpus-search.js``."""
        if self.pending:
            yield self._entry_shard()
        most = max(STOP_FLOOR, int(STOP_SHARE * self.count))
        kept = {term: numbers for term, numbers in sorted(self.postings.items()) if len(numbers) <= most}
        size = sum(len(term) + 4 + 8 * len(numbers) for term, numbers in kept.items())
        shards = 1 << max(0, math.ceil(math.log2(max(1, size / TERM_SHARD_BYTES))))
        parts: list[dict[str, list[int]]] = [{} for _ in range(shards)]
        for term, numbers in kept.items():
            parts[fnv1a(term) % shards][term] = numbers
        for number, part in enumerate(parts):
            yield f"search/t{number:04d}.js", _script(f"t{number:04d}", part)
        settings = {"entries": self.count, "per_shard": ENTRY_SHARD, "term_shards": shards, "stop_tokens": len(self.postings) - len(kept)}
        yield "assets/corpus-search.js", "window.RAISEDOCS_CORPUS = " + json.dumps(settings, sort_keys=True) + ";\n"
