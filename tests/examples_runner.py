"""What is wrong with a card's example when run: ``raisedocs verify``'s judgement, as a list.

Used by the test that executes the fixtures' examples (safe: this project wrote them). The
running and judging are the product's (``extractor.verify``: a fresh sandboxed interpreter
per example); this only turns its outcome into readable problems for an assertion.
"""

from __future__ import annotations

from extractor.verify.runner import Settings, verify_card


def check(card: dict, root: str) -> list[str]:
    """Empty when "before" raises the card's class and message from the card's lines (inside
    the class the card says the caller gets, where a framework wraps it: ``Card.shown``) and
    "after" (where the example has one) does not raise from them; else what happened."""
    example = card["example"]
    if example is None or example["style"] != "python":
        return []
    result = verify_card(card, Settings(roots=(root,), timeout=20, jobs=1))
    if result is None:
        return ["the card's trigger is not verified"]
    problems = []
    shown = (card.get("shown") or {}).get("exception", "")
    observed = (result.get("observed") or {}).get("exception") or ""
    if result["outcome"] == "wrapped" and shown.rsplit(".", 1)[-1] != observed:
        problems.append(f"before: wrapped in {observed}, the card says the caller gets {shown or 'this class'}")
    elif result["outcome"] not in ("confirmed", "wrapped"):
        problems.append(f"before: {result['outcome']} {result.get('observed') or result.get('reason') or ''}".rstrip())
    if example["after"] is not None and result.get("fix") != "holds":
        problems.append(f"after: {result.get('fix')}")
    return problems
