"""Guards: the condition that reaches each raise, asserted as whole Python expressions."""

from __future__ import annotations

import textwrap

import pytest

from extractor.collect.byname import by_name

from .helpers import extract_snippet, only, run_cli, temp_tree


def guards(tmp_path, code: str) -> list[str]:
    return [c.statement.guard.code for c in extract_snippet(tmp_path, code)]


def test_if_elif_else_negates_earlier_branches(tmp_path) -> None:
    code = """
    def f(mode):
        if mode == "a":
            raise ValueError("a")
        elif mode == "b":
            raise ValueError("b")
        else:
            raise ValueError("c")
    """
    assert guards(tmp_path, code) == ['mode == "a"', 'mode != "a" and mode == "b"', 'mode != "a" and mode != "b"']


def test_earlier_raise_on_the_path_is_negated(tmp_path) -> None:
    code = """
    def f(self):
        if self.backend == "p" or self.size > 0:
            if self.n > self.size:
                raise ValueError("n")
            if self.step < 1:
                raise ValueError("step")
    """
    assert guards(tmp_path, code)[1] == (
        '(self.backend == "p" or self.size > 0) and not (self.n > self.size) and self.step < 1'
    )


def test_early_return_continue_break_and_assert(tmp_path) -> None:
    code = """
    def f(x, items):
        assert x > 0
        if x == 5:
            return
        for item in items:
            if item is None:
                continue
            if item == "stop":
                break
            raise ValueError(item)
    """
    [guard] = extract_snippet(tmp_path, code)
    assert guard.statement.guard.code == "x > 0 and x != 5 and item is not None and item != \"stop\""
    assert guard.statement.guard.inputs == ("x",)
    assert guard.statement.guard.opaque == ("item",)
    # The raise is reached on items = [item]: the loop's element, set through its iterable.
    assert [(c.kind, c.code) for c in guard.statement.guard.context] == [("element", "for item in items")]
    assert guard.statement.guard.loops == (("item", "items"),)
    # An earlier ``if`` that only returns, continues or breaks is a way out (``leave``: the fix
    # search may take it); an assert is another error (``exit``).
    assert [p.role for p in guard.statement.guard.parts] == ["exit", "leave", "leave", "leave"]


def test_only_an_if_that_leaves_by_return_break_or_continue_is_a_way_out(tmp_path) -> None:
    code = """
    import sys
    def f(x, pair):
        if x == 1:
            sys.exit(1)
        if x == 2:
            a, b = pair
            return a
        if x == 3:
            if pair:
                return pair
        raise ValueError(x)
    """
    [card] = extract_snippet(tmp_path, code)
    # x == 2 returns or fails to unpack: not only a way out
    assert [(p.role, p.code) for p in card.statement.guard.parts] == [
        ("exit", "x != 1"), ("exit", "x != 2"), ("leave", "x == 3 and not pair or x != 3")]


def test_a_fix_may_take_an_early_return(tmp_path) -> None:
    code = """
    def pick(mode: str):
        if mode == "fast":
            return 1
        if mode == "slow":
            return 2
        raise ValueError(f"unknown mode {mode!r}")
    """
    [card] = extract_snippet(tmp_path, code)
    assert [(f.target, f.inputs) for f in card.solved.fixes] == [("leave", {"mode": "fast"}), ("leave", {"mode": "slow"})]


def test_a_local_reads_as_the_value_that_reaches_the_raise(tmp_path) -> None:
    code = """
    def f(self, n):
        active = self.size > 0
        limit = 1
        if n:
            limit = 2
        if active and n > limit:
            raise ValueError("x")
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "self.size > 0 and n > (2 if n else 1)"
    assert card.statement.guard.inputs == ("self.size", "n")
    assert card.statement.guard.opaque == ()


@pytest.mark.parametrize(
    ("body", "guard", "inputs", "opaque"),
    [
        # rebound after the raise: at the raise it is still the argument
        ("if n < 0:\n    raise ValueError('x')\nn = abs(n)", "n < 0", ("n",), ()),
        # each check reads the value of its own point
        ("if n < 0:\n    return\nn += 2\nif n > 9:\n    raise ValueError('x')", "not (n < 0) and (n + 2) > 9", ("n",), ()),
        ("m = n\nm = m * 2\nif m > 9:\n    raise ValueError('x')", "(n * 2) > 9", ("n",), ()),
        ("a, b = n, 1\nif a > b:\n    raise ValueError('x')", "n > 1", ("n",), ()),
        ("if (k := len(s)) > 3:\n    raise ValueError('x')", "len(s) > 3", ("s",), ()),
        ("if n:\n    s = 'a'\nelif k:\n    s = 'b'\nelse:\n    return\nif s == 'a':\n    raise ValueError('x')",
         "(n or not n and k) and ('a' if n else 'b') == 'a'", ("n", "k"), ()),
        ("if k: m = n + 1; m += 1\nelse: m = 0\nif m > 3:\n    raise ValueError('x')", "((n + 1) + 1 if k else 0) > 3", ("n", "k"), ()),
        # what the reaching values do not follow stays opaque; a parameter rebound so is a
        # name of its own there (``n_1``), its own name still the argument
        ("for x in s:\n    n = x\nif n > 3:\n    raise ValueError('x')", "n_1 > 3", (), ("n_1",)),
        ("while n:\n    if k > n:\n        raise ValueError('x')\n    k = k - 1", "n and k_1 > n", ("n",), ("k_1",)),
        ("with open(s) as n:\n    pass\nif n:\n    raise ValueError('x')", "n_1", (), ("n_1",)),
        ("try:\n    n = int(s)\n    k = 1\nexcept ValueError:\n    if n:\n        raise ValueError('x')",
         "(__raises__(int(s), (ValueError,)) or not __raises__(int(s), (BaseException,)) and __raises__(1, (ValueError,))) and n_1",
         ("s",), ("n_1",)),
        ("lines = []\nlines.append(s)\nif not lines:\n    raise ValueError('x')", "not lines", (), ("lines",)),
        ("m = None\ndef g():\n    nonlocal m\n    m = 1\nif m is not None:\n    raise ValueError('x')", "m is not None", (), ("m",)),
        ("match s:\n    case 'a':\n        k = 2\nif k > 1:\n    raise ValueError('x')", "k_1 > 1", (), ("k_1",)),
        # a value read at its assignment, of a name rebound since: each value a name of its
        # own (vLLM's ``video_audio_start = audio_idx``, then ``audio_idx += 1``, then the check)
        ("for x in s:\n    start = k\n    if x:\n        k += 1\n    if k - start != n:\n        raise ValueError('x')",
         "(k_1 if x else k_2) - k_2 != n", ("n",), ("k_1", "x", "k_2")),
        ("m = s\nfor x in s:\n    s = x\nif m > s:\n    raise ValueError('x')", "s > s_1", ("s",), ("s_1",)),
        # base64.b32decode: ``l`` is the argument's length, ``p`` the stripped value's
        ("l = len(s)\ns = s.rstrip('=')\np = l - len(s)\nfor i in range(3):\n    pass\nif l % 8 or p > 3:\n    raise ValueError('x')",
         "len(s) % 8 or (len(s) - len(s.rstrip('='))) > 3", ("s",), ()),
        # ``x = f(x)``: the value it read is an earlier one, named so (``m`` at the raise is ``float(m_0)``)
        ("m = lookup(1)\nif m is None:\n    return\nm = float(m)\nif m <= 0:\n    raise ValueError('x')",
         "m_0 is not None and float(m_0) <= 0", (), ("m_0",)),
        # ... a mapping's get is followed as a fresh object is (nothing changes what it gave)
        ("m = s.get(1)\nif m is None:\n    return\nm = float(m)\nif m <= 0:\n    raise ValueError('x')",
         "s.get(1) is not None and float(s.get(1)) <= 0", ("s",), ()),
        # ... but a parameter's name stands for its argument wherever it is read
        ("m = k\nk = n\nif m > k:\n    raise ValueError('x')", "k > n", ("k", "n"), ()),
        # ... and still inlined where nothing rebinds the name in between
        ("for x in s:\n    v = x\n    if v == n:\n        raise ValueError('x')", "x == n", ("n",), ("x",)),
        ("m = k\nif n:\n    m = m + 1\nif m > 3:\n    raise ValueError('x')", "(k + 1 if n else k) > 3", ("k", "n"), ()),
        # a fresh object (sorted, split) is its call where nothing may change it in between
        ("xs = sorted(s)\nif not xs:\n    raise ValueError('x')", "not sorted(s)", ("s",), ()),
        ("xs = sorted(s)\nxs.append(n)\nif not xs:\n    raise ValueError('x')", "not xs", (), ("xs",)),
        ("xs = s.split(':')\nhelper(xs)\nif len(xs) < 3:\n    raise ValueError('x')", "len(xs) < 3", (), ("xs",)),
        ("s = s.strip().split(':')\nif len(s) < k:\n    raise ValueError('x')", "len(s.strip().split(':')) < k", ("s", "k"), ()),
        # ... and so is a list, set or dict display (httpx's ``allowed = {...}``; ``modes.append``: not)
        ("allowed = {'host': 1, 'port': k}\nif s not in allowed:\n    raise ValueError('x')", "s not in {'host': 1, 'port': k}", ("s", "k"), ()),
        ("modes = ['a', 'b']\nmodes.append(s)\nif n not in modes:\n    raise ValueError('x')", "n not in modes", ("n",), ("modes",)),
        # ... but not inside an f-string that its quotes would end (before Python 3.12)
        ('m = s.replace("a", "b")\nif f"{m}!" == k:\n    raise ValueError(\'x\')', 'f"{m}!" == k', ("k",), ("m",)),
        # past a try whose handlers all leave, the body completed
        ("try:\n    m = n + 1\nexcept TypeError:\n    return\nif m > 3:\n    raise ValueError('x')",
         "not __raises__(n + 1, (BaseException,)) and (n + 1) > 3",
         ("n",), ()),
    ],
)
def test_reaching_values_path_by_path(tmp_path, body: str, guard: str, inputs: tuple, opaque: tuple) -> None:
    code = "def f(n, s='', k=0):\n" + textwrap.indent(body, "    ") + "\n"
    [card] = [c for c in extract_snippet(tmp_path, code) if c.exception.display == "ValueError"]
    assert (card.statement.guard.code, card.statement.guard.inputs, card.statement.guard.opaque) == (guard, inputs, opaque)


def test_while_test_and_except_handler(tmp_path) -> None:
    code = """
    def f(queue, table, key):
        while queue:
            raise ValueError("w")
        try:
            return table[key]
        except (KeyError, IndexError) as exc:
            raise LookupError(key) from exc
    """
    first, second = extract_snippet(tmp_path, code)
    assert first.statement.guard.code == "queue"
    # The handler runs when the one-statement try body raises what it catches.
    assert second.statement.guard.code == "__raises__(table[key], (KeyError, IndexError))"
    assert [(c.kind, c.code) for c in second.statement.guard.context] == [("handler", "except (KeyError, IndexError) as exc")]
    assert second.statement.cause == "exc"


def test_match_case_patterns(tmp_path) -> None:
    code = """
    def f(v):
        match v:
            case 0 | 1:
                raise ValueError("bit")
            case None:
                raise ValueError("none")
            case str() if len(v) > 3:
                raise ValueError("long")
            case [a, b]:
                raise ValueError("pair")
    """
    assert guards(tmp_path, code) == [
        "v == 0 or v == 1",
        "v != 0 and v != 1 and v is None",
        "v != 0 and v != 1 and v is not None and isinstance(v, str) and len(v) > 3",
        "v != 0 and v != 1 and v is not None and not (isinstance(v, str) and len(v) > 3) and <match_pattern: [a, b]>",
    ]


def test_unknown_calls_and_constants_are_listed(tmp_path) -> None:
    code = """
    import os
    ALLOWED = ("a", "b")

    def f(path, x):
        if not os.path.exists(path) and x not in ALLOWED:
            raise FileNotFoundError(path)
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "not os.path.exists(path) and x not in ALLOWED"
    assert card.statement.guard.inputs == ("path", "x")
    assert card.statement.guard.calls == ("os.path.exists(path)",)
    assert card.statement.guard.constants == (("ALLOWED", '("a", "b")'),)


def test_loop_and_try_exits_are_flagged_as_approximations(tmp_path) -> None:
    code = """
    def f(items, x):
        for item in items:
            if item:
                return
        try:
            if x:
                return
        except KeyError:
            pass
        raise ValueError("x")
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "True"
    assert card.statement.guard.approximations == ("loop_exit_ignored", "try_exit_ignored", "statements_on_the_way")


@pytest.mark.parametrize(("body", "expected"), [
    ("    raise ValueError('x')\n", ()),
    ('    """Doc."""\n    n = len(x)\n    raise ValueError(n)\n', ()),  # (a pure statement: evaluated on the way)
    ("    with x:\n        raise ValueError('x')\n", ("raised_in_with",)),  # (its manager may swallow it)
    ("    try:\n        raise ValueError('x')\n    except x.Error:\n        pass\n", ("raised_in_try",)),  # (a class not resolved)
    ("    x.close()\n    raise ValueError('x')\n", ("statements_on_the_way",)),  # (a call: it may fail first)
    ("    if x:\n        raise ValueError('x')\n", ()),  # (a test: not a raise any call reaches)
])
def test_what_keeps_a_raise_no_test_guards_from_every_call(tmp_path, body: str, expected: tuple[str, ...]) -> None:
    """A raise no test guards is reached by any call only where nothing before it or around it
    may fail, swallow or catch it: each such construct is an approximation (no verified trigger)."""
    [card] = extract_snippet(tmp_path, "def f(x):\n" + body)
    assert card.statement.guard.approximations == expected


def test_nested_function_and_module_level(tmp_path) -> None:
    code = """
    import sys
    if sys.version_info < (3, 8):
        raise RuntimeError("old")

    def outer(limit):
        def inner(n):
            if n > limit:
                raise ValueError(n)
        return inner
    """
    module_level, nested = extract_snippet(tmp_path, code)
    assert (module_level.at.function, module_level.statement.guard.code) == (None, "sys.version_info < (3, 8)")
    assert (nested.at.function, nested.statement.guard.code) == ("outer.<locals>.inner", "n > limit")
    assert nested.statement.guard.opaque == ("limit",)


def test_multiline_condition_is_rendered_on_one_line(tmp_path) -> None:
    code = """
    def f(a, b):
        if (a >  # the first bound
                b):
            raise ValueError("a")
    """
    assert guards(tmp_path, code) == ["a > b"]


def _chain(branches: int) -> str:
    """An if/elif chain whose every branch may raise, then a raise after it."""
    arms = "".join(
        f"    {'if' if i == 0 else 'elif'} name == 'n{i}':\n        if size > {i}:\n            raise ValueError('too big for n{i}')\n"
        for i in range(branches)
    )
    return f"def load(name, size):\n{arms}    if size < 0:\n        raise ValueError('negative')\n"


def test_fallthrough_of_an_if_elif_chain(tmp_path) -> None:
    assert guards(tmp_path, _chain(2))[-1] == (
        "(name == 'n0' and not (size > 0) or name != 'n0' and (name == 'n1' and not (size > 1) or name != 'n1'))"
        " and size < 0"
    )


def _nested_chains(outer: int, inner: int) -> str:
    """Chains inside chains with ``or`` tests, as in vLLM's benchmarks/datasets.py."""
    lines = ["def get(args):"]
    for i in range(outer):
        lines.append(f"    {'if' if i == 0 else 'elif'} args.name == 'o{i}':")
        for j in range(inner):
            lines.append(f"        {'if' if j == 0 else 'elif'} args.path == 'p{i}{j}' or args.hf == 'p{i}{j}':")
            lines.append(f"            if args.backend != 'b{j}':\n                raise ValueError('backend {i} {j}')")
            lines.append("            split = 'x'")
        lines.append(f"        else:\n            raise ValueError('unknown path {i}')")
    lines.append("    else:\n        raise ValueError('unknown name')")
    return "\n".join(lines) + "\n    if args.n < 0:\n        raise ValueError('negative')\n"


def test_nested_if_elif_chains_stay_polynomial(tmp_path) -> None:
    # Deciding whether a disjunction held an item and its negation used to build the
    # negation of every compound item, recursively: about 7x the work per extra branch
    # (7 by 7 branches took minutes). Now it finishes in well under a second.
    found = guards(tmp_path, _nested_chains(7, 7))
    assert len(found) == 7 * 7 + 7 + 1 + 1
    assert found[-1].startswith("(args.name == 'o0' and ((args.path == 'p00' or args.hf == 'p00') and args.backend == 'b0' or ")
    assert found[-1].endswith(" and args.n < 0")


def test_a_local_bound_again_is_one_name_per_value(tmp_path) -> None:
    # smtplib.sendmail: each reply rebinds `code`; the guard of the last raise reads two of them.
    code = """
    def send(self):
        code, resp = self.mail()
        if code != 250:
            raise TypeError("sender")
        code, resp = self.data()
        if code == 421:
            raise ValueError(f"data {code}")
    """
    [_, card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "code_0 == 250 and code == 421"
    assert card.statement.guard.opaque == ("code_0", "code")
    assert card.statement.guard.versions == (("code_0", "code", "earlier"),)
    assert [p.code for p in card.statement.guard.parts] == ["code_0 == 250", "code == 421"]
    assert card.solved.trigger.status == "internal" and card.solved.trigger.assumes == {"code": 421, "code_0": 250}


@pytest.mark.parametrize(
    ("body", "guard", "versions"),
    [
        # read once: the local's own name, whichever binding it is
        ("m = self.read()\nif m < 0:\n    raise ValueError('x')\nm = self.read()", "m < 0", ()),
        # a value read in a try body and after the try is one value
        ("try:\n    m = self.read()\n    self.check(m)\nexcept OSError:\n    return\nif m < 0:\n    raise ValueError('x')",
         "not __raises__(self.read(), (BaseException,)) and not __raises__(self.check(m), (BaseException,)) and m < 0", ()),
        # ``del`` binds nothing a later read could see; the next assignment does
        ("m = self.read()\nif m > 9:\n    return\ndel m\nm = self.read()\nif m < 0:\n    raise ValueError('x')",
         "not (m_0 > 9) and m < 0", (("m_0", "m"),)),
        # a loop's element, and the value it is rebound to
        ("for x in s.split():\n    if x == 'a':\n        return\n    x = x.strip()\n    if not x:\n        raise ValueError('x')",
         "x_0 != 'a' and not x_0.strip()", (("x_0", "x"),)),
        # one round of a loop: its test and the raise see the same binding
        ("m = self.read()\nwhile m:\n    if m == 'q':\n        raise ValueError('x')\n    m = self.read()", "m and m == 'q'", ()),
        # a binding in a branch that leaves (continue, return) reaches no later read
        ("m = self.read()\nfor x in s:\n    if m[x] == 'a':\n        m = self.read()\n        continue\n    if m[x + 1] == 'b':\n        raise ValueError('x')",
         "m[x] != 'a' and m[x + 1] == 'b'", ()),
        # shutil._fastcopy_sendfile: a try's ``else`` does not run before its handler
        ("m = self.read()\nwhile True:\n    try:\n        self.send(m)\n    except OSError:\n        if m == 0:\n            raise ValueError('x')\n"
         "        raise\n    else:\n        m += 1",
         "__raises__(self.send(m), (OSError,)) and m == 0", ()),
        # lib2to3's parser: a loop's ``else`` after a body whose rebinding always returns
        ("m = self.read()\narcs = self.arcs[m]\nfor x in arcs:\n    if x:\n        m = x\n        return\nelse:\n    if (0, m) in arcs:\n        raise ValueError('x')",
         "(0, m) in self.arcs[m]", ()),
    ],
)
def test_reads_of_a_local_name_the_binding_they_see(tmp_path, body: str, guard: str, versions: tuple) -> None:
    code = "def f(n, s='', k=''):\n" + textwrap.indent(body, "    ") + "\n"
    [card] = [c for c in extract_snippet(tmp_path, code) if c.exception.display == "ValueError"]
    assert (card.statement.guard.code, tuple(v[:2] for v in card.statement.guard.versions)) == (guard, versions)


def test_a_message_value_names_what_the_raise_sees(tmp_path) -> None:
    code = """
    import sys

    def f(self, name):
        module_name = self.which(name)
        module = sys.modules[module_name]
        if name in self.mapping:
            module_name = self.mapping[name]
        if self.broken:
            raise ValueError("cannot pickle %s" % (module,))

    def g(self):
        for fn in self.files():
            fn = fn.path if self.entry else fn
            raise ValueError("`%s` is a named pipe" % fn)
    """
    first, second = extract_snippet(tmp_path, code)
    # `module` is `sys.modules[module_name]` of a `module_name` rebound since: named as earlier
    assert [p.value for p in first.message.parts if hasattr(p, "expr")] == ["sys.modules[module_name_0]"]
    # `fn = fn.path if ... else fn`: the value of `fn` itself, in terms of the loop's `fn`; `self.entry`
    # as the loop reads it, after `self.files()`, which may have stored it (`self.entry_1`)
    assert [p.value for p in second.message.parts if hasattr(p, "expr")] == ["(fn.path if self.entry_1 else fn)"]


def test_the_card_names_the_earlier_values(tmp_path, capsys) -> None:
    code = """
    def send(self):
        code = self.mail()
        if code != 250:
            raise TypeError("sender")
        code = self.data()
        if code == 421:
            raise ValueError("data")
    """
    temp_tree(tmp_path / "tree", {"mod.py": code})
    assert run_cli(capsys, "extract", str(tmp_path / "tree"), "-o", str(tmp_path / "docs"), "-q").code == 0
    card = extract_snippet(tmp_path / "again", code)[1]
    page = (tmp_path / "docs" / "errors" / f"{card.id}.md").read_text(encoding="utf-8")
    assert "code_0 == 250 and code == 421" in page
    assert "`code_0` is a value `code` held earlier: `code` is bound again on the way to the raise.\n\n" in page


def test_a_rebound_parameter_keeps_its_name_for_the_argument(tmp_path, capsys) -> None:
    # uu.decode: `out_file` is the argument in the first test and a value the body chose in
    # the second; one name for both read `out_file is None and os.path.exists(out_file)`. The
    # join of the two branches keeps the argument where the body does not rebind it.
    code = """
    import os

    def decode(in_file, out_file=None):
        if out_file is None:
            out_file = in_file.name()
        if not out_file.startswith("/") and os.path.exists(out_file):
            raise ValueError("Cannot overwrite existing file: %s" % out_file)
    """
    temp_tree(tmp_path / "tree", {"mod.py": code})
    assert run_cli(capsys, "extract", str(tmp_path / "tree"), "-o", str(tmp_path / "docs"), "-q").code == 0
    [card] = extract_snippet(tmp_path / "again", code)
    joined = "(out_file_1 if out_file is None else out_file)"
    # (as a call's argument, without the parentheses an operand needs)
    assert card.statement.guard.code == f'not {joined}.startswith("/") and os.path.exists({joined[1:-1]})'
    assert card.statement.guard.versions == (("out_file_1", "out_file", "rebound"),)
    assert card.statement.guard.inputs == ("out_file",) and card.statement.guard.opaque == ("out_file_1",)
    # the message's `out_file` is the value at the raise, never the argument alone
    assert [p.value for p in card.message.parts if hasattr(p, "expr")] == [joined]
    # a path that reads no value the body chose: out_file given
    assert card.solved.trigger.status == "environment" and card.solved.trigger.inputs["out_file"] is not None
    page = (tmp_path / "docs" / "errors" / f"{card.id}.md").read_text(encoding="utf-8")
    assert "`out_file_1` is a value the parameter `out_file` is rebound to in the function (`out_file` itself is the argument)." in page


def test_a_trigger_message_reads_the_value_at_the_raise(tmp_path) -> None:
    # datetime._check_time_fields: `hour = _index(hour)`; the message shows the rebound value
    code = """
    def check(hour):
        hour = _index(hour)
        if not 0 <= hour <= 23:
            raise ValueError('hour must be in 0..23', hour)

    def size(s):
        n = len(s)
        if n > 3:
            raise ValueError('too long', n)
    """
    first, second = extract_snippet(tmp_path, code)
    assert first.solved.trigger.assumes == {"hour_1": -1} and first.solved.trigger.message == "('hour must be in 0..23', -1)"
    assert second.solved.trigger.inputs == {"s": [0, 0, 0, 0]} and second.solved.trigger.message == "('too long', 4)"


def test_a_try_else_runs_when_the_body_raised_nothing(tmp_path) -> None:
    # test_asyncio's _ensure_fd_no_transport: the raise in the `else` needs the lookup to succeed
    # (the guard was `True`: "unconditional", for a raise that cannot happen with an empty table)
    code = """
    def lookup(table, k):
        try:
            table[k]
        except KeyError:
            pass
        else:
            raise ValueError("present")
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "not __raises__(table[k], (BaseException,))"
    assert card.solved.trigger.status == "concrete" and card.solved.trigger.inputs["k"] in card.solved.trigger.inputs["table"]


def test_unpacking_a_parameter_reads_its_items(tmp_path) -> None:
    # `suffix, mode, type_ = details`: `mode` is `details[1]`, and the unpacking needs three items
    code = """
    def open_file(details):
        suffix, mode, type_ = details
        if mode not in ("r", "w"):
            raise ValueError(f"bad mode {mode!r}")
    """
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == 'len(details) == 3 and details[1] not in ("r", "w")'
    assert card.solved.trigger.status == "concrete" and len(card.solved.trigger.inputs["details"]) == 3


def test_a_raise_its_own_function_catches_is_not_claimed(tmp_path) -> None:
    code = """
    def swallowed(x):
        try:
            if x < 0:
                raise ValueError("negative")
            return 1
        except ValueError:
            return 0

    def escapes(x):
        try:
            if x < 0:
                raise ValueError("negative")
        except KeyError:
            return 0

    def cleans_up(x):
        try:
            if x < 0:
                raise ValueError("negative")
        except:
            print("cleanup")
            raise

    def rebound(x):
        try:
            try:
                1 / x
            except ZeroDivisionError as e:
                raise e
        except ZeroDivisionError:
            return 0
    """
    cards = extract_snippet(tmp_path, code)
    swallowed, escapes, cleans_up = [c for c in cards if c.message.template == "negative"]
    assert [x.kind for x in cards[-1].statement.guard.context if x.kind == "caught"] == ["caught"]  # ``raise e`` is the handler's ZeroDivisionError
    assert cleans_up.statement.guard.context == () and cleans_up.solved.trigger.verified  # the handler lets it through
    assert [(c.kind, c.code) for c in swallowed.statement.guard.context] == [("caught", "except ValueError")]
    assert "caught_in_function" in swallowed.statement.guard.approximations
    assert not swallowed.solved.trigger.verified and swallowed.solved.example is None
    assert escapes.statement.guard.context == () and escapes.solved.trigger.verified


def test_a_fresh_object_is_not_followed_where_another_name_may_change_it(tmp_path) -> None:
    code = "def f(s):\n    xs = sorted(s)\n    ys = xs\n    ys.append(0)\n    if not xs:\n        raise ValueError('x')\n"
    [card] = extract_snippet(tmp_path, code)
    assert card.statement.guard.code == "not xs" and card.statement.guard.opaque == ("xs",)


def test_a_return_that_calls_the_function_again_is_no_way_out(tmp_path) -> None:
    # test_tomllib's normalize: ``obj=[0]`` takes the list branch, whose ``normalize(0)`` raises again
    code = (
        "def normalize(obj):\n"
        "    if isinstance(obj, list):\n"
        "        return [normalize(item) for item in obj]\n"
        "    if obj is None:\n"
        "        return obj\n"
        "    raise AssertionError('lists only')\n"
    )
    [card] = extract_snippet(tmp_path, code)
    assert [p.role for p in card.statement.guard.parts] == ["exit", "leave"]
    assert [f.inputs for f in card.solved.fixes] == [{"obj": None}]


@pytest.mark.parametrize(
    "binding, test, booleans, assumed",
    [
        # vLLM's triton tensor: ``transpose = self.data.stride()[-1] != 1`` is True or False, never 0
        ("t = x.stride() != 1", "t", ("t",), True),
        ("t = not x.y() and x.z() in (1, 2)", "not t", ("t",), False),
        ("t: bool = isinstance(x.y(), int)", "t", ("t",), True),
        # a call's result may be anything; a parameter named ``isinstance`` is no builtin
        ("t = x.stride()", "t", (), 1),
        ("t = isinstance(x.y(), int)\n    isinstance = None", "t", (), 1),
    ],
)
def test_a_local_bound_to_a_comparison_is_a_bool(tmp_path, binding: str, test: str, booleans: tuple[str, ...], assumed: object) -> None:
    card = only(extract_snippet(tmp_path, f"def f(x):\n    {binding}\n    if {test}:\n        raise ValueError('a')\n"))
    assert (card.statement.guard.booleans, card.solved.trigger.status) == (booleans, "internal")
    assert card.solved.trigger.assumes == {"t": assumed} and type(card.solved.trigger.assumes["t"]) is type(assumed)


@pytest.mark.parametrize("test", ["1", "True", "'x'", "0x1"])
def test_a_literal_true_loop_test_is_no_part_of_the_guard(tmp_path, test: str) -> None:
    """getpass's ``while 1:`` read ``... and 1 and c == '\\003'``."""
    card = only(extract_snippet(tmp_path, f"def f(c):\n    while {test}:\n        if c == 'x':\n            raise ValueError('x')\n        return\n"))
    assert [p.code for p in card.statement.guard.parts] == ["c == 'x'"]


@pytest.mark.parametrize(("code", "read", "chains"), [
    ('getattr(args, "port", None) is not None and args.grpc', "args.port is not None and args.grpc", ["args.port"]),
    ('getattr(cfg.model, "size") > 2', "cfg.model.size > 2", ["cfg.model.size"]),
    ('getattr(other, "size", 0) > 2', 'getattr(other, "size", 0) > 2', []),  # (no input of the guard: assumed)
    ('getattr(args, name) is None', 'getattr(args, name) is None', []),  # (a computed name)
    ('getattr(args, "__dict__") is None', 'getattr(args, "__dict__") is None', []),  # (no plain attribute)
    ('getattr(f(args), "a", 1) > 0', 'getattr(f(args), "a", 1) > 0', []),  # (a call's result)
])
def test_an_attribute_read_by_a_literal_name_is_the_attribute(code: str, read: str, chains: list[str]) -> None:
    assert by_name(code, {"args", "cfg"}) == (read, chains)


def test_a_getattr_read_lists_the_attribute_among_the_inputs(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, textwrap.dedent('''
        def check(args) -> None:
            if getattr(args, "grpc_port", None) is not None and args.grpc:
                raise ValueError("--grpc and --grpc-port are mutually exclusive")
        ''')))
    guard = card.statement.guard
    assert guard.code == 'getattr(args, "grpc_port", None) is not None and args.grpc'  # (as written)
    assert set(guard.inputs) >= {"args.grpc", "args.grpc_port"}
    trigger = card.solved.trigger
    assert trigger.verified and trigger.inputs == {"args.grpc": 1, "args.grpc_port": 0}
