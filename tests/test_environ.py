"""The environment as guards read it (solve.environ) and modules that compute attributes on
reading them (collect.lazy)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from extractor.collect.lazy import lazy_attributes
from extractor.collect.optional import optional_names
from extractor.solve.environ import environ_candidates, environ_setup, with_environ_reads, with_lazy_reads

from .helpers import FIXTURES, extract_snippet, extracted, only, run_cli


def _expr(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


def test_getenv_reads_as_a_get_of_os_environ() -> None:
    tree, reads = with_environ_reads(_expr('int(os.getenv("LIMIT", "10")) < n'))
    assert reads and ast.unparse(tree) == "int(os.environ.get('LIMIT', '10')) < n"
    assert with_environ_reads(_expr("n < 10"))[1] is False


def test_environment_values_are_strings_or_unset() -> None:
    found = environ_candidates(_expr('os.environ.get("MODE", "1") not in ("0", "1") and "HOME" in os.environ and int(os.environ["N"]) > 3'))
    assert found[0] == {}
    assert all(isinstance(v, str) for env in found for v in env.values())
    assert {"MODE": "0"} in found and {"N": "4"} in found and {"HOME": "x"} in found


def test_setup_sets_what_the_trigger_assumes_and_unsets_the_rest() -> None:
    tree = _expr('os.environ.get("A") == "1" and "B" in os.environ')
    assert environ_setup(tree, {"A": "1"}) == "import os\nos.environ['A'] = '1'\nos.environ.pop('B', None)"
    assert environ_setup(_expr("os.environ.get(NAME) == '1'"), {}) is None  # a computed name cannot be unset


def test_a_lazy_attribute_reads_as_its_body_only_where_the_body_is_self_contained() -> None:
    lazy = {"envs.A": 'int(os.getenv("A", "3"))', "envs.B": 'helper("B")'}
    assert ast.unparse(with_lazy_reads(_expr("envs.A > n and envs.B"), lazy)) == "int(os.getenv('A', '3')) > n and envs.B"


def test_lazy_attributes_come_from_the_table_getattr_reads() -> None:
    tree = ast.parse(
        "import os\n"
        "if TYPE_CHECKING:\n    A: int = 1\n"
        "table = {'A': lambda: int(os.getenv('A', '1')), 'B': make('B'), 'C': lambda x: x}\n"
        "other = {'D': lambda: 1}\n"
        "def __getattr__(name):\n    return table[name]()\n"
    )
    assert lazy_attributes(tree) == (("A", "int(os.getenv('A', '1'))"), ("B", None), ("C", None))
    assert lazy_attributes(ast.parse("table = {'A': lambda: 1}")) == ()


def test_the_parsed_tree_is_not_changed() -> None:
    from extractor.solve.evaluate import parse_expr

    code = 'os.getenv("A") == "1" and envs.B'
    with_environ_reads(with_lazy_reads(parse_expr(code), {"envs.B": 'os.getenv("B")'}))
    assert ast.unparse(parse_expr(code)) == "os.getenv('A') == '1' and envs.B"


def test_an_optional_import_is_a_fact_of_the_machine(capsys, tmp_path) -> None:
    """``try: import m`` / ``except ImportError: raise``: reached where ``m`` is not installed
    (``importlib.util.find_spec``), which the card states, and which running it shows."""
    root = FIXTURES / "callers"
    cards = extracted(run_cli(capsys, "extract", str(root), "--no-cache", "-q").out)["errors"]
    [card] = [c for c in cards if c["function"] == "yaml_settings"]
    assert card["guard"]["code"] == "importlib.util.find_spec('shop_yaml_reader') is None"
    trigger = card["trigger"]
    assert (trigger["status"], trigger["verified"], trigger["assumes"]) == ("environment", True, {"importlib.util.find_spec('shop_yaml_reader')": None})
    assert [f["description"] for f in card["fixes"]] == [
        "`importlib.util.find_spec('shop_yaml_reader') is None` is false when the module `shop_yaml_reader` is installed (`importlib.util.find_spec` finds it)"]
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(docs), "--no-cache", "-q").code == 0
    text = (docs / "errors" / f"{card['id']}.md").read_text(encoding="utf-8")
    assert "on a machine where the module `shop_yaml_reader` is not installed" in text
    probe = ("import sys, traceback\nsys.path.insert(0, sys.argv[1])\nfrom shop.settings import yaml_settings\n"
             "try:\n    yaml_settings('x.yaml')\nexcept RuntimeError as exc:\n"
             "    print(traceback.extract_tb(exc.__traceback__)[-1].lineno, exc)\n")
    run = subprocess.run([sys.executable, "-I", "-c", probe, str(root)], capture_output=True, text=True, timeout=60, check=False)
    assert run.stdout.strip() == f"{card['line']} reading x.yaml needs the shop_yaml_reader package"


def test_an_import_guarded_by_other_classes_may_raise_them(tmp_path) -> None:
    """An import runs the module's code, which may raise anything: vLLM's
    ``try: import torchcodec`` / ``except RuntimeError`` (ffmpeg missing) was "unreachable"."""
    code = ("def check():\n    try:\n        import torchcodec\n    except RuntimeError as e:\n"
            "        raise RuntimeError(str(e)[:10]) from None\n")
    card = only(extract_snippet(tmp_path, code))
    assert card.statement.guard.code == "__raises__(importlib.import_module('torchcodec'), (RuntimeError,))"
    assert card.solved.trigger.status == "internal"


def test_a_parenthesized_handler_of_an_import_is_its_class(tmp_path) -> None:
    """``except (ImportError):`` (multiprocessing.synchronize) catches ImportError: the
    machine decides, as without the parentheses; it was "unreachable"."""
    code = "try:\n    from _no_such_module import SemLock\nexcept (ImportError):\n    raise ImportError('no sem_open')\n"
    card = only(extract_snippet(tmp_path, code))
    assert card.statement.guard.code == "importlib.util.find_spec('_no_such_module') is None"
    assert card.solved.trigger.status == "environment"


def test_a_module_level_fallback_of_an_optional_import_reads_the_machine(capsys, tmp_path) -> None:
    """``try: import m`` / ``except ImportError: m = None`` at the module's top (zipfile's zlib),
    and a flag both branches set (imaplib's ``HAVE_SSL``): a guard reading the name tests
    whether ``m`` is installed; a raise that needs it present says so too. Running the
    fixture, where ``shop_snappy`` is missing, raises the card's error."""
    root = FIXTURES / "callers"
    cards = {c["function"]: c for c in extracted(run_cli(capsys, "extract", str(root), "--no-cache", "-q").out)["errors"]
             if c["path"] == "shop/optional.py"}
    spec, tls = "importlib.util.find_spec('shop_snappy')", "importlib.util.find_spec('shop_tls')"
    assert cards["compress"]["guard"]["code"] == f"{spec} is None"
    assert cards["connect"]["guard"]["code"] == f"secure and not ({tls} is not None)"
    assert cards["level_of"]["guard"]["code"] == f"{spec} and level > 9"
    assumed = {name: (c["trigger"]["status"], c["trigger"]["assumes"]) for name, c in cards.items()}
    assert assumed == {"compress": ("environment", {spec: None}), "connect": ("environment", {tls: None}),
                       "level_of": ("environment", {spec: True})}
    docs = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(root), "-o", str(docs), "--no-cache", "-q").code == 0
    text = (docs / "errors" / f"{cards['level_of']['id']}.md").read_text(encoding="utf-8")
    assert f"on a machine where the module `shop_snappy` is installed (`{spec}` finds it)" in text
    probe = ("import sys\nsys.path.insert(0, sys.argv[1])\nfrom shop.optional import compress\n"
             "try:\n    compress(b'')\nexcept RuntimeError as exc:\n    print(exc.__traceback__.tb_next.tb_lineno, exc)\n")
    run = subprocess.run([sys.executable, "-I", "-c", probe, str(root)], capture_output=True, text=True, timeout=60, check=False)
    assert run.stdout.strip() == f"{cards['compress']['line']} compression requires the shop_snappy module"


def test_only_a_certain_fallback_is_read_as_the_machine() -> None:
    """The name's value must be certain: a ``try`` whose handler catches more than an import
    error, whose body calls something, binds two imports, or whose name is bound again
    elsewhere (or made ``global`` by a function) is left alone."""
    def names(code: str) -> dict[str, str]:
        return optional_names(ast.parse(code).body, code)

    assert names("try:\n    import zlib\nexcept ImportError:\n    zlib = None\n") == {"zlib": "importlib.util.find_spec('zlib')"}
    assert names("try:\n    import a.b as c\n    OK = 1\nexcept ModuleNotFoundError:\n    c = False\n    OK = 0\n") == {
        "c": "(importlib.util.find_spec('a.b') or False)", "OK": "(1 if importlib.util.find_spec('a.b') is not None else 0)"}
    refused = [
        "try:\n    import zlib\nexcept Exception:\n    zlib = None\n",
        "try:\n    import zlib\n    setup()\nexcept ImportError:\n    zlib = None\n",
        "try:\n    import zlib\n    import bz2\nexcept ImportError:\n    zlib = None\n",
        "try:\n    import zlib\nexcept ImportError:\n    zlib = None\nzlib = 0\n",
        "try:\n    import zlib\nexcept ImportError:\n    zlib = None\ndef f():\n    global zlib\n    zlib = 1\n",
        "try:\n    from . import zlib\nexcept ImportError:\n    zlib = None\n",
        "try:\n    import zlib\nexcept ImportError:\n    zlib = None\nelse:\n    pass\n",
    ]
    assert [names(code) for code in refused] == [{}] * len(refused)
