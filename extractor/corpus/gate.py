"""Gate: sampled cards of every project -> a verdict on whether the corpus may be published.

Publishing checks a sample of each project's cards (``SAMPLE`` per project, the same ones
every time: the first by the sha256 of their ids): that the card matches the catalog
schema's ``Card``, that its permalink (where it has one) is a forge URL pinned to a full
commit sha with a line anchor, that its page's URL is well formed and that its page holds at
most ``pages.PAGE_BYTES``. A project whose catalog cannot be read fails its whole sample.
More than ``max_failing`` of the sample failing refuses the publish (``GateError``).
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from functools import lru_cache
from typing import Any

from ..errors import RaisedocsError
from ..model.schema import shipped_schema
from .pages import PAGE_BYTES

SAMPLE = 20
_PERMALINK = re.compile(r"https://[A-Za-z0-9.-]+(?::\d+)?/[^\s#?]+/(?:-/)?blob/[0-9a-f]{40}/[^\s#?]+#L\d+(?:-L\d+)?")


class GateError(RaisedocsError):
    """Too many sampled cards failed their checks: nothing is published."""


def sample_ids(ids: list[str]) -> set[str]:
    """The ids a project's sample is: the first ``SAMPLE`` by their sha256."""
    return set(sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())[:SAMPLE])


@lru_cache(maxsize=1)
def _card_validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator({"$defs": shipped_schema()["$defs"], "$ref": "#/$defs/Card"})


def card_problems(published: dict[str, Any], page: str, url: str) -> list[str]:
    """What is wrong with one sampled card (as catalog.json holds it), its page and its URL."""
    problems = [f"schema: {error.message[:120]}" for error in _card_validator().iter_errors(published)][:3]
    link = published.get("permalink")
    if link is not None and not _PERMALINK.fullmatch(link):
        problems.append(f"permalink not pinned to a commit and a line: {link[:120]}")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc or " " in url:
        problems.append(f"page URL not well formed: {url[:120]}")
    if len(page.encode("utf-8")) > PAGE_BYTES:
        problems.append(f"page of {len(page.encode('utf-8'))} bytes (the limit is {PAGE_BYTES})")
    return problems


class Gate:
    """The sample's tally, project by project."""

    def __init__(self, max_failing: float) -> None:
        self.max_failing = max_failing
        self.checked = 0
        self.failures: list[str] = []

    def record(self, where: str, problems: list[str]) -> None:
        self.checked += 1
        if problems:
            self.failures.append(f"{where}: {'; '.join(problems)}")

    def unreadable(self, key: str, reason: str) -> None:
        """A project whose catalog cannot be read: its whole sample fails."""
        self.checked += SAMPLE
        self.failures.extend([f"{key}: {reason}"] * SAMPLE)

    def verdict(self) -> None:
        """Raises:
            GateError: more than ``max_failing`` of the sample failed.
        """
        share = len(self.failures) / self.checked if self.checked else 0.0
        if share > self.max_failing:
            shown = "; ".join(sorted(set(self.failures))[:5])
            raise GateError(f"quality gate: {len(self.failures)} of {self.checked} sampled cards fail their checks "
                            f"({share:.1%}, the limit is {self.max_failing:.1%}): {shown}")
