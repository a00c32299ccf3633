"""CLI flags: argparse, click and typer declarations -> ``(destination, --flag)`` pairs.

A boolean flag's text carries how it is written after a space: ``store_true`` (``--x`` sets
True), ``store_false``, ``optional`` (``--x``/``--no-x``, argparse's BooleanOptionalAction).
A flag whose keywords come from a mapping (vLLM's ``add_argument("--x", **kwargs["x"])``,
the mapping built by ``get_kwargs(Config)``) carries ``kwargs``, or ``kwargs-optional`` where
the tree builds such mappings with ``["action"] = argparse.BooleanOptionalAction``
(``BOOLEAN_KWARGS``, resolved by link.commands.resolve_kwargs_flags).

A flag whose value is one JSON object of a record's fields (vLLM's ``--speculative-config
'{"method": "ngram"}'``) is known from the code in two ways, each a pseudo-destination:
``JSON_FLAG + dest`` where a statement sets that flag's keywords' type to parse JSON
(``kwargs["speculative_config"]["type"] = optional_type(json.loads)``), and ``JSON_KWARGS``
where the function that builds such mappings gives a field the type of a function parsing JSON
(``kwargs[name]["type"] = parse_dataclass`` whose body calls ``validate_json``): then a flag
whose keywords come from ``get_kwargs(Config)["x"]`` (``KWARGS_OF + dest`` -> ``Config.x``,
``kwargs_bindings``) takes the fields of the record class ``Config.x`` is annotated with.
"""

from __future__ import annotations

import ast

from .declarations import call_name, dotted_name
from .syntax import walk

# The pseudo-destination recording that the tree builds flag keywords with
# ``kwargs[name]["action"] = argparse.BooleanOptionalAction`` (for its boolean fields).
BOOLEAN_KWARGS = "**"
# The pseudo-destination recording that the tree's mapping builder gives a field a JSON-parsing type.
JSON_KWARGS = "**json"
JSON_FLAG = "**json:"  # + dest: that flag's keywords' type parses JSON
KWARGS_OF = "**of:"  # + dest -> "Class.field" (as written): the mapping its keywords come from
# + a dataclass as written -> the parser class as written: ``HfArgumentParser((A, B))`` makes
# one flag per field of each (``--field_name``; a bool field's ``--x`` sets True, ``--x False`` False)
DATACLASS_PARSER = "**fields:"
# + "function qualname:parameter" -> the flag: a click or typer command's option whose value the
# framework passes to the function's parameter as parsed (no conversion or check of its own
# but a builtin type's); the function's words after the command follow in PARAMS + qualname
PARAMS = "**param:"
# + dest -> the function as written that ``type=`` names in the flag's declaration; + a function's
# name -> the record class as written that it builds from the JSON text it is given (record_parser):
# argparse builds the record from the flag's value, so what building it checks fires at parsing
TYPE_OF = "**type:"
JSON_RECORD = "**record:"
_PLAIN_TYPES = ("int", "float", "str", "bool")
DATACLASS_PARSERS = ("HfArgumentParser",)
_JSON_CALLS = ("json.loads", "loads", "validate_json")


def _long_flags(args: list[ast.expr]) -> list[str]:
    return [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")]


def _named(call: ast.Call) -> list[str]:
    """The plain names among a declaration's positional strings (click's parameter name beside its flags)."""
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier()]


def _dest_of(flags: list[str], names: list[str], keywords: list[ast.keyword]) -> str:
    for kw in keywords:
        if kw.arg == "dest" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
            return kw.value.value
    if names:
        return names[0]
    return flags[0][2:].replace("-", "_")


def cli_flags(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``(destination, --flag)`` pairs an argparse, click or typer declaration makes."""
    calls: list[tuple[ast.Call, str | None, bool]]  # each declaring call, with the parameter it declares (typer) and if it is a bool
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and call_name(stmt.value) in ("add_argument", "add_option"):
        calls = [(stmt.value, None, False)]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        calls = _option_calls(stmt)
    else:
        return []
    found: list[tuple[str, str]] = []
    for call, param, is_bool in calls:
        flags, action = _written_flags(call, param, is_bool)
        if not flags:
            continue
        names = [param] if param else _named(call)
        dest = _dest_of(flags, names, call.keywords)
        action = action or _boolean_action(call.keywords)
        if action is None and any(kw.arg is None for kw in call.keywords):
            action = "kwargs"  # the keywords of a mapping: whether it is boolean is the field's
        found.extend((dest, f"{flag} {action}" if action else flag) for flag in flags[:1])
    return found


def _written_flags(call: ast.Call, param: str | None, is_bool: bool) -> tuple[list[str], str | None]:
    """The long flags a declaration writes, and how a boolean one is written where the flags
    say it: click's and typer's ``"--x/--no-x"`` (``optional``; another off name is left out,
    no flag), typer's flag from the parameter's name where none is given (``--dry-run`` for
    ``dry_run``; a bool parameter's is ``--x/--no-x``), a typer bool with its own on name only
    (``store_true``)."""
    flags = _long_flags(call.args)
    typer = param is not None and call_name(call) == "Option"
    if flags and "/" in flags[0]:
        on, _, off = (part.strip() for part in flags[0].partition("/"))
        return ([on], "optional") if off == "--no-" + on[2:] and on.startswith("--") else ([], None)
    if typer and not flags and not any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args):
        return ["--" + str(param).replace("_", "-")], "optional" if is_bool else None
    return flags, "store_true" if typer and is_bool and flags else None


def command_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str,
                       typer_apps: dict[str, int]) -> list[tuple[str, str]]:
    """``(PARAMS + "qualname:param", flag)`` for each option of a click or typer command function
    whose value reaches its parameter unchanged (no ``type=`` but a builtin, no callback; a typer
    parameter annotated with a builtin), and ``(PARAMS + qualname, words)``: the words that
    select the command after the console script ("" for ``@click.command()``; the command's
    name for ``@group.command()`` or a typer app's, unless it is the app's only command:
    ``typer_apps`` counts the commands of each ``typer.Typer()`` of the file, ``typer_commands``)."""
    words = _command_words(function, typer_apps)
    if words is None:
        return []
    params = {a.arg: a.annotation for a in (*function.args.args, *function.args.kwonlyargs)}
    found = [(PARAMS + qualname, words)]
    for call, param, _ in _option_calls(function):
        flags, action = _written_flags(call, param, param is not None and _plain(params.get(param)) == "bool")
        names = _named(call)
        dest = param or (_dest_of(flags, names, call.keywords) if flags else None)
        if not flags or dest not in params or any(kw.arg == "callback" for kw in call.keywords):
            continue
        action = action or _boolean_action(call.keywords)
        # The type the framework converts the text to: typer's annotation, click's ``type=`` (a
        # click option without one gets the text, or its default's type: not followed)
        kind = _plain(params[dest]) if param is not None else next((dotted_name(k.value) for k in call.keywords if k.arg == "type"), None)
        if action is None and kind in ("int", "float", "str"):
            found.append((f"{PARAMS}{qualname}:{dest}", f"{flags[0]} {kind}"))
        elif action is not None and (param is None or kind == "bool"):
            found.append((f"{PARAMS}{qualname}:{dest}", f"{flags[0]} {action}"))
    return found


def _plain(annotation: ast.expr | None) -> str | None:
    """The builtin type an annotation names (through ``Annotated[...]``), or None."""
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple) and annotation.slice.elts:
        annotation = annotation.slice.elts[0]
    name = dotted_name(annotation) if annotation is not None else None
    return name if name in _PLAIN_TYPES else None


def _command_words(function: ast.FunctionDef | ast.AsyncFunctionDef, typer_apps: dict[str, int]) -> str | None:
    """The words after the console script that run ``function`` as a command (see
    command_parameters), or None where they are not known (a click name whose suffix click 8.2
    strips and earlier versions keep)."""
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or call_name(decorator) != "command":
            continue
        owner = dotted_name(decorator.func.value) if isinstance(decorator.func, ast.Attribute) else None
        if owner in (None, "click"):
            return ""
        named = [a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        named += [k.value.value for k in decorator.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)
                  and isinstance(k.value.value, str)]
        if named:
            return named[0]
        if owner in typer_apps:
            return "" if typer_apps[owner] == 1 else function.name.replace("_", "-")  # (typer runs an app's only command by itself)
        if function.name.endswith(("_command", "_cmd", "_group", "_grp")):
            return None
        return function.name.lower().replace("_", "-")
    return None


def typer_commands(tree: ast.Module) -> dict[str, int]:
    """Each ``typer.Typer()`` of the module (its name) -> how many ``@name.command()`` the module
    decorates; an app with a ``@name.callback()`` counts as many (its commands take their names)."""
    apps = {t.id: 0 for s in tree.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call)
            and call_name(s.value) == "Typer" for t in s.targets if isinstance(t, ast.Name)}
    for node in walk(tree):
        for decorator in getattr(node, "decorator_list", ()) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ():
            if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and (app := dotted_name(
                    decorator.func.value)) in apps:
                apps[app] += 1 if decorator.func.attr == "command" else 2 if decorator.func.attr == "callback" else 0
    return apps


def _option_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.Call, str | None, bool]]:
    """click's ``@option(...)`` decorators, and typer's ``Option(...)`` calls in the parameters'
    defaults and ``Annotated`` annotations (each with its parameter, and whether it is annotated ``bool``)."""
    calls: list[tuple[ast.Call, str | None, bool]] = [(d, None, False) for d in function.decorator_list if isinstance(d,
        ast.Call) and call_name(d) == "option"]
    params = function.args.args + function.args.kwonlyargs
    defaults: list[ast.expr | None] = [None] * (len(function.args.args) - len(function.args.defaults))
    defaults += [*function.args.defaults, *function.args.kw_defaults]
    for param, default in zip(params, defaults):
        annotated = getattr(param.annotation, "slice", None)
        hint = annotated.elts[0] if isinstance(annotated, ast.Tuple) and annotated.elts else param.annotation
        is_bool = isinstance(hint, ast.Name) and hint.id == "bool"
        for node in (default, annotated):
            for call in walk(node) if node is not None else ():
                if isinstance(call, ast.Call) and call_name(call) == "Option":
                    calls.append((call, param.arg, is_bool))
    return calls


def statement_flags(stmt: ast.stmt) -> list[tuple[str, str]]:
    """What one statement declares: its flags (``cli_flags``), and the pseudo-destinations of an
    assignment (``boolean_kwargs``) or of a function's mappings (``kwargs_bindings``)."""
    if isinstance(stmt, ast.Assign):
        return [*boolean_kwargs(stmt), *dataclass_parsers(stmt.value)]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [*cli_flags(stmt), *kwargs_bindings(stmt), *record_parser(stmt)]
    if isinstance(stmt, ast.For):
        return loop_flags(stmt)
    return [*cli_flags(stmt), *(dataclass_parsers(stmt.value) if isinstance(stmt, ast.Expr) else ()), *flag_type(stmt)]


def flag_type(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``(TYPE_OF + dest, "parse_cache")`` for ``add_argument("--cache", type=parse_cache)``: a
    function named as the type (linking reads whether it builds a record, record_parser)."""
    call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
    if call is None or call_name(call) != "add_argument" or not (flags := _long_flags(call.args)):
        return []
    names = _named(call)
    written = next((dotted_name(kw.value) for kw in call.keywords if kw.arg == "type"), None)
    return [(TYPE_OF + _dest_of(flags, names, call.keywords), written)] if written else []


def record_parser(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    """``(JSON_RECORD + name, "Config")`` for a function of one parameter that builds one record
    class from its JSON text: ``TypeAdapter(Config).validate_json(value)``,
    ``Config.model_validate_json(value)`` or ``Config(**json.loads(value))`` (the class as
    written; linking resolves it)."""
    if len(function.args.args) != 1:
        return []
    value = function.args.args[0].arg
    built = {cls for node in walk(function) if isinstance(node, ast.Call) and (cls := _built_from_json(node, value))}
    return [(JSON_RECORD + function.name, built.pop())] if len(built) == 1 else []


def _built_from_json(call: ast.Call, value: str) -> str | None:
    """The class as written that ``call`` builds from the JSON text in the name ``value``."""
    func = call.func
    unpacked = call.keywords[0].value if len(call.keywords) == 1 and call.keywords[0].arg is None and not call.args else None
    if isinstance(unpacked, ast.Call) and dotted_name(unpacked.func) in ("json.loads", "loads") and _passes_only(unpacked, value):
        return dotted_name(func)  # ``Config(**json.loads(value))``
    if not isinstance(func, ast.Attribute) or not _passes_only(call, value):
        return None
    if func.attr == "model_validate_json":
        return dotted_name(func.value)
    adapter = func.value
    if func.attr == "validate_json" and isinstance(adapter, ast.Call) and call_name(adapter) == "TypeAdapter" and len(adapter.args) == 1:
        return dotted_name(adapter.args[0])
    return None


def _passes_only(call: ast.Call, name: str) -> bool:
    """Whether ``call``'s one argument is the name ``name``."""
    return len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Name) and call.args[0].id == name


def loop_flags(loop: ast.For) -> list[tuple[str, str]]:
    """The flags a loop over a literal list of strings declares with computed names:
    ``for name in ("alpha", "beta"): parser.add_argument(f"--{name}-size", type=int)`` declares
    ``--alpha-size`` and ``--beta-size`` (each statement of the body that declares one, with the
    loop's name put into its f-strings; any other name in them: none)."""
    if not isinstance(loop.target, ast.Name) or not isinstance(loop.iter, (ast.List, ast.Tuple)) or loop.orelse:
        return []
    items = [e.value for e in loop.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(items) != len(loop.iter.elts):
        return []
    found: list[tuple[str, str]] = []
    for stmt in loop.body:
        call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        if call is None or call_name(call) not in ("add_argument", "add_option"):
            continue
        for item in items:
            filled = [_filled(a, loop.target.id, item) for a in call.args]
            args = [a for a in filled if a is not None]
            if len(args) == len(filled):
                found.extend(cli_flags(ast.Expr(value=ast.Call(func=call.func, args=args, keywords=call.keywords))))
    return found


def _filled(node: ast.expr, name: str, value: str) -> ast.expr | None:
    """``node`` with the loop variable ``name`` as ``value`` where it is an f-string over it alone
    (a constant stays as it is); None for anything else."""
    if not isinstance(node, ast.JoinedStr):
        return node if isinstance(node, ast.Constant) else None
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(part.value)
        elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) and part.value.id == name \
                and part.conversion == -1 and part.format_spec is None:
            parts.append(value)
        else:
            return None
    return ast.Constant(value="".join(parts))


def dataclass_parsers(value: ast.expr) -> list[tuple[str, str]]:
    """``(DATACLASS_PARSER + "A", "HfArgumentParser")`` for each dataclass of a parser that makes
    its flags from dataclass fields: ``HfArgumentParser((A, B))``, ``HfArgumentParser(A)``
    (as written; linking resolves both, link.commands.command_records)."""
    if not isinstance(value, ast.Call) or call_name(value) not in DATACLASS_PARSERS or not value.args:
        return []
    parser = dotted_name(value.func)
    first = value.args[0]
    classes = first.elts if isinstance(first, (ast.Tuple, ast.List)) else [first]
    written = [dotted_name(c) for c in classes]
    return [(DATACLASS_PARSER + name, parser) for name in written if name] if parser else []


def boolean_kwargs(stmt: ast.stmt) -> list[tuple[str, str]]:
    """``[(BOOLEAN_KWARGS, "optional")]`` for ``kwargs[name]["action"] = argparse.BooleanOptionalAction``;
    ``[(JSON_FLAG + dest, "json")]`` for ``kwargs["dest"]["type"] = ...json.loads...``."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return []
    target = stmt.targets[0]
    if _keyword_key(target) == "type" and isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) \
            and isinstance(target.value.slice, ast.Constant) and isinstance(target.value.slice.value, str) \
            and any(dotted_name(n) in _JSON_CALLS for n in walk(stmt.value) if isinstance(n, ast.expr)):
        return [(JSON_FLAG + target.value.slice.value, "json")]
    if not (dotted_name(stmt.value) or "").endswith("BooleanOptionalAction"):
        return []
    return [(BOOLEAN_KWARGS, "optional")] if _keyword_key(target) == "action" else []


def _keyword_key(target: ast.expr) -> str | None:
    """``"action"`` for the target ``kwargs[...]["action"]``."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return target.slice.value
    return None


def kwargs_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, str]]:
    """What a function that declares flags from mappings shows of them: ``(KWARGS_OF + dest,
    "Config.x")`` for ``add_argument("--x", **m["x"])`` with ``m = get_kwargs(Config)`` bound in
    the function (one class argument, no other binding of ``m``); and ``(JSON_KWARGS, "json")``
    where it sets ``kwargs[name]["type"]`` to a function of its own that parses JSON."""
    bound: dict[str, str | None] = {}
    parsing: set[str] = set()
    for node in walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            call = node.value
            cls = dotted_name(call.args[0]) if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords else None
            name = node.targets[0].id
            bound[name] = cls if name not in bound else None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function and _parses_json(node):
            parsing.add(node.name)
    found: list[tuple[str, str]] = []
    for node in walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and _keyword_key(node.targets[0]) == "type" \
                and isinstance(node.value, ast.Name) and node.value.id in parsing:
            found.append((JSON_KWARGS, "json"))
        if isinstance(node, ast.Call) and call_name(node) in ("add_argument", "add_option") and (flags := _long_flags(node.args)):
            found.extend((KWARGS_OF + _dest_of(flags, [], node.keywords), binding) for kw in node.keywords
                         if kw.arg is None and (binding := _mapping_item(kw.value, bound)) is not None)
    return list(dict.fromkeys(found))


def _parses_json(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function calls ``json.loads`` or a ``validate_json`` method."""
    return any(isinstance(n, ast.Call) and (dotted_name(n.func) in _JSON_CALLS or (isinstance(n.func, ast.Attribute)
               and n.func.attr == "validate_json")) for n in walk(function))


def _mapping_item(value: ast.expr, bound: dict[str, str | None]) -> str | None:
    """``"Config.x"`` for ``m["x"]`` where ``m`` is bound to ``get_kwargs(Config)``."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and (cls := bound.get(value.value.id)) \
            and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
        return f"{cls}.{value.slice.value}"
    return None


def _boolean_action(keywords: list[ast.keyword]) -> str | None:
    """How a boolean flag is written: ``store_true`` (``--x`` sets True), ``store_false``, or
    ``optional`` (``--x``/``--no-x``, argparse's BooleanOptionalAction); None for a flag that
    takes a value. The flag's text then carries it after a space (flags hold no spaces)."""
    for kw in keywords:
        value = kw.value
        if kw.arg == "action" and isinstance(value, ast.Constant) and value.value in ("store_true", "store_false"):
            return value.value
        if kw.arg == "action" and (dotted_name(value) or "").endswith("BooleanOptionalAction"):
            return "optional"
        if kw.arg == "is_flag" and isinstance(value, ast.Constant) and value.value is True:
            return "store_true"  # click
    return None


# Every CLI flag declaration (flags.cli_flags, flags.boolean_kwargs) calls one of these by name.
_FLAG_CALL_NAMES = ("add_argument", "add_option", "option", "Option", *DATACLASS_PARSERS)


def may_declare_flags(text: str) -> bool:
    """False only when no statement of ``text`` can declare a CLI flag: none of the call
    names appears (non-ASCII source may spell a name in other characters, NFKC)."""
    if not text.isascii():
        return True
    # str.find scans fast; the regex tries its word boundary at every position.
    for name in _FLAG_CALL_NAMES:
        start = text.find(name)
        while start >= 0:
            end = start + len(name)
            if (start == 0 or not _is_word(text[start - 1])) and (end == len(text) or not _is_word(text[end])):
                return True
            start = text.find(name, start + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"
