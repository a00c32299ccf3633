"""How many cards speak in the terms a user acts in: README's reach figures, from a catalog.

    python benchmarks/reach.py DOCS [DOCS ...] [--json]

DOCS is a docs folder (or its ``catalog.json``); run ``raisedocs verify DOCS`` on it first
for the executed-example figures. For each catalog it prints:

- **reached from a public entry**: cards that list the public entries reaching them;
- **caller-terms trigger**: cards whose trigger is ``concrete`` or ``environment`` (values a
  caller passes, and facts of the machine), and of those, the cards whose trigger is stated at
  a public entry (``at_entry``: the entry whose call the trigger, fixes and example are stated as);
- **with an example** (and of those, the **examples of any call**: raises no test guards,
  whose trigger is any call of the function, a placeholder's ``NotImplementedError`` most
  often), and **CLI examples** (``style: cli``) with the ``--flags`` they name;
  then the field constraints' **command-line pairs** (``command_line`` and ``command_line_fix``:
  the trigger's value and the fix's passed through the field's flag, beside the card's Python
  example), and the flags of both kinds;
- **executable cards lacking an argument**: ``concrete``/``environment`` cards whose trigger
  still has ``missing`` required arguments;
- **executed examples**: of the examples ``verify`` ran, those that behaved as claimed
  (``confirmed`` or ``wrapped``), and of the verified triggers' examples, those that raised
  exactly the card's error (``confirmed``/``wrapped``);
- **command lines**: of the CLI examples and command-line pairs ``verify`` judged, those that
  raised the card's error as claimed, and every outcome (with its reason: ``needs_network``
  where the command went on to download a model, which the sandbox cannot).

It reads the catalog only; nothing is extracted or run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections import Counter
from collections.abc import Iterable
from typing import Any

CLAIMED = ("concrete", "environment")
UNCONDITIONAL = "unconditional"
AS_CLAIMED = ("confirmed", "wrapped")


def cards_of(path: str) -> list[dict[str, Any]]:
    """The cards of a docs folder or catalog.json (one card per line after the envelope's first)."""
    if os.path.isdir(path):
        path = os.path.join(path, "catalog.json")
    with open(path, encoding="utf-8") as handle:
        return list(json.load(handle)["errors"])


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({100 * part / whole:.1f}%)" if whole else "0 of 0"


def _cli_flags(example: dict[str, Any]) -> Iterable[str]:
    """The ``--flags`` a CLI example's before line names."""
    for line in example["before"].splitlines():
        if line.startswith("#"):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        yield from (word.split("=", 1)[0] for word in words if word.startswith("--"))


def _status(card: dict[str, Any]) -> str | None:
    return (card.get("trigger") or {}).get("status")


def figures(cards: list[dict[str, Any]]) -> dict[str, Any]:
    """The reach figures of one catalog's cards."""
    total = len(cards)
    triggers = [card.get("trigger") or {} for card in cards]
    claimed = [t for t in triggers if t.get("status") in CLAIMED]
    examples = [card["example"] for card in cards if card.get("example")]
    cli = [example for example in examples if example.get("style") == "cli"]
    pairs = [{"before": card["command_line"]} for card in cards if card.get("command_line") and card.get("command_line_fix")]
    outcomes = Counter((card.get("verification") or {}).get("outcome") for card in cards if card.get("example"))
    ran = sum(n for outcome, n in outcomes.items() if outcome not in (None, "not_runnable"))
    verified_runs = Counter((card.get("verification") or {}).get("outcome") for card in cards
                            if card.get("example") and (card.get("trigger") or {}).get("verified"))
    verified_ran = sum(n for outcome, n in verified_runs.items() if outcome not in (None, "not_runnable"))
    return {
        "cards": total,
        "caller_terms": _share(len(claimed), total),
        "reached_from_a_public_entry": _share(sum(1 for card in cards if ((card.get("entries") or {}).get("paths"))), total),
        "at_an_entry": _share(sum(1 for card in cards if card.get("at_entry")), total),
        "with_an_example": _share(len(examples), total),
        # (of those, raises no test guards: any call reaches them, a placeholder's ``NotImplementedError`` most often)
        "examples_of_any_call": sum(1 for card in cards if card.get("example") and _status(card) == UNCONDITIONAL),
        "cli_examples": len(cli),
        "command_line_pairs": len(pairs),
        "cli_flags": len({flag for example in [*cli, *pairs] for flag in _cli_flags(example)}),
        "executable_lacking_an_argument": _share(sum(1 for t in claimed if t.get("missing")), len(claimed)),
        "executed_as_claimed": _share(sum(outcomes[o] for o in AS_CLAIMED), ran),
        "executed_verified_exact": _share(sum(verified_runs[o] for o in AS_CLAIMED), verified_ran),
        "outcomes": dict(sorted((str(k), v) for k, v in outcomes.items())),
        **_command_lines(cards),
    }


def _command_lines(cards: list[dict[str, Any]]) -> dict[str, Any]:
    """The command lines ``verify`` ran, CLI examples' and field constraints' pairs (the
    verification's ``command_line``): those that raised the card's error as claimed, of those
    judged, and what the others were."""
    runs = [(card.get("verification") or {}) for card in cards if (card.get("example") or {}).get("style") == "cli"]
    runs += [(card.get("verification") or {}).get("command_line") or {} for card in cards if card.get("command_line")]
    seen = Counter((run.get("outcome"), run.get("reason")) for run in runs if run)
    judged = sum(n for (outcome, _), n in seen.items() if outcome not in ("not_runnable", "timeout"))
    return {
        "command_lines_as_claimed": _share(sum(n for (outcome, _), n in seen.items() if outcome in AS_CLAIMED), judged),
        "command_line_outcomes": {f"{o}{':' + r if r else ''}": n for (o, r), n in sorted(seen.items(), key=str)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("docs", nargs="+", help="docs folders or catalog.json files")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    results = {}
    for docs in args.docs:
        try:
            cards = cards_of(docs)
        except (OSError, ValueError, KeyError) as error:
            print(f"reach.py: {docs}: {error}", file=sys.stderr)
            return 2
        results[docs] = figures(cards)
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    for docs, found in results.items():
        print(docs)
        for key, value in found.items():
            print(f"  {key.replace('_', ' ')}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
