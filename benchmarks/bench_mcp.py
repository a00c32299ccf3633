"""Lookup latency of ``raisedocs mcp``, through the MCP SDK's own client over stdio.

    python benchmarks/bench_mcp.py DOCS [--runs 5] [--cards 20]

Starts the server on DOCS (a docs folder) once, timing it until the client's session is
initialised, then calls ``search_error`` ``--runs`` times for each text and reports the
median and the slowest call in milliseconds (the round trip the agent sees: the client's
request, the server's lookup, the answer). The texts are vLLM's offload message plain and
wrapped by pydantic, and the template of ``--cards`` cards (the first by id whose message
opens with text), each hole filled with ``7``; for those it also counts how often the
card itself is the first match, and how often a card with its very message is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
OFFLOAD = "offload_prefetch_step (0) must be >= 1 when prefetch offloading is enabled (offload_group_size > 0)"
WRAPPED = ("1 validation error for OffloadConfig\n  Value error, " + OFFLOAD + " [type=value_error, input_value=ArgsKwargs((), "
           "{'offload_group_size': 2}), input_type=ArgsKwargs]\n    For further information visit https://errors.pydantic.dev/2.12/v/value_error")


def card_texts(docs: Path, count: int) -> list[tuple[str, str, str]]:
    catalog = json.loads((docs / "catalog.json").read_text(encoding="utf-8"))
    out = []
    for card in sorted(catalog["errors"], key=lambda c: c["id"]):
        parts = card["message"].get("parts") or []
        if parts and parts[0]["type"] == "text" and len(parts[0]["text"]) >= 12:
            out.append((card["id"], card["message"]["template"], "".join(p["text"] if p["type"] == "text" else "7" for p in parts)))
        if len(out) == count:
            break
    return out


async def measure(docs: Path, runs: int, cards: int) -> dict[str, object]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "extractor", "mcp", "--catalog", str(docs)], cwd=str(ROOT))
    start = time.perf_counter()
    async with Client(params) as client:
        started = time.perf_counter() - start
        texts = [("offload", None, OFFLOAD), ("offload-wrapped", None, WRAPPED), *card_texts(docs, cards)]
        times: list[float] = []
        first = same = 0
        for name, template, text in texts:
            for _ in range(runs):
                t = time.perf_counter()
                result = await client.call_tool("search_error", {"message": text, "limit": 3})
                times.append(time.perf_counter() - t)
            matches = result.structured_content["matches"]
            if template is not None and matches:
                first += matches[0]["id"].endswith("." + name)
                same += matches[0]["template"] == template  # (another card with the very same message)
            if name.startswith("offload"):
                print(f"{name}: {matches[0]['id']} {matches[0]['where']} ({matches[0]['match']})", file=sys.stderr)
    return {"startup_s": round(started, 2), "calls": len(times), "median_ms": round(1000 * statistics.median(times), 1),
            "slowest_ms": round(1000 * max(times), 1), "cards_first": f"{first} of {len(texts) - 2}",
            "same_message_first": f"{same} of {len(texts) - 2}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cards", type=int, default=20)
    options = parser.parse_args()
    print(json.dumps(asyncio.run(measure(options.docs, options.runs, options.cards)), indent=2))


if __name__ == "__main__":
    main()
