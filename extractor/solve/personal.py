"""Personal fixes: a card + the values a user's pasted message shows -> fixes for those values.

``explain`` reads the text each placeholder of the template stood for
(``offload_num_in_group (4) must be <= offload_group_size (2)`` gives
``self.prefetch.offload_num_in_group = 4``, ``self.prefetch.offload_group_size = 2``). Where a
placeholder is an input of the guard, the card's trigger takes the user's value instead; if
the guard still holds there (the values are on the path the card describes), the fix search
runs from them, so the answer is "set offload_group_size to 4", not the card's generic "to 1".
"""

from __future__ import annotations

from typing import Any

from ..model import CLAIMED, Card, PartRole, from_data
from .domains import NO_VALUE, admits, literal_value
from .evaluate import EvalError
from .posing import build_problem
from .search import distance


def _literal(text: str) -> Any:
    """A value as a message prints it: a Python literal where it reads as one, else the text."""
    value = literal_value(text.strip())
    return text if value is NO_VALUE else value


def _from_json(value: Any) -> Any:
    """A trigger input as JSON carries it; ``{"python": repr}`` read back where it is a literal."""
    return literal_value(value["python"]) if isinstance(value, dict) and set(value) == {"python"} else value


def personal_fixes(card_data: dict[str, Any], values: dict[str, str]) -> dict[str, Any] | None:
    """``{"inputs": the user's values the guard reads, "fixes": [{"input", "from", "to", "part"}]}``,
    or None where the values name no input, or where the guard does not hold for them."""
    trigger = card_data.get("trigger") or {}
    if trigger.get("status") not in CLAIMED:
        return None
    card = from_data(Card, card_data)
    domains = {d.input: d for d in card.solved.domains}
    try:
        problem = build_problem(card.statement.guard, domains)
    except EvalError:
        return None
    theirs = {expr: _literal(text) for expr, text in values.items()
              if expr in problem.variables and not problem.variables[expr].is_constant}
    if not theirs:
        return None
    env = problem.env({})
    env.update({name: found for name, value in trigger["inputs"].items() if (found := _from_json(value)) is not NO_VALUE})
    env.update(theirs)
    if problem.holds(env) is not True:
        return None  # these values do not take the path the card describes
    own = [p.code for p in card.statement.guard.parts if p.role == PartRole.OWN] or [card.statement.guard.code]
    fixes = []
    for name in theirs:  # (another input's value is the card's assumption, not the user's)
        found = _nearest_fix(problem, env, name, theirs)
        if found is not None:
            fixes.append({"input": name.removeprefix("self."), "from": env.get(name), "to": found, "part": own[-1]})
    return {"inputs": theirs, "fixes": fixes[:MAX_FIXES]}


MAX_FIXES = 3


def _nearest_fix(problem: Any, env: dict[str, Any], name: str, theirs: dict[str, Any]) -> Any:
    """The value of ``name`` nearest its current one that makes the guard false, trying its
    candidates and the other pasted values (``a > b`` with a = 4 is fixed by b = 4); NO_VALUE
    stands for none (returned as None)."""
    variable = problem.variables[name]
    if variable.is_constant or variable.is_atom:
        return None
    current = env.get(name)
    others = [v for n, v in theirs.items() if n != name]
    near = [w for v in others if isinstance(v, int) and not isinstance(v, bool) for w in (v, v - 1, v + 1)]
    pool = [v for v in (*variable.candidates, *others, *near) if admits(variable.domain, v) and repr(v) != repr(current)]
    for value in sorted(pool, key=lambda v: distance(current, v)):
        if problem.holds({**env, name: value}) is False:
            return value
    return None
