"""Values of the types programs use (issue 42, item 4): str- and int-mixin enums, whole
numbers, other platforms, field validators that run first, tensors and arrays, and realistic
values for the arguments a trigger needs."""

from __future__ import annotations

import ast
import pickle
import textwrap

import pytest

from extractor.collect.platforms import platform_imports
from extractor.collect.reads import leaving_ifs, pure_reads, skipped_ifs, unread_params
from extractor.model import Reason, TriggerStatus
from extractor.publish.catalog_file import load_catalog
from extractor.solve.arrays import array_value, dtype_value, fold_arrays, library_value, modelled_text
from extractor.solve.domains import NO_VALUE, any_value
from extractor.solve.evaluate import evaluate
from extractor.solve.values import Modelled, Present, python_text

from .helpers import FIXTURES, extract_snippet, only, run_cli


def _trigger(tmp_path, code: str):  # (pytest's tmp_path; a Trigger)
    return only(extract_snippet(tmp_path, textwrap.dedent(code))).solved.trigger


def test_a_str_field_compared_with_a_str_mixin_member_is_triggered_by_its_value(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        from enum import Enum

        class Strategy(str, Enum):
            NO = "no"
            STEPS = "steps"

        def plan(strategy: str, steps: int = 0):
            if strategy == Strategy.STEPS and steps <= 0:
                raise ValueError(f"{strategy!r} needs steps")
        ''')
    assert trigger.verified and trigger.inputs == {"steps": 0, "strategy": "steps"}
    assert trigger.message == "'steps' needs steps"


@pytest.mark.parametrize("guard", ["int(months) != months", "months % 1", "not months.is_integer()", "isinstance(months, float)"])
def test_a_guard_that_tests_integrality_is_triggered_by_a_float_that_is_not_whole(tmp_path, guard: str) -> None:
    trigger = _trigger(tmp_path, f'''
        def shift(months: float):
            if {guard}:
                raise ValueError("months must be whole")
        ''')
    assert trigger.verified and trigger.inputs == {"months": 1.5}


def test_a_comprehension_over_a_tuple_of_inputs_tries_each_as_a_float(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        def delta(years=0, months=0):
            if any(x is not None and x != int(x) for x in (years, months)):
                raise ValueError("Non-integer years and months are ambiguous")
        ''')
    assert trigger.verified and {v for v in trigger.inputs.values() if v} <= {0.5, 1.5}


def test_platform_imports_are_the_unconditional_ones() -> None:
    tree = ast.parse(textwrap.dedent('''
        import sys
        import winreg
        try:
            import msvcrt
        except ImportError:
            msvcrt = None

        class Key:
            def read(self):
                import _winapi
                if sys.platform == "win32":
                    import winsound
        '''))
    assert platform_imports(tree) == (("", 3, "winreg"), ("Key.read", 11, "_winapi"))


def test_a_raise_of_a_module_that_imports_winreg_is_never_verified(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        import winreg

        def read_key(path: str):
            if not path:
                raise ValueError("empty path")
        ''')
    assert trigger.status == TriggerStatus.ENVIRONMENT and trigger.reason == Reason.OTHER_PLATFORM and not trigger.verified


def test_a_platform_test_that_linux_passes_stays_verified(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        import sys

        if sys.platform != "win32":
            raise ImportError("win32 only")
        import _winapi
        ''')
    assert trigger.verified  # (the import comes after the raise: Linux reaches it)


def test_a_value_a_field_validator_rejects_first_is_no_verified_trigger(tmp_path) -> None:
    cards = extract_snippet(tmp_path, textwrap.dedent('''
        from pydantic import field_validator
        from pydantic.dataclasses import dataclass

        @dataclass
        class CacheConfig:
            block_size: int = 16

            @field_validator("block_size")
            @classmethod
            def _positive(cls, value: int) -> int:
                if value <= 0:
                    raise ValueError(f"Value must be a positive integer, got {value}")
                return value

            def __post_init__(self):
                if self.block_size < 1:
                    raise ValueError("block_size must be at least 1")
        '''))
    post = next(c for c in cards if c.at.function == "CacheConfig.__post_init__")
    assert not post.solved.trigger.verified and post.solved.example is None


@pytest.mark.parametrize(("guard", "value"), [
    ('s.lower() == "yes"', "yes"), ('s.strip().upper() in ("A", "B")', "A"), ('s.split(":")[0] == "http"', "http"),
    ('s.split(",")[1] == "b"', "x,b"), ('s.split()[-1] == "end"', "end"), ('s[-1] in ("a", "b")', "xa"),
])
def test_a_compared_transform_of_text_is_undone_into_the_text(tmp_path, guard: str, value: str) -> None:
    trigger = _trigger(tmp_path, f'''
        def parse(s: str):
            if {guard}:
                raise ValueError("bad")
        ''')
    assert trigger.verified and trigger.inputs == {"s": value}


def test_tensors_and_arrays_are_small_declared_models() -> None:
    tensor = library_value("torch.Tensor | None")
    assert isinstance(tensor, Modelled) and python_text(tensor) == "torch.empty(2, 3)" and tensor.attribute("ndim") == 2
    assert library_value("Optional[np.ndarray]") == array_value("numpy")
    assert python_text(array_value("numpy", (4,))) == "numpy.zeros((4,))"
    assert python_text(array_value("torch", (1, 5), dtype_value("torch.half"))) == "torch.empty(1, 5, dtype=torch.float16)"
    assert dtype_value("torch.half") == dtype_value("torch.float16") and library_value("int") is None
    folded = fold_arrays({"x.shape": [3], "x.ndim": 1, "n": 0}, {"x": "torch.Tensor"})
    assert python_text(folded["x"]) == "torch.empty(3)" and set(folded) == {"x", "n"}
    assert any_value("VllmConfig | None") is None and python_text(any_value("torch.dtype")) == "torch.float32"


@pytest.mark.parametrize(("annotation", "written"), [
    ('Literal["user", "system"]', "'user'"),  # the first choice
    ("Annotated[StrictStr, Field(max_length=3)]", "''"),  # through Annotated, a strict type
    ("ShortText | list[str]", "[]"),  # the first member of a union the tool has a value of (an alias it cannot read: the list)
    ("PositiveInt", "1"), ("NegativeFloat", "-1.0"), ("StrictBool", "False"),  # a constrained type's nearest value
    ("Optional[int]", "None"), ("int | None", "0"), ("Iterable[str]", "[]"),
    ("Path", "pathlib.Path('data.txt')"), ("os.PathLike[str] | None", "pathlib.Path('data.txt')"),
    ("npt.NDArray[np.float32]", "numpy.zeros((2, 3))"),
])
def test_a_declared_type_gets_a_realistic_value(annotation: str, written: str) -> None:
    assert python_text(any_value(annotation)) == written


def test_a_class_the_tool_cannot_build_has_no_value() -> None:
    assert any_value("Config") is NO_VALUE and any_value('Literal[Mode.A]') is NO_VALUE


def test_a_callable_is_a_function_of_any_arguments() -> None:
    """``Callable[[int], int]``: ``lambda *args, **kwargs: None``, which ``callable`` holds for."""
    function = any_value("Callable[[int], int]")
    assert isinstance(function, Modelled) and function.code == "lambda *args, **kwargs: None"
    assert evaluate("callable(f) and f is not None", {"f": function}) is True


def test_a_path_is_read_but_never_touched() -> None:
    path = library_value("pathlib.Path")
    assert isinstance(path, Modelled) and path.attribute("suffix") == ".txt" and path.attribute("stem") == "data"
    assert modelled_text(path, None) == "data.txt" and modelled_text(path, "r") == "PosixPath('data.txt')"
    with pytest.raises(AttributeError):
        path.attribute("exists")


def test_a_tensor_argument_is_built_in_the_example(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, textwrap.dedent('''
        import torch

        def rows(hidden_states: torch.Tensor, positions: torch.Tensor) -> None:
            if hidden_states.shape[0] != 4:
                raise ValueError(f"expected 4 rows, got {hidden_states.shape[0]}")
        ''')))
    assert card.solved.trigger.verified and not card.solved.trigger.missing
    example = card.solved.example
    assert example is not None and "rows(hidden_states=torch.empty(3), positions=torch.empty(2, 3))" in example.before


def test_pure_reads_are_parameters_only_simple_pure_statements_read() -> None:
    function = ast.parse(textwrap.dedent('''
        def f(text, limit, sep, other):
            key = text.lower()
            width = limit * 2
            log(width)
            other.close()
            raise ValueError(sep)
        ''')).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert pure_reads(function, (function,), 7) == (("text", ("not __raises__(text.lower(), (Exception,))",)),)


def _function(code: str) -> ast.FunctionDef:
    function = ast.parse(textwrap.dedent(code)).body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


def test_what_an_earlier_if_reads_before_it_leaves_is_not_on_the_way() -> None:
    function = _function('''
        def f(pattern, host, port, user):
            if not pattern:
                return host.lower()
            if port:
                user = port
            if pattern == "*":
                raise ValueError(user)
            else:
                raise KeyError(host)
        ''')
    leaving = leaving_ifs(function.body, 8)
    # the first ``if`` returns: a call that reaches line 8 never ran its body; the second runs on
    assert [stmt.lineno for stmt in leaving] == [3]
    assert unread_params(function, (function,), 8) == ("host",)
    # the raise in an ``else``: the body beside it leaves too (by its raise); the raise's own
    # arguments are no read on the way
    assert {stmt.lineno for stmt in leaving_ifs(function.body, 10)} == {3, 7}
    assert unread_params(function, (function,), 10) == ("host",)


def test_the_branches_beside_the_raise_are_not_on_the_way() -> None:
    function = _function('''
        def convert(backend, layer, w13, w2):
            block = hasattr(layer, "weight_block_size")
            if backend == "a":
                w13 = [x * 2 for x in w13]
            elif backend == "b":
                w2 = sorted(w2)
            else:
                raise ValueError(backend)
        ''')
    # (the raise in the last ``else``: neither body beside it runs on the way, however it ends)
    assert {stmt.lineno for stmt in leaving_ifs(function.body, 9)} == {4, 6}
    assert unread_params(function, (function,), 9) == ("w13", "w2")


def test_a_nested_definition_reads_only_its_free_names() -> None:
    function = _function('''
        def f(prefix, ignored, limit, mode):
            def full(prefix, ignored=limit):
                return prefix in ignored
            check = lambda ignored: ignored or mode
            raise ValueError(mode)
        ''')
    # ``full`` reads its own ``prefix`` and ``ignored``; its default reads ``limit``, and the lambda ``mode``
    assert unread_params(function, (function,), 7) == ("ignored", "prefix")


def test_an_if_inside_a_try_or_a_loop_is_on_the_way() -> None:
    function = _function('''
        def f(items, host):
            try:
                if not items:
                    raise LookupError(host)
            except LookupError:
                pass
            for item in items:
                if item:
                    return host
            raise ValueError("empty")
        ''')
    # the try's handler resumes after a raise in it, and the loop's ``if`` may not return
    assert leaving_ifs(function.body, 10) == set() and unread_params(function, (function,), 10) == ()


def test_a_body_whose_test_is_false_reads_nothing_on_the_way() -> None:
    function = _function('''
        def f(scale, limit, cache, mode, size):
            del size
            if cache is not None:
                check(scale)
            if limit > 1:
                mode = "x"
            if mode == "fast":
                return
            else:
                raise ValueError(mode)
        ''')
    # ``if limit > 1`` rebinds mode: the test of the last ``if`` reads what it bound, so that ``if`` is read as it is
    assert [stmt.lineno for stmt in sorted(skipped_ifs(function, 12, {"scale", "limit", "cache", "mode", "size"}, set()),
                                           key=lambda s: s.lineno)] == [4, 6]
    assert pure_reads(function, (function,), 12) == (("cache", ("not (cache is not None)",)), ("limit", ("not (limit > 1)",)),
                                                    ("scale", ("not (cache is not None)",)))
    assert "size" in unread_params(function, (function,), 12)  # (``del``: no read of its value)


def test_a_store_into_self_is_a_pure_statement_until_something_may_read_it() -> None:
    function = _function('''
        def __init__(self, heads, size, width, depth, mode):
            self.width = width
            self.reset()
            self.heads = heads
            self.size = size
            self.depth = depth
            if mode != self.depth:
                raise ValueError(self.size)
        ''')
    # ``heads`` is stored after ``self.reset()`` and never read; ``width`` before it, which may
    # read it; ``depth``'s attribute is read by the test, ``size``'s by the raise
    assert pure_reads(function, (function,), 9, 9) == (("heads", ("not __raises__(heads, (Exception,))",)),)
    # a super() call after a store may read it too (a base's __init__ calling an override)
    after_super = _function('''
        def __init__(self, heads, mode):
            self.heads = heads
            super().__init__()
            if mode:
                raise ValueError(mode)
        ''')
    assert pure_reads(after_super, (after_super,), 6) == ()


def test_required_arguments_get_enum_members_and_modules_where_nothing_reads_them(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        import enum
        import torch

        class Act(enum.Enum):
            SILU = "silu"

        def create(layer: torch.nn.Module, size: int, act: Act) -> None:
            if size % 32:
                raise ValueError(size)
        ''')
    assert trigger.verified and not trigger.missing
    assert {k: v for k, v in trigger.inputs.items() if k != "size"} == {"layer": {"python": "torch.nn.Module()"},
                                                                         "act": {"python": "Act.SILU"}}


def test_an_enum_only_a_type_checking_import_binds_gets_no_member(tmp_path) -> None:
    # ``Act`` is the tree's Enum: imported at run time it gives ``Act.SILU``; under
    # ``if TYPE_CHECKING:`` the module never binds it, so an example could not import it: as
    # nothing reads ``act`` before the raise, the example passes None, a stand-in
    (tmp_path / "acts.py").write_text("import enum\n\n\nclass Act(enum.Enum):\n    SILU = 'silu'\n")
    body = textwrap.dedent('''
        def create(size: int, act: ACT) -> None:
            if size % 32:
                raise ValueError(size)
        ''')
    runtime = extract_snippet(tmp_path, "from acts import Act\n" + body.replace("ACT", "Act"))
    assert [c.solved.trigger.inputs["act"] for c in runtime if c.path == "mod.py"] == [{"python": "Act.SILU"}]
    typing = extract_snippet(tmp_path, "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from acts import Act\n"
                             + body.replace("ACT", '"Act"'))
    assert [(c.solved.trigger.missing, c.solved.trigger.inputs["act"]) for c in typing if c.path == "mod.py"] == [((), None)]


def test_a_test_of_an_attribute_is_read_as_it_is() -> None:
    # ``cfg.reset()`` may change ``cfg.mode`` before the test: no value of ``scale`` is implied
    function = _function('''
        def f(cfg, scale, mode):
            cfg.reset()
            if cfg.mode == "x":
                check(scale)
            if mode == "fast":
                raise ValueError(mode)
        ''')
    assert skipped_ifs(function, 7, {"cfg", "scale", "mode"}, set()) == set()
    assert "scale" not in dict(pure_reads(function, (function,), 7))


def test_a_tensor_read_where_a_test_of_another_argument_is_false_gets_a_value(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        import torch

        def attend(query: torch.Tensor, scale: torch.Tensor | None, max_len: int, mode: str):
            if scale is not None:
                query = query * scale
            if max_len > 1:
                query.mul_(2)
            if mode not in ("a", "b"):
                raise ValueError(f"unknown mode {mode}")
        ''')
    assert trigger.verified and not trigger.missing
    assert trigger.inputs == {"max_len": 1, "mode": "a_x", "query": {"python": "torch.empty(2, 3)"}, "scale": None}


def test_a_parameter_read_only_where_an_earlier_if_returns_gets_a_value_of_its_type(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        def matches(pattern: str, host) -> bool:
            if "*" not in pattern:
                return pattern == host.lower()
            if pattern.count("*") > 1:
                raise ValueError("too many wildcards")
            return True
        ''')
    assert trigger.verified and trigger.inputs == {"pattern": "**", "host": ""} and not trigger.missing


_OPTIONAL_RECORD = '''
    from dataclasses import dataclass

    @dataclass
    class Spec:
        num_tokens: int | None = None

    @dataclass
    class Config:
        spec: Spec | None = None

    def build(config: Config):
        if {guard}:
            raise ValueError("too many")
    '''


def test_an_optional_record_tested_for_none_before_its_fields_is_an_object_of_its_class(tmp_path) -> None:
    card = only(extract_snippet(tmp_path, textwrap.dedent(_OPTIONAL_RECORD.format(
        guard="config.spec is not None and config.spec.num_tokens > 3"))))
    trigger = card.solved.trigger
    assert trigger.verified and trigger.inputs == {"config.spec": {"python": "Spec(...)"}, "config.spec.num_tokens": 4}
    example = card.solved.example
    assert example is not None and example.before.endswith("build(config=Config(spec=Spec(num_tokens=4)))")
    assert example.after is not None and example.after.endswith("build(config=Config(spec=None))")  # (its fields go with it)


def test_a_record_whose_fields_the_guard_does_not_read_is_no_object_to_make_up(tmp_path) -> None:
    # nothing says what a Spec the guard only tests for truth holds: no trigger
    trigger = only(extract_snippet(tmp_path, textwrap.dedent(_OPTIONAL_RECORD.format(guard="config.spec")))).solved.trigger
    assert trigger.status == TriggerStatus.UNSOLVED


def test_a_nested_record_with_a_required_field_no_input_gives_is_not_written(tmp_path) -> None:
    # ``Spec(num_tokens=4)`` would fail on the call: ``method`` is required and nothing gives it
    card = only(extract_snippet(tmp_path, textwrap.dedent(_OPTIONAL_RECORD.format(guard="config.spec.num_tokens > 3").replace(
        "class Spec:\n        num_tokens", "class Spec:\n        method: str\n        num_tokens"))))
    assert card.solved.trigger.verified and card.solved.example is None
    assert card.solved.example_reason == Reason.CONSTRUCTOR_NEEDS_ARGUMENTS


def test_an_object_of_a_class_is_true_equal_to_its_kind_and_pickles() -> None:
    spec = Present("Spec")
    assert spec and spec is not None and spec == Present("Spec") != Present("Other") and repr(spec) == "Spec(...)"
    assert pickle.loads(pickle.dumps(spec)) == spec


def test_a_required_argument_read_on_the_way_gets_a_value_under_which_the_way_computes(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        def label(name: str, count: int):
            shown = name.strip()
            if count < 0:
                raise ValueError("count must not be negative")
            return shown
        ''')
    assert trigger.verified and trigger.inputs == {"count": -1, "name": "x"} and not trigger.missing


def test_a_tensor_unpacked_on_the_way_gets_a_shape_that_unpacks(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        import torch

        def matmul(a: torch.Tensor, block: int):
            m, k = a.shape
            if block <= 0:
                raise ValueError("block must be positive")
        ''')
    assert trigger.verified and trigger.inputs == {"a": {"python": "torch.empty(2, 3)"}, "block": 0} and not trigger.missing


def test_a_raw_payload_over_several_keys_is_one_dict_holding_them_all(tmp_path) -> None:
    # A "before" validator's data: both keys true at once, or a key at the value it is compared with
    both, empty = extract_snippet(tmp_path, textwrap.dedent('''
        def check_prompt(data):
            if isinstance(data, dict) and data.get("continue_final_message") and data.get("add_generation_prompt"):
                raise ValueError("Cannot set both")

        def check_tools(data):
            if isinstance(data, dict) and "tool_choice" in data and data["tool_choice"] not in ["auto", "required"]:
                if not data.get("tools"):
                    raise ValueError("tools must be set")
        '''))
    assert both.solved.trigger.inputs == {"data": {"continue_final_message": True, "add_generation_prompt": True}}
    assert both.solved.trigger.verified
    # (``True`` is outside ["auto", "required"], and "tools" absent is not true)
    assert empty.solved.trigger.inputs == {"data": {"tool_choice": True}} and empty.solved.trigger.verified


def test_a_text_tested_for_several_letters_is_one_text_holding_them(tmp_path) -> None:
    # ``in`` alone is no mapping read: the text holds both letters, never a dict of them
    trigger = _trigger(tmp_path, '''
        def open_mode(mode="rb"):
            if "t" in mode and "b" in mode:
                raise ValueError(mode)
        ''')
    assert trigger.inputs == {"mode": "bt"} and trigger.verified


def test_a_construction_a_before_model_validator_refuses_first_is_no_example(tmp_path, capsys) -> None:
    out = tmp_path / "docs"
    assert run_cli(capsys, "extract", str(FIXTURES / "values"), "-o", str(out), "--no-cache").code == 0
    cards = {(c["function"], c["kind"]): c for c in load_catalog(str(out / "catalog.json"))["errors"] if c["path"].endswith("payloads.py")}
    # ``CompletionPayload(seed=-1)`` and ``CompletionPayload(logprobs=True, use_beam_search=True)``
    # would raise "prompt must be provided" first
    seed = cards["CompletionPayload", "field_constraint"]
    assert seed["example"] is None and seed["trigger"]["reason"] == "construction_not_shown" and not seed["trigger"].get("verified")
    logprobs = cards["CompletionPayload.check_logprobs", "call"]
    assert logprobs["example"] is None and logprobs["example_reason"] == "construction_not_shown"
    assert cards["CompletionPayload.validate_prompt", "call"]["example"]["before"].endswith("CompletionPayload()")


def test_an_unread_argument_of_an_unbuilt_class_is_none_unless_a_decorator_checks_types(tmp_path) -> None:
    # nothing reads ``config`` before the raise: None gets the call there (a stand-in the card
    # names); ``@validate_call`` would refuse None for ``Config`` first, so it stays missing
    body = textwrap.dedent('''
        class Config:
            def __init__(self, model: str):
                self.model = model

        DECORATOR
        def pick(kv_cache_dtype: str, config: Config) -> str:
            if kv_cache_dtype not in ("auto", "fp8"):
                raise ValueError(kv_cache_dtype)
            return config.model
        ''')
    plain = only(extract_snippet(tmp_path, body.replace("DECORATOR", "")))
    assert (plain.solved.trigger.inputs["config"], plain.solved.trigger.missing, plain.solved.trigger.verified) == (None, (), True)
    assert plain.solved.example is not None and plain.solved.example.placeholders == ("config",)
    checked = only(extract_snippet(tmp_path, "from pydantic import validate_call\n" + body.replace("DECORATOR", "@validate_call")))
    assert "config" not in checked.solved.trigger.inputs and checked.solved.trigger.missing == ("config",)


def test_a_stored_argument_gets_none_as_a_stand_in_and_the_receiver_none(tmp_path) -> None:
    # ``sink`` is only stored before the raise (of a type no value is built of): None stands in
    # for it, named among the placeholders; ``self``, which the skipped ``if``'s body reads
    # too, is the object the example builds, never an input.
    code = (
        "from typing import Protocol\n"
        "class Sink(Protocol):\n"
        "    def write(self, text: str) -> None: ...\n"
        "class Log:\n"
        "    def __init__(self) -> None:\n"
        "        self.size = 1\n"
        "    def attach(self, sink: Sink, level: int, flush: bool = False) -> None:\n"
        "        self.sink = sink\n"
        "        if flush:\n"
        "            self.size = 0\n"
        "        if level < 0:\n"
        "            raise ValueError(f'level must be >= 0, got {level}')\n"
    )
    card = only(extract_snippet(tmp_path, code))
    trigger = card.solved.trigger
    assert (trigger.status, trigger.verified, trigger.inputs) == ("concrete", True, {"level": -1, "sink": None})
    assert card.solved.example.placeholders == ("sink",)
    assert card.solved.example.before.endswith("Log().attach(sink=None, level=-1)")


def test_an_argument_passed_on_to_a_call_gets_a_value_of_its_type_and_no_verified_claim(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        def build(rows, cols):
            return [[0] * cols for _ in range(rows)]

        def make_mlp(hidden_size: int, intermediate_size: int, hidden_act: str):
            weights = build(hidden_size, intermediate_size)
            if hidden_act != "silu":
                raise ValueError(f"Unsupported activation: {hidden_act}")
        ''')
    assert trigger.inputs == {"hidden_act": "silu_x", "hidden_size": 1, "intermediate_size": 1}
    assert trigger.passed_on == ("hidden_size", "intermediate_size") and not trigger.missing
    assert (trigger.reason, trigger.verified) == (Reason.ARGUMENT_PASSED_ON, False)


def test_an_argument_whose_attributes_the_trigger_gives_is_not_passed_on(tmp_path) -> None:
    # (``grid`` is the object ``grid.device.type`` is of: the trigger gives it, and stays verified)
    trigger = _trigger(tmp_path, '''
        import torch

        def prepare(grid: torch.Tensor):
            if grid.device.type != "cpu":
                raise ValueError("grid must remain on CPU")
        ''')
    assert trigger.verified and not trigger.passed_on and "grid" not in trigger.inputs


def test_an_argument_only_a_pure_statement_reads_that_no_value_passes_stays_missing(tmp_path) -> None:
    trigger = _trigger(tmp_path, '''
        def first(items: int, count: int):
            head = items[0]
            if count < 0:
                raise ValueError("count must not be negative")
        ''')
    assert trigger.missing == ("items",) and not trigger.passed_on


def test_an_argument_passed_on_takes_a_value_surely_of_its_type(tmp_path) -> None:
    # ``(1,)`` may not be a ``tuple[Task, ...]`` (a class the tool does not read): ``()`` surely is
    trigger = _trigger(tmp_path, '''
        def check(tasks: tuple[Task, ...], sizes: list[int], mode: str):
            register(tasks, sizes)
            if mode != "fast":
                raise ValueError(f"unknown mode {mode}")
        ''')
    assert trigger.passed_on == ("tasks", "sizes")
    assert trigger.inputs["tasks"] == {"python": "()"} and trigger.inputs["sizes"] == [1]


def test_an_optional_argument_passed_on_is_given_none(tmp_path) -> None:
    # (what a call it is passed to reads as "not given": ``'x'`` may be refused, as MLA's base refuses a layer name)
    trigger = _trigger(tmp_path, '''
        def make(name: str | None, size: int, mode: str):
            setup(name, size)
            if mode != "fast":
                raise ValueError(mode)
        ''')
    assert trigger.passed_on == ("name", "size") and trigger.inputs["name"] is None and trigger.inputs["size"] == 1
