"""CLI flags come from the configured command's own parser: the subcommand's ``add_parser``
and every function it hands the parser to (vLLM's pattern), not from every parser of the tree;
and a flag is written only where the command's code hands its value on to the raise
(collect.routes): a record it builds unconditionally, passing the field straight through."""

from __future__ import annotations

import ast

import pytest

from extractor import extract
from extractor.collect.flags import flag_type, record_parser
from extractor.options import Options

from .helpers import temp_tree

TREE = {
    "app/__init__.py": "",
    "app/config.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass CacheConfig:\n"
        "    block_size: int = 16\n"
        "    num_runs: int = 1\n"
        "    debug: bool = False\n\n"
        "    def __post_init__(self):\n"
        "        if self.block_size < 1:\n"
        "            raise ValueError('block_size must be >= 1')\n"
        "        if self.num_runs < 1:\n"
        "            raise ValueError('num_runs must be >= 1')\n"
        "        if self.debug and self.block_size > 16:\n"
        "            raise ValueError('debug needs block_size <= 16')\n"
    ),
    "app/args.py": (
        "from app.config import CacheConfig\n\n\n"
        "class EngineArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        parser.add_argument('--block-size', type=int, default=16)\n"
        "        parser.add_argument('--debug', action='store_true')\n"
        "        return parser\n\n"
        "    def create_config(self):\n"
        "        return CacheConfig(block_size=self.block_size, debug=self.debug)\n\n\n"
        "def make_arg_parser(parser):\n"
        "    parser.add_argument('model')\n"
        "    return EngineArgs.add_cli_args(parser)\n"
    ),
    "app/cli.py": (
        "import argparse\n\nfrom app.args import make_arg_parser\n\n\n"
        "class Serve:\n"
        "    name = 'serve'\n\n"
        "    def subparser_init(self, subparsers):\n"
        "        serve_parser = subparsers.add_parser(self.name)\n"
        "        return make_arg_parser(serve_parser)\n"
    ),
    # Another parser of the tree: its --num-runs is not a flag of "app serve".
    "app/bench.py": (
        "import argparse\n\n\n"
        "def bench_parser():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--num-runs', type=int, default=1)\n"
        "    return parser\n"
    ),
}


def test_flags_are_those_of_the_commands_own_parser(tmp_path) -> None:
    root = temp_tree(tmp_path, TREE)
    cards = {c.message.template: c for c in extract(str(root), Options(command="app serve model", use_cache=False)).errors}
    block, runs = cards["block_size must be >= 1"], cards["num_runs must be >= 1"]
    # --block-size is declared by EngineArgs.add_cli_args, reached from the serve subcommand.
    assert block.solved.example is not None and block.solved.example.style == "cli"
    assert block.solved.example.before == "app serve model --block-size 0"
    # --num-runs belongs to the benchmark's parser: no CLI example names it.
    assert runs.solved.trigger.verified and (runs.solved.example is None or runs.solved.example.style == "python")


def test_boolean_flags_are_written_in_their_action_form(tmp_path) -> None:
    root = temp_tree(tmp_path, TREE)
    cards = {c.message.template: c for c in extract(str(root), Options(command="app serve model", use_cache=False)).errors}
    debug = cards["debug needs block_size <= 16"]
    assert debug.solved.example is not None and debug.solved.example.style == "cli"
    # store_true: True is the flag itself, never "--debug 1"; False is the flag left out.
    assert debug.solved.example.before == "app serve model --block-size 17 --debug"
    assert debug.solved.example.after == "app serve model --block-size 17"


def test_flags_built_from_a_kwargs_mapping_take_the_trees_boolean_form(tmp_path) -> None:
    # vLLM: add_argument("--x", **kwargs["x"]) with kwargs from get_kwargs(Config), which sets
    # BooleanOptionalAction for boolean fields: --x / --no-x for a bool, a value otherwise.
    tree = dict(TREE)
    tree["app/args.py"] = (
        "import argparse\n\nfrom app.config import CacheConfig\n\n\n"
        "def get_kwargs(cls):\n"
        "    kwargs = {}\n"
        "    for name, kind in cls.__annotations__.items():\n"
        "        kwargs[name] = {}\n"
        "        if kind == 'bool':\n"
        "            kwargs[name]['action'] = argparse.BooleanOptionalAction\n"
        "    return kwargs\n\n\n"
        "class EngineArgs:\n"
        "    @staticmethod\n"
        "    def add_cli_args(parser):\n"
        "        cache_kwargs = get_kwargs(CacheConfig)\n"
        "        parser.add_argument('--block-size', **cache_kwargs['block_size'])\n"
        "        parser.add_argument('--debug', **cache_kwargs['debug'])\n"
        "        return parser\n\n"
        "    def create_config(self):\n"
        "        return CacheConfig(block_size=self.block_size, debug=self.debug)\n\n\n"
        "def make_arg_parser(parser):\n"
        "    parser.add_argument('model')\n"
        "    return EngineArgs.add_cli_args(parser)\n"
    )
    root = temp_tree(tmp_path, tree)
    cards = {c.message.template: c for c in extract(str(root), Options(command="app serve model", use_cache=False)).errors}
    debug = cards["debug needs block_size <= 16"]
    assert debug.solved.example is not None and debug.solved.example.style == "cli"
    assert debug.solved.example.before == "app serve model --block-size 17 --debug"
    assert debug.solved.example.after == "app serve model --block-size 17 --no-debug"


def _cards(tmp_path, tree: dict[str, str]) -> dict[str, object]:
    root = temp_tree(tmp_path, tree)
    return {c.message.template: c for c in extract(str(root), Options(command="app serve model", use_cache=False)).errors}


def _with_create_config(body: str) -> dict[str, str]:
    tree = dict(TREE)
    tree["app/args.py"] = TREE["app/args.py"].replace(
        "        return CacheConfig(block_size=self.block_size, debug=self.debug)\n", body)
    return tree


def test_a_record_the_command_builds_only_under_a_test_gets_no_cli_example(tmp_path) -> None:
    # vLLM builds LoRAConfig only under ``if self.enable_lora``: --max-cpu-loras alone reaches nothing.
    block = _cards(tmp_path, _with_create_config(
        "        return CacheConfig(block_size=self.block_size) if self.debug else None\n"))["block_size must be >= 1"]
    assert block.solved.trigger.verified and block.solved.example is not None and block.solved.example.style == "python"


def test_a_field_the_command_rewrites_or_transforms_gets_no_cli_example(tmp_path) -> None:
    # vLLM passes max_cpu_loras only when positive, and rewrites data_parallel_hybrid_lb first.
    for body in (
        "        return CacheConfig(block_size=self.block_size or 16)\n",
        "        self.block_size = max(self.block_size, 1)\n        return CacheConfig(block_size=self.block_size)\n",
    ):
        block = _cards(tmp_path, _with_create_config(body))["block_size must be >= 1"]
        assert block.solved.example is not None and block.solved.example.style == "python", body


def test_parsed_arguments_passed_on_under_a_test_get_no_cli_example(tmp_path) -> None:
    # vLLM's run_headless(args) runs only under ``elif args.api_server_count < 1``: its
    # ``api_server_count > 1`` cannot come from the command line.
    tree = dict(TREE)
    tree["app/cli.py"] = TREE["app/cli.py"] + (
        "\n"
        "    def cmd(self, args: argparse.Namespace):\n"
        "        run_checked(args)\n"
        "        if args.block_size < 1:\n"
        "            run_headless(args)\n\n\n"
        "def run_headless(args):\n"
        "    if args.block_size > 64:\n"
        "        raise ValueError('block_size is capped in headless mode')\n\n\n"
        "def run_checked(args):\n"
        "    if args.block_size > 32:\n"
        "        raise ValueError('block_size is capped when checked')\n"
    )
    cards = _cards(tmp_path, tree)
    checked, headless = cards["block_size is capped when checked"], cards["block_size is capped in headless mode"]
    assert checked.solved.example is not None and checked.solved.example.before == "app serve model --block-size 33"
    assert headless.solved.trigger.verified and (headless.solved.example is None or headless.solved.example.style == "python")


def test_call_routes_are_the_calls_every_run_of_the_body_makes() -> None:
    import ast

    from extractor.collect.routes import call_routes

    tree = ast.parse(
        "def build(self, args, other):\n"
        "    self.rate = 2\n"
        "    with lock():\n"
        "        A(size=self.size, rate=self.rate, kind=self.other_kind, sub=B(n=self.n))\n"
        "    try:\n"
        "        C(size=args.size)\n"
        "    except ValueError:\n"
        "        D(size=self.size)\n"
        "    flag and E(size=self.size)\n"
        "    F(size=self.size) if flag else None\n"
        "    [G(size=self.size) for _ in ()]\n"
        "    for _ in ():\n"
        "        H(size=self.size)\n"
        "    args.mode = 'x'\n"
        "    run(args)\n"
        "    run(other)\n"
    )
    assert call_routes(tree) == (
        ("A", ("size", "sub"), None),  # rate is assigned first; kind is another attribute's value
        ("B", ("n",), None),
        ("C", ("size",), None),
        ("run", (), ("mode",)),  # the parsed arguments, with what the function assigns on them
    )


def test_call_checks_are_the_tests_whose_branch_leaves_the_command() -> None:
    import ast

    from extractor.collect.routes import call_checks

    tree = ast.parse(
        "def main(args, parser, ctx):\n"
        "    if args.size < 0:\n"
        "        raise SystemExit('size')\n"  # line 3
        "    if args.rate > args.limit:\n"
        "        parser.error('rate')\n"  # line 5
        "    if not self.name:\n"
        "        ctx.fail('name')\n"  # line 7
        "    assert args.depth >= 1\n"  # line 8
        "    if args.mode == 'x':\n"
        "        logger.error('mode')\n"  # the command goes on: no check
        "    if args.kind:\n"
        "        print('kind')\n"
    )
    assert call_checks(tree) == (
        ("depth", 8, "not depth >= 1"),
        ("limit", 5, "rate > limit"),
        ("name", 7, "not name"),
        ("rate", 5, "rate > limit"),
        ("size", 3, "size < 0"),
    )


def _declared(code: str) -> list[tuple[str, str]]:
    import ast

    from extractor.collect.flags import statement_flags

    return [pair for stmt in ast.parse(code).body for pair in statement_flags(stmt)]


def test_typer_options_without_names_take_the_parameters_name() -> None:
    code = (
        "import typer\nfrom typing import Annotated\n\n"
        "def serve(model: Annotated[str, typer.Argument()], dry_run: Annotated[bool, typer.Option(help='x')] = False,\n"
        "          port: int = typer.Option(8000), force: Annotated[bool, typer.Option('--force', '-f')] = False,\n"
        "          name: Annotated[str, typer.Option('--the-name')] = 'a'):\n"
        "    pass\n"
    )
    # a bool without names is --x/--no-x; with its own on name only, that flag sets True
    assert _declared(code) == [("dry_run", "--dry-run optional"), ("port", "--port"), ("force", "--force store_true"),
                               ("name", "--the-name")]


def test_click_on_off_flags_and_flags_declared_in_a_loop() -> None:
    code = (
        "import click\n\n"
        "@click.option('--shout/--no-shout', default=False)\n@click.option('--on/--off')\n@click.option('--count', type=int)\n"
        "def hello(shout, on, count):\n    pass\n\n"
        "for name in ('alpha', 'beta'):\n    parser.add_argument(f'--{name}-size', type=int)\n"
        "for name in names:\n    parser.add_argument(f'--{name}')\n"
    )
    # --on/--off has no --no-on form: left out rather than written wrong; a loop over a name
    # the file does not spell out declares nothing known
    assert _declared(code) == [("shout", "--shout optional"), ("count", "--count"), ("alpha_size", "--alpha-size"),
                               ("beta_size", "--beta-size")]


def test_flag_keywords_from_a_config_mapping_and_json_types_are_recorded() -> None:
    code = (
        "def add_cli_args(parser):\n"
        "    model_kwargs = get_kwargs(ModelConfig)\n"
        "    parser.add_argument('--max-len', **model_kwargs['max_len'])\n"
        "    spec_kwargs = {'spec': {}}\n"
        "    spec_kwargs['spec']['type'] = json.loads\n"
        "    parser.add_argument('--spec', **spec_kwargs['spec'])\n"
    )
    found = dict(_declared(code))
    assert found["**of:max_len"] == "ModelConfig.max_len"  # the flag's keywords are ModelConfig's field max_len's
    # (the statements inside the function, its add_argument calls and assignments, are read one
    # by one by collect.file)
    assert _declared("parser.add_argument('--max-len', **model_kwargs['max_len'])\n") == [("max_len", "--max-len kwargs")]
    assert _declared("spec_kwargs['spec']['type'] = optional_type(json.loads)\n") == [("**json:spec", "json")]


CLICK_TREE = {
    "pyproject.toml": '[project]\nname = "greeter"\n\n[project.scripts]\ngreeter = "greeter.cli:main"\n',
    "greeter/__init__.py": "",
    "greeter/cli.py": (
        "import click\n\n\n"
        "@click.group()\ndef main():\n    pass\n\n\n"
        "@main.command()\n"
        "@click.option('--count', type=int, default=1)\n"
        "@click.option('--shout/--no-shout', default=False)\n"
        "@click.option('--name', default='you')\n"
        "def greet(count: int, shout: bool, name: str):\n"
        "    if count < 1:\n"
        "        raise ValueError(f'count must be positive, got {count}')\n"
        "    if shout and count > 3:\n"
        "        raise ValueError('no shouting more than 3 times')\n"
        "    if name == 'nobody':\n"
        "        raise ValueError('greet somebody')\n"
        "    click.echo(f'hello {name}' * count)\n"
    ),
}


def test_a_click_commands_options_set_its_parameters_in_examples(tmp_path) -> None:
    from extractor.verify.runner import Settings, verify_card

    root = temp_tree(tmp_path, CLICK_TREE)
    catalog = extract(str(root), Options(command="greeter", use_cache=False))
    cards = {c.message.template: c for c in catalog.errors}
    count, shout = cards["count must be positive, got {count}"], cards["no shouting more than 3 times"]
    # the group's subcommand is the function's name; --shout/--no-shout written in its form
    assert count.solved.example is not None and count.solved.example.before == "greeter greet --count 0"
    assert shout.solved.example is not None and shout.solved.example.before == "greeter greet --count 4 --shout"
    # --name has no type=: click passes the text or converts it by its default, not followed
    assert cards["greet somebody"].solved.example is None or cards["greet somebody"].solved.example.style == "python"
    # and they run as the console script would (click's group, then greet), raising the card's error
    data = {c["message"]["template"]: c for c in extracted_data(root)}
    for template in ("count must be positive, got {count}", "no shouting more than 3 times"):
        result = verify_card(data[template], Settings(roots=(str(root),), timeout=20, jobs=1))
        assert result is not None and result["outcome"] == "confirmed" and result["fix"] in (None, "holds"), result


def extracted_data(root) -> list[dict]:
    from extractor.pipeline import extract_data

    return extract_data(str(root), Options(command="greeter", use_cache=False))["errors"]


@pytest.mark.parametrize(("source", "built"), [
    ("def p(v):\n    try:\n        return TypeAdapter(C).validate_json(v)\n    except E as e:\n        raise ArgumentTypeError(repr(e)) from e\n",
     [("**record:p", "C")]),
    ("def p(v):\n    return mod.C.model_validate_json(v)\n", [("**record:p", "mod.C")]),
    ("def p(v):\n    return C(**json.loads(v))\n", [("**record:p", "C")]),
    # not the parameter's text, not unpacked, or two records: no record the flag's value becomes
    ("def p(v):\n    return C(**json.loads(w))\n", []),
    ("def p(v):\n    return C(json.loads(v))\n", []),
    ("def p(v):\n    return A.model_validate_json(v) or B.model_validate_json(v)\n", []),
])
def test_a_type_function_that_builds_a_record_from_json(source: str, built: list) -> None:
    assert record_parser(ast.parse(source).body[0]) == built  # type: ignore[arg-type]


def test_a_flags_type_function_is_recorded_by_its_destination() -> None:
    stmt = ast.parse("parser.add_argument('--cache-config', type=parse_cache, default=None)").body[0]
    assert flag_type(stmt) == [("**type:cache_config", "parse_cache")]
    assert flag_type(ast.parse("parser.add_argument('--n', type=int)").body[0]) == [("**type:n", "int")]
