"""collect.uses: the type a function's own code evidently uses an unannotated parameter as."""

from __future__ import annotations

import ast
import textwrap

import pytest

from extractor.collect.uses import ModuleFunctions, evident_types


def uses(code: str) -> dict[str, str]:
    function = ast.parse(textwrap.dedent(code)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return evident_types(function)


@pytest.mark.parametrize(("code", "expected"), [
    ("def f(p):\n    return p.startswith('x')", {"p": "str"}),
    ("def f(p):\n    return p.encode()", {"p": "str"}),
    ("def f(p):\n    return p.decode()", {"p": "bytes"}),
    ("def f(p):\n    return p.strip(b' ') if p == b'' else p", {"p": "bytes"}),  # a str or bytes method, and a bytes literal
    ("def f(p):\n    p.append(1)", {"p": "list"}),
    ("def f(p):\n    return list(p.items())", {"p": "dict"}),
    ("def f(p):\n    return p == 'a'", {"p": "str"}),
    ("def f(p):\n    return p in ('a', 'b')", {"p": "str"}),
    ("def f(p):\n    return p in 'abc'", {"p": "str"}),
    ("def f(p):\n    return p[0] == '\"'", {"p": "str"}),
    ("def f(p):\n    return p[-1] == 'Z'", {"p": "str"}),
    ("def f(p):\n    return p[:2] == '0x'", {"p": "str"}),
    ("def f(p):\n    return p + '!'", {"p": "str"}),
    ("def f(p):\n    return p <= 0", {"p": "int"}),
    ("def f(p):\n    return p.split(':')", {"p": "str"}),
    ("def f(p):\n    return p.isascii()", {"p": "str"}),
    ("def f(p):\n    return p.replace(b'a', b'')", {"p": "bytes"}),
    ("def f(p):\n    return 0.5 < p", {"p": "float"}),
    ("def f(p):\n    return p > 0 or p < 0.5", {"p": "float"}),
    ("def f(p):\n    return p > 0 or p.startswith('x')", {}),
    ("def f(p):\n    import re\n    return re.match('a+', p)", {"p": "str"}),
    # a path, not the file descriptor an int is to os.path.exists (0 is stdin: it exists)
    ("def f(p):\n    import os\n    return os.path.exists(p)", {"p": "str"}),
])
def test_evidence(code: str, expected: dict[str, str]) -> None:
    assert uses(code) == expected


@pytest.mark.parametrize("code", [
    "def f(p):\n    return 'x' in p",  # a list of str holds 'x' too
    "def f(p):\n    return p[0] == '-h'",  # an argument of a list: argv
    "def f(p, text):\n    return p.split(text)",  # patterns split too (a text literal would say)
    "def f(p):\n    if isinstance(p, str):\n        return p.strip()\n    return p",  # typed by the code itself
    "def f(p):\n    p.append(1)\n    return p.strip()",  # two types
    "def f(p: int):\n    return p.strip()",  # annotated: the annotation says
    "def f(p):\n    def g(p):\n        return p.strip()\n    return g",  # another scope's p
    "def f(p):\n    p = str(p)\n    return p.strip()",  # the use is of the rebound value
])
def test_no_evidence(code: str) -> None:
    assert uses(code) == {}


def test_evidence_before_a_rebinding_counts() -> None:
    assert uses("def f(p):\n    if p.startswith('#'):\n        return None\n    p = int(p[1:])\n    return p + 1") == {"p": "str"}


@pytest.mark.parametrize(("code", "expected"), [
    # gettext's c2py passes plural to _tokenize, which gives it to re.finditer
    ("import re\ndef _tokenize(s):\n    return re.finditer('a', s)\ndef c2py(plural):\n    return list(_tokenize(plural))\n",
     {"plural": "str"}),
    ("def take(xs, n=0):\n    xs.append(n)\ndef f(p):\n    take(xs=p)\n", {"p": "list"}),
    # a name the module binds twice is not known to be that function; nor is one of another scope
    ("def g(s):\n    return s.strip()\ng = print\ndef f(p):\n    return g(p)\n", {}),
    ("def g(s):\n    return s.strip()\ndef f(p, g):\n    return g(p)\n", {}),
])
def test_evidence_passed_on_to_a_function_of_the_module(code: str, expected: dict[str, str]) -> None:
    module = ast.parse(code)
    function = next(n for n in module.body if isinstance(n, ast.FunctionDef) and n.name in ("c2py", "f"))
    assert evident_types(function, ModuleFunctions(module)) == expected
