"""Message templates: every message form, asserted as the whole template."""

from __future__ import annotations

import pytest

from .helpers import extract_snippet, only

CASES = [
    ('raise ValueError("plain")', "plain", ()),
    ('raise ValueError(f"x ({x!r:>5}) is bad")', "x ({x!r:>5}) is bad", ("x",)),
    ('raise ValueError(\n    f"a {x}"\n    " b"\n    f" {y.z}"\n)', "a {x} b {y.z}", ("x", "y.z")),
    ('raise ValueError(f"{{lit}} {x}")', "{{lit}} {x}", ("x",)),
    ('raise ValueError("use {name}")', "use {{name}}", ()),
    ('raise ValueError("{} and {}".format(x, y))', "{x} and {y}", ("x", "y")),
    ('raise ValueError("{1} {0} {1}".format(x, y))', "{y} {x} {y}", ("y", "x")),
    ('raise ValueError("{k!r:>3}".format(k=x))', "{x!r:>3}", ("x",)),
    ('raise ValueError("{0.a} {0[b]} {0[1]}".format(x))', "{x.a} {x['b']} {x[1]}", ("x.a", "x['b']", "x[1]")),
    ('raise ValueError("{x}".format(**locals()))', "{x}", ("x",)),
    ('raise ValueError("%s: %r, %d%%, %05.1f" % (a, b, c, d))', "{a!s}: {b!r}, {c:d}%, {d:05.1f}", ("a", "b", "c", "d")),
    ('raise ValueError("%-6s|%6s" % (a, b))', "{a!s:<6}|{b!s:>6}", ("a", "b")),
    ('raise ValueError("bad: %s" % x)', "bad: {x!s}", ("x",)),
    ('raise ValueError("%(n)s!" % {"n": x})', "{x!s}!", ("x",)),
    ('raise ValueError("%(n)s!" % mapping)', "{mapping['n']!s}!", ("mapping['n']",)),
    ('raise ValueError("got " + str(x) + " items")', "got {str(x)} items", ("str(x)",)),
    ('msg = f"bad {x}"\n    raise ValueError(msg)', "bad {x}", ("x",)),
    # a message variable assigned several times: the value that reaches the raise
    ('msg = "first"\n    msg = f"second {x}"\n    raise ValueError(msg)', "second {x}", ("x",)),
    ('msg = "bad value"\n    msg += ": " + str(x)\n    raise ValueError(msg)', "bad value: {str(x)}", ("str(x)",)),
    ('raise ValueError(x)', "{x}", ("x",)),
]


@pytest.mark.parametrize(("body", "template", "placeholders"), CASES)
def test_template(tmp_path, body: str, template: str, placeholders: tuple[str, ...]) -> None:
    code = "def f(x, y=None, a=1, b=2, c=3, d=4.0, mapping=None):\n    " + body + "\n"
    card = only(extract_snippet(tmp_path, code))
    assert card.message.template == template
    assert card.message.placeholders == placeholders
    assert card.message.reason is None


UNKNOWN = [
    ("raise ValueError", "no_arguments", None),
    ("raise ValueError()", "no_arguments", None),
    ('raise OSError(2, "missing", x)', "multiple_arguments", None),
    ("raise ValueError(build(x))", "opaque_call", "build(x)"),
    ('raise ValueError("a" if x else "b")', "opaque_if_exp", '"a" if x else "b"'),
    ('msg = "a"\n    if x:\n        msg = "b"\n    raise ValueError(msg)', "message_variable_branches", "msg"),
    ("raise ValueError(*x)", "star_arguments", None),
    ("raise ValueError(GLOBAL_MESSAGE)", "message_variable_unresolved", "GLOBAL_MESSAGE"),
    ('raise ValueError("%*d" % (x, y))', "percent_star_width", '"%*d" % (x, y)'),
]


@pytest.mark.parametrize(("body", "reason", "source"), UNKNOWN)
def test_unreconstructable_message_says_why(tmp_path, body: str, reason: str, source: str | None) -> None:
    card = only(extract_snippet(tmp_path, "def f(x, y=0):\n    " + body + "\n"))
    assert card.message.template is None
    assert card.message.parts is None
    assert card.message.reason == reason
    assert card.message.source == source


def test_fstring_debug_specifier_keeps_text_and_repr(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, 'def f(x):\n    raise ValueError(f"{x=}")\n'))
    assert card.message.template == "x={x!r}"


def test_message_with_unicode_and_escapes(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, 'def f(x):\n    raise ValueError(f"caf\\u00e9\\t{x}\\n")\n'))
    assert card.message.template == "café\t{x}\n"
