"""``collect.validators``: what a pydantic "before" validator's calls do to an example's keywords.

A call the tool does not read may refuse a value before pydantic's checks, so a construction it
runs on is not claimed; these tests pin what keeps such a call from running or makes it harmless,
read from the statements alone."""

from __future__ import annotations

import ast
import textwrap

import pytest

from extractor.collect.validators import passes_none, refuses_nothing, unread_validator


def _function(source: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


_BEFORE = "@model_validator(mode='before')\n@classmethod\ndef check(cls, data):\n"


@pytest.mark.parametrize(("body", "keyed"), [
    # the helper gets the key's value (linking asks whether it returns on None)
    ("    validate_salt(data.get('salt'))\n    return data\n", (("salt", "validate_salt"),)),
    # a call after an exit where the key is absent runs only where it is given
    ("    fmt = data.get('format')\n    if fmt is None:\n        return data\n    check(fmt['type'])\n    return data\n", (("format", ""),)),
    ("    if 'tools' not in data:\n        return data\n    check(data['tools'])\n    return data\n", (("tools", ""),)),
    ("    items = data.get('input')\n    if items is None or isinstance(items, str):\n        return data\n    parse(items)\n    return data\n",
     (("input", ""),)),
    ("    tools = data.get('tools')\n    if not isinstance(tools, list):\n        return data\n    check(tools)\n    return data\n",
     (("tools", ""),)),
    # the whole input to a helper (linking asks whether it refuses nothing)
    ("    return resolve_alias(data)\n", (("", "resolve_alias"),)),
    # a call before any such exit, or after an exit that None passes: kept by nothing
    ("    check(data['x'])\n    if data.get('x') is None:\n        return data\n    return data\n", ()),
    ("    tools = data.get('tools')\n    if not isinstance(tools, (list, type(None))):\n        return data\n    check(tools[0])\n"
     "    return data\n", ()),
    ("    check(data['x'])\n    return data\n", ()),
    # a call in the body of an ``if``, or in an ``and`` after a test, runs only where the key is given
    ("    params = data.get('kv_transfer_params')\n    if isinstance(params, dict) and params.get('ids') is not None"
     " and has_media(data.get('messages')):\n        params.pop('ids')\n    return data\n", (("kv_transfer_params", ""),)),
    ("    if 'tool_choice' in data:\n        resolve(data['tool_choice'])\n    return data\n", (("tool_choice", ""),)),
    # (a name bound again in the statement no longer holds the key's value)
    ("    params = data.get('a')\n    if data:\n        params = data\n        if params:\n            check(params['x'])\n    return data\n",
     ()),
    # (in the ``else``, it runs where the key is absent)
    ("    if data.get('tools') is not None:\n        pass\n    else:\n        check(data['x'])\n    return data\n", ()),
])
def test_how_a_validators_unread_calls_are_kept(body: str, keyed: tuple) -> None:
    found = unread_validator(_function(_BEFORE + body))
    assert found is not None and found.keyed == keyed


def test_a_validator_that_reads_only_or_runs_after_pydantic_calls_nothing_unread() -> None:
    assert unread_validator(_function(_BEFORE + "    if data.get('a') and not data.get('b'):\n        raise ValueError('x')\n"
                                                "    return data\n")) is None
    after = "@model_validator(mode='after')\ndef check(self):\n    validate(self.salt)\n    return self\n"
    assert unread_validator(_function(after)) is None


@pytest.mark.parametrize(("source", "expected"), [
    ("def f(salt):\n    if salt is None:\n        return\n    if not salt:\n        raise ValueError('x')\n", True),
    ("def f(salt):\n    '''Doc.'''\n    if not isinstance(salt, list):\n        return False\n    scan(salt)\n", True),
    ("def f(tag):\n    if tag is not None and not tag:\n        raise ValueError('x')\n", True),
    ("def f(salt):\n    if not isinstance(salt, str):\n        raise ValueError('x')\n", False),
    ("def f(salt):\n    if salt is None:\n        log(salt)\n    return salt\n", False),
    ("def f(salt):\n    if salt is None:\n        return compute()\n", False),
])
def test_a_helper_that_returns_at_once_on_none(source: str, expected: bool) -> None:
    assert passes_none(_function(source)) is expected


@pytest.mark.parametrize(("source", "expected"), [
    ("def f(data):\n    '''Map the legacy keyword.'''\n    if isinstance(data, dict) and data.get('old') is False and 'new' not in data:\n"
     "        data = {**data, 'new': 'none'}\n    return data\n", True),
    # a subscript may raise KeyError, ``in`` of another value a TypeError, a call anything
    ("def f(data):\n    return data['x']\n", False),
    ("def f(data):\n    value = data.get('x')\n    return 'a' in value\n", False),
    ("def f(data):\n    check(data)\n    return data\n", False),
    ("def f(data):\n    if data.get('x'):\n        raise ValueError('x')\n    return data\n", False),
    ("def f(data, other):\n    return data\n", False),
])
def test_a_helper_that_refuses_nothing_a_dict_holds(source: str, expected: bool) -> None:
    assert refuses_nothing(_function(source)) is expected


@pytest.mark.parametrize("body", [
    # the alias is rebound on the way, or the input itself is: the key no longer says what the call gets
    "    salt = data.get('salt')\n    if data.get('legacy'):\n        salt = data.get('legacy')\n    validate_salt(salt)\n    return data\n",
    "    data = normalize(data)\n    validate_salt(data.get('salt'))\n    return data\n",
])
def test_a_rebound_name_keeps_nothing(body: str) -> None:
    found = unread_validator(_function(_BEFORE + body))
    assert found is not None and found.keyed == ()
