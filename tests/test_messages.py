"""Message templates: every message form, asserted as the whole template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import extract_snippet, extracted, only

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
    # a message variable the raise adds to (vLLM's attention.py: ``error_msg + "..."``)
    ('msg = f"layer {x} "\n    raise ValueError(msg + "is not valid.")', "layer {x} is not valid.", ("x",)),
    ('head = "bad " + x\n    raise ValueError(head + y)', "bad {x}{y}", ("x", "y")),
    ('raise ValueError(x)', "{x}", ("x",)),
    # As str() renders each class's arguments (link.messages)
    ("raise ValueError", "", ()),
    ("raise ValueError()", "", ()),
    ("raise SyntaxError", "None", ()),  # (its own __str__: str(SyntaxError()) == "None")
    ("raise IndentationError()", "None", ()),
    ('raise OSError(2, "missing", x)', "[Errno 2] missing: {x!r}", ("x",)),
    ('raise FileNotFoundError(2, f"no {x}")', "[Errno 2] no {x}", ("x",)),
    ('raise ValueError("bad pair", x, 3)', "('bad pair', {x!r}, 3)", ("x",)),
    ("raise KeyError(x)", "{x!r}", ("x",)),
    ('raise KeyError(f"no {x}")', "'no {x}'", ("x",)),
    # an exception group's own __str__: its message and how many exceptions it holds
    ('raise ExceptionGroup(f"bad {x}", [ValueError(x), KeyError(y)])', "bad {x} (2 sub-exceptions)", ("x",)),
    ('raise ExceptionGroup("bad", (ValueError(x),))', "bad (1 sub-exception)", ()),
    # gettext returns its argument where no translation is installed
    ('raise ValueError(_("not defined"))', "not defined", ()),
    ('raise ValueError(_("bad: %s") % x)', "bad: {x!s}", ("x",)),
    ('raise ValueError(gettext.gettext("{} items").format(x))', "{x} items", ("x",)),
]


@pytest.mark.parametrize(("body", "template", "placeholders"), CASES)
def test_template(tmp_path, body: str, template: str, placeholders: tuple[str, ...]) -> None:
    code = "def f(x, y=None, a=1, b=2, c=3, d=4.0, mapping=None):\n    " + body + "\n"
    card = only(extract_snippet(tmp_path, code))
    assert card.message.template == template
    assert card.message.placeholders == placeholders
    assert card.message.reason is None


UNKNOWN = [
    ("raise UnknownError", "no_arguments", None),  # a class outside the tree may have a default message
    ("raise UnknownError(x, y)", "multiple_arguments", None),
    ('raise OSError(2, "missing", "it\'s")', "multiple_arguments", None),  # repr's quoting of a quote not followed
    ('raise ExceptionGroup("bad", x)', "multiple_arguments", None),  # (how many it holds, and so the plural, not known)
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
    assert str(card.message.reason) == reason  # (a code, or a code with its value: model.codes.Detailed)
    assert card.message.source == source


def test_fstring_debug_specifier_keeps_text_and_repr(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, 'def f(x):\n    raise ValueError(f"{x=}")\n'))
    assert card.message.template == "x={x!r}"


def test_message_with_unicode_and_escapes(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, 'def f(x):\n    raise ValueError(f"caf\\u00e9\\t{x}\\n")\n'))
    assert card.message.template == "café\t{x}\n"


CLASSES = """
class IllegalMonthError(ValueError):
    def __init__(self, month):
        self.month = month

    def __str__(self):
        return "bad month number %r; must be 1-12" % self.month


class TooBig(Exception):
    def __init__(self, name, size=3):
        msg = f"{name} too big: {size}"
        super().__init__(msg)


class Coded(TooBig):
    pass


class Pair(LookupError):
    def __str__(self):
        return f"pair {self.args[0]!r} / {self.args[1]}"


class Twice(Exception):
    def __init__(self, x):
        super().__init__(x, x)


class Opaque(Exception):
    def __init__(self, x):
        if x:
            super().__init__(x)


class Fmt(ValueError):
    def __str__(self):
        try:
            return self.args[0] % self.args[1:]
        except (TypeError, IndexError):
            return super().__str__()


class Base(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def __str__(self):
        return self.message


class Usage(Base):
    def __init__(self, message, ctx=None):
        super().__init__(message)
        self.ctx = ctx


class Zone(Base):
    def __init__(self, zone, message=None):
        if message is None:
            message = f"unknown zone {zone!r}"
        super().__init__(message)


class Pattern(Exception):
    def __init__(self, msg, pattern=None, pos=None):
        self.msg = msg
        if pattern is not None and pos is not None:
            msg = "%s at position %d" % (msg, pos)
        super().__init__(msg)


class Named(Exception):
    def __str__(self):
        return f"{type(self).__name__}: {self.args[0]}"


class Moved(Base):
    def __init__(self, message):
        super().__init__(message)
        if message:
            self.message = "moved"

"""
CLASS_CASES = [
    ("raise IllegalMonthError(x)", "bad month number {x!r}; must be 1-12"),
    ('raise TooBig("b", size=x)', "b too big: {x}"),
    ("raise Coded(x)", "{x} too big: 3"),
    ('raise Pair(x, "y")', "pair {x!r} / y"),
    ("raise Twice(x)", "({x!r}, {x!r})"),
    ("raise Opaque(x)", None),
    ('raise Fmt("bad %s", x)', "bad {x}"),
    ('raise Fmt("bad %r and %s", x, 3)', "bad {x!r} and 3"),
    ('raise Fmt("bad %s", x, x)', "('bad %s', {x!r}, {x!r})"),  # not all arguments converted: the base's text
    ("raise Fmt()", ""),  # no self.args[0]: the base's text
    ('raise Fmt("bad %d", x)', None),  # %d of a value that may not be a number: TypeError, not followed
    ('raise Usage(f"bad {x}", ctx=x)', "bad {x}"),  # through Base.__init__, to Base.__str__'s self.message
    ("raise Zone(x)", "unknown zone {x!r}"),
    ('raise Zone(x, "given")', "given"),
    ("raise Named(x)", "Named: {x}"),
    ('raise Pattern(f"bad {x}")', "bad {x}"),  # its test is false for these arguments: msg is the caller's
    ('raise Pattern("bad", x, 3)', None),  # x may be None or not
    ('raise Pattern("bad", None, 3)', "bad"),
    ('raise Moved("m")', None),  # its __init__ sets message again, under a test: not followed
    ("raise TooBig", None),  # its __init__ needs the name: no template over an argument not given
]


# Why a class case has no template: the class does what the tool does not follow, or this
# call's arguments do not settle the text.
REASONS = {
    "raise Opaque(x)": "built_by_class",  # super().__init__ under a test
    "raise TooBig": "class_message_unfilled",  # its __init__ needs the name
    'raise Fmt("bad %d", x)': "class_message_unfilled",
    'raise Pattern("bad", x, 3)': "class_message_unfilled",
    'raise Moved("m")': "built_by_class",
}


@pytest.mark.parametrize(("body", "template"), CLASS_CASES)
def test_a_class_in_the_tree_that_makes_its_message_gets_its_template_with_the_arguments(tmp_path, body: str, template: str | None) -> None:
    code = CLASSES + "def f(x):\n    if x != 7:\n        " + body + "\n"
    card = only([c for c in extract_snippet(tmp_path, code) if c.at.function == "f"])
    assert card.message.template == template
    if template is None:
        assert card.message.reason == REASONS[body]
        return
    # What the card says is what Python says: run the snippet (our own) with the trigger.
    namespace: dict = {}
    exec(compile(code, "mod.py", "exec"), namespace)  # noqa: S102 (a test's own snippet)
    with pytest.raises(Exception) as raised:
        namespace["f"](**card.solved.trigger.inputs)
    assert str(raised.value) == card.solved.trigger.message and card.solved.trigger.verified


def test_a_str_that_builds_on_the_base_text_keeps_it_as_the_start(tmp_path) -> None:
    code = '''
class ClientError(ValueError):
    def __init__(self, message, *, parameter=None):
        super().__init__(message)
        self.parameter = parameter

    def __str__(self):
        base = super().__str__()
        return f"{base} (parameter={self.parameter})" if self.parameter else base


def f(x):
    if x < 0:
        raise ClientError(f"x must be >= 0, got {x}", parameter="x")
'''
    card = only([c for c in extract_snippet(tmp_path, code) if c.at.function == "f"])
    assert card.message.template == "x must be >= 0, got {x}" and card.message.form.startswith("class_base:")
    assert card.solved.trigger.verified and card.solved.trigger.message is None  # the text Python shows has more: not claimed


STDLIB_SAMPLE = ("json", "calendar.py", "argparse.py", "optparse.py", "configparser.py", "zipfile.py", "tarfile.py", "shutil.py",
                 "subprocess.py", "http/client.py", "fractions.py", "_pydecimal.py", "ipaddress.py", "_pydatetime.py", "base64.py",
                 "gettext.py", "string.py", "textwrap.py", "enum.py", "inspect.py", "functools.py", "pathlib.py")


def test_the_template_share_on_a_sample_of_the_standard_library(tmp_path, capsys) -> None:
    # README's figure for the whole stdlib is 76%; this sample of 22 modules (about 840
    # cards) was at 77% when written. A message idiom lost shows here.
    import shutil
    import sysconfig

    from .helpers import run_cli

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB_SAMPLE:
        source, target = stdlib / name, tmp_path / "lib" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "tests"))
        elif source.exists():
            shutil.copy(source, target)
    run = run_cli(capsys, "extract", str(tmp_path / "lib"), "--no-cache", "-q")
    cards = extracted(run.out)["errors"]
    share = sum(card["message"]["template"] is not None for card in cards) / len(cards)
    assert len(cards) > 700 and share >= 0.75, share
    months = [c for c in cards if c["exception"]["display"] == "IllegalMonthError"]
    assert months and all(c["message"]["template"] == "bad month number {month!r}; must be 1-12" for c in months)


def test_a_message_too_deep_to_write_back_as_code_keeps_its_template(tmp_path, capsys) -> None:
    # fixtures/broken/long_concat.py: a 2,500-term concatenation. Its arguments cannot be
    # written back as code (libcst's recursion), so the class's rendering is not applied;
    # the message still reads as written, and the trigger is still solved.
    from .helpers import FIXTURES, run_cli

    run = run_cli(capsys, "extract", str(FIXTURES / "broken" / "long_concat.py"), "--no-cache", "-q")
    (card,) = [c for c in extracted(run.out)["errors"] if c["line"] == 2509]
    assert card["message"]["template"].startswith("m0000 m0001 ") and card["trigger"]["status"] == "concrete"


def test_an_exception_class_bound_to_another_name_is_that_class(tmp_path) -> None:
    code = "error = OSError\nAlias = error\n\ndef f(x):\n    if x:\n        raise Alias(f'closed {x}')\n"
    card = only(extract_snippet(tmp_path, code))
    assert card.exception.classes == ("OSError",) and card.message.template == "closed {x}"
