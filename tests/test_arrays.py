"""Array attributes by convention (solve.arrays): a shape is a sequence of sizes >= 0 and
``ndim`` its length; a trigger whose values no array has together is not verified."""

from __future__ import annotations

import ast

from extractor.model import Domain
from extractor.solve.arrays import array_value, cohere, conventional_domain, dtype_value, incoherent_arrays
from extractor.solve.evaluate import evaluate

from .helpers import extract_snippet


def _values(inputs: dict) -> dict:
    """A trigger's JSON inputs with the shapes JSON cannot carry (``{"python": "torch.Size([1, 1])"}``, a tuple) as tuples."""
    def value(v):
        if isinstance(v, dict) and "python" in v and v["python"].startswith(("(", "torch.Size(")):
            return tuple(ast.literal_eval(v["python"].removeprefix("torch.Size(").removesuffix(")") if v["python"].startswith("torch.") else v["python"]))
        return v
    return {name: value(v) for name, v in inputs.items()}


def test_conventional_domains_only_where_the_tree_declares_nothing() -> None:
    assert conventional_domain("x.shape", Domain(input="x.shape", source="unknown")).types == ("list",)
    ndim = conventional_domain("x.ndim", Domain(input="x.ndim", source="unknown"))
    assert ndim.types == ("int",) and [(c.name, c.value) for c in ndim.constraints] == [("ge", "0")]
    assert conventional_domain("x.is_cuda", Domain(input="x.is_cuda", source="unknown")).types == ("bool",)
    declared = Domain(input="x.shape", source="field", types=("str",))
    assert conventional_domain("x.shape", declared) is declared


def test_incoherent_arrays() -> None:
    assert incoherent_arrays({"a.ndim": 2, "a.shape": (1, 1), "b.shape": [0]}) == []
    assert incoherent_arrays({"a.ndim": 3, "a.shape": [], "b.shape": "x", "c.shape": [-1], "d.ndim": -1}) == ["a", "b", "c", "d"]
    assert incoherent_arrays({"a.dtype": 0, "b.dtype": "float32"}) == ["a"]  # (numpy compares a dtype with its name)


def test_cohere_keeps_the_guard_true() -> None:
    assert cohere({"v.ndim": 2, "v.shape": [0]}, lambda e: e["v.shape"][-1] == 0) == {"v.ndim": 2, "v.shape": [1, 0]}
    assert cohere({"c.shape": [-1], "s.shape": [1]}, lambda e: e["c.shape"][0] != e["s.shape"][0])["c.shape"] == [2]
    assert cohere({"a.ndim": 2, "a.shape": 0}, lambda e: True)["a.shape"] == (1, 1)  # (a value only the message reads)
    assert cohere({"k.ndim": 1, "k.shape": []}, lambda e: e["k.shape"] == []) == {"k.ndim": 1, "k.shape": []}


def test_a_trigger_no_array_has_is_not_verified(tmp_path) -> None:
    """vLLM's kernels: ``x.ndim = 3`` beside ``x.shape = []`` or ``x.shape = ''`` was verified."""
    code = """
    def combine(partial, out):
        if partial.ndim == 3 and partial.shape[0] > 4:
            raise ValueError(f"too many splits: {partial.shape[0]}")
        if partial.ndim == 3 and out.shape[1:] != partial.shape[1:]:
            raise ValueError("out shape does not match partial")
    """
    splits, mismatch = extract_snippet(tmp_path, code)
    assert splits.solved.trigger.verified and not incoherent_arrays(_values(splits.solved.trigger.inputs))
    shape = _values(splits.solved.trigger.inputs)["partial.shape"]
    assert len(shape) == 3 and shape[0] > 4
    inputs = _values(mismatch.solved.trigger.inputs)
    assert mismatch.solved.trigger.verified and not incoherent_arrays(inputs)  # (a shape as long as partial.ndim, past the first test)
    assert inputs["partial.shape"][0] <= 4 and inputs["out.shape"][1:] != inputs["partial.shape"][1:]


def test_a_fix_gives_no_shape_its_ndim_refuses(tmp_path) -> None:
    """vLLM's b12x ``_kv_page_size``: the fix ``value_cache.shape = [1, 1, 1]`` beside
    ``value_cache.ndim = 2``."""
    code = """
    import torch

    def page_size(key_cache: torch.Tensor, value_cache: torch.Tensor) -> int:
        if key_cache.ndim < 2 or value_cache.ndim < 2:
            raise ValueError(f"expected paged caches, got {tuple(key_cache.shape)} and {tuple(value_cache.shape)}.")
        key_page_size = int(key_cache.shape[1])
        value_page_size = int(value_cache.shape[1])
        if key_page_size != value_page_size:
            raise ValueError(f"page sizes differ: {key_page_size} and {value_page_size}.")
        return key_page_size
    """
    card = extract_snippet(tmp_path, code)[1]
    assert card.solved.trigger.verified and not incoherent_arrays(_values(card.solved.trigger.inputs))
    shapes = [fix for fix in card.solved.fixes if fix.changed[0].endswith(".shape")]
    assert shapes and all(not incoherent_arrays(_values({**card.solved.trigger.inputs, **fix.inputs})) for fix in shapes)


def test_a_shape_only_the_message_reads_is_the_tensors_torch_size(tmp_path) -> None:
    """``f"(A shape: {A.shape})"`` of ``A: torch.Tensor``, which no test reads: the message shows
    ``torch.Size([2, 3])``, as torch prints it, and the example builds that tensor (vLLM's
    ``patched_fused_scaled_matmul_reduce_scatter_fake`` had shown ``(A shape: ())``)."""
    code = ("import torch\n\n\ndef scaled(A: torch.Tensor, A_scale: torch.Tensor) -> torch.Tensor:\n"
            "    if A_scale.numel() != 1:\n"
            "        raise ValueError(f\"Invalid A_scale shape (A shape: {A.shape}, A_scale shape: {A_scale.shape})\")\n"
            "    return A\n")
    [card] = extract_snippet(tmp_path, code)
    trigger = card.solved.trigger
    assert trigger.message.startswith("Invalid A_scale shape (A shape: torch.Size([2, 3]), A_scale shape: torch.Size([")
    assert trigger.verified and "A=torch.empty(2, 3)" in card.solved.example.before


def test_strides_and_sizes_are_those_of_the_shape_the_trigger_gives() -> None:
    """``x.stride()`` of a contiguous tensor steps over the later sizes (torch: ``(12, 4, 1)`` for
    ``(2, 3, 4)``, ``(16, 1, 1)`` for ``(0, 16, 0)``); a transpose's are its own; where the
    trigger gives ``x.shape`` beside ``x``, the sizes are of that shape (the example builds ``x``
    with it), and ``x.ndim`` alone, where it is not the tensor's own, stands for ones."""
    x = array_value("torch", (2, 3, 4))
    assert evaluate("x.stride()", {"x": x}) == (12, 4, 1)
    assert evaluate("x.stride(-1) == 1 and x.element_size() == 4", {"x": x}) is True
    assert evaluate("x.stride()", {"x": array_value("torch", (0, 16, 0))}) == (16, 1, 1)
    assert evaluate("x.stride()", {"x": array_value("torch", contiguous=False)}) == (1, 2)
    assert evaluate("x.numel(), x.stride(0), x.dim()", {"x": x, "x.shape": (1, 16)}) == (16, 16, 2)
    assert evaluate("x.size()", {"x": x, "x.ndim": 2}) == (1, 1)  # (another ndim: ones, as the example builds it)
    assert evaluate("x.size()", {"x": x, "x.ndim": 3}) == (2, 3, 4)  # (its own: the tensor as it is)


def test_a_tensor_read_whole_and_by_its_shape_is_built_with_that_shape(tmp_path) -> None:
    """A guard reading ``cache.stride(1)`` and ``cache.shape[2]``: the search's tensor is rebuilt
    with the shape it gives (``torch.empty(0, 16, 0)``, whose stride(1) is 1), and the trigger is
    verified: the restated guard reads the tensor alone."""
    code = ("import torch\ndef g(cache: torch.Tensor, page: int = 16):\n"
            "    if cache.ndim == 3 and cache.shape[1] == page and cache.stride(1) != cache.shape[2]:\n"
            "        raise ValueError('cache rows must be contiguous')\n")
    assert _verified_inputs(tmp_path, code)["cache"] == {"python": "torch.empty(0, 16, 0)"}


def test_devices_compared_only_with_each_other_are_the_cpu_one(tmp_path) -> None:
    """``a.device == b.device`` where no device constant is named: both the CPU device every
    tensor built here is on (a number is no device: the trigger would not be verified), and a
    transpose's last stride is not 1."""
    code = ("import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n"
            "    if a.ndim == 2 and b.ndim == 2 and a.device == b.device and a.stride(-1) != 1:\n"
            "        raise ValueError('a must be row-major')\n")
    inputs = _verified_inputs(tmp_path, code)
    assert inputs["a"] == {"python": "torch.empty(3, 2).t()"}
    assert inputs["a.device"] == {"python": "torch.device('cpu')"}


def _verified_inputs(tmp_path, code: str) -> dict:
    """The inputs of the one card of ``code``, whose trigger must be verified."""
    (card,) = extract_snippet(tmp_path, code)
    trigger = card.solved.trigger
    assert trigger is not None and trigger.verified
    return trigger.inputs


def test_a_shape_given_as_plain_sizes_is_printed_as_the_torch_size_it_is(tmp_path) -> None:
    """``positions.shape[0] != 3`` is met by a seed of plain sizes; torch prints the tensor's
    ``torch.Size``, and so does the card's message."""
    code = ("import torch\ndef f(positions: torch.Tensor):\n"
            "    if positions.ndim == 2 and positions.shape[0] != 3:\n"
            "        raise ValueError(f'positions must have shape (3, n), got {positions.shape}')\n")
    (card,) = extract_snippet(tmp_path, code)
    trigger = card.solved.trigger
    assert trigger is not None and trigger.verified and trigger.inputs["positions.shape"] == {"python": "torch.Size([1, 1])"}
    assert trigger.message == "positions must have shape (3, n), got torch.Size([1, 1])"


def test_a_dtypes_attributes_are_its_own(tmp_path) -> None:
    """``input_dtype.itemsize == 1`` of ``input_dtype: torch.dtype | None``: the trigger is a dtype
    whose own itemsize is 1 (vLLM's ``prepare_fp8_layer_for_marlin`` had claimed a verified
    ``input_dtype = torch.float32`` beside ``input_dtype.itemsize = 1``), the example passes that
    dtype alone, no fix sets the itemsize apart from it, and a float32 given an itemsize of 1 is
    incoherent."""
    code = ("import torch\n\n\ndef prepare(input_dtype: torch.dtype | None = None) -> None:\n"
            "    if input_dtype is not None and input_dtype.itemsize == 1:\n"
            "        raise RuntimeError(\"W8A8 is not supported.\")\n")
    [card] = extract_snippet(tmp_path, code)
    trigger = card.solved.trigger
    assert trigger.verified and trigger.inputs["input_dtype"] == {"python": "torch.int8"}
    assert "prepare(input_dtype=torch.int8)" in card.solved.example.before
    assert [fix.changed for fix in card.solved.fixes] == [("input_dtype",)]
    assert incoherent_arrays({"x": dtype_value("torch.float32"), "x.itemsize": 1}) == ["x"]
    assert not incoherent_arrays({"x": dtype_value("torch.int8"), "x.itemsize": 1})
