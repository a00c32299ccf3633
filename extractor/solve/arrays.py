"""Array attributes by convention: ``x.shape``, ``x.ndim`` and ``x.is_cuda`` of a value the
tree does not define (a torch tensor, a numpy or jax array) mean what those libraries give
them: a shape is a sequence of sizes (ints >= 0), ``ndim`` is its length, an ``is_*`` flag
is a bool. The solver tries such values only (``conventional_domain``, a search domain: the
card's published domains stay what the tree declares), and a trigger whose values no array
has together (``x.ndim = 3`` beside ``x.shape = []``) is made coherent where the guard allows
(``cohere``), else not verified (``incoherent_arrays``).

Values of those types (``Modelled``): a parameter annotated ``torch.Tensor`` (or
``np.ndarray``, ``torch.dtype``, ``torch.device``) gets a small declared model of one, which
the evaluator reads (``shape``, ``ndim``, ``dtype``, ``device``, ``is_cuda``, ``dim()``,
``size()``, ``numel()``) and an example builds (``torch.empty(2, 3)``,
``numpy.zeros((2, 3))``, with the dtype where it is not the default): a CPU tensor of
float32, a float64 array. ``fold_arrays`` builds one from the values a trigger gives its
attributes (``x.shape = [1, 5]`` -> ``torch.empty(1, 5)``). A parameter annotated ``Path``
(``os.PathLike``) gets a relative path, ``pathlib.Path('data.txt')``, whose name, suffix and
stem the evaluator reads.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from ..collect.declarations import dotted_name
from ..model import Constraint, Domain
from ..model.libraries import LIBRARIES, dtype_of
from .values import Modelled

_FLAGS = (".is_cuda", ".is_cpu", ".is_sparse", ".is_meta", ".is_quantized", ".requires_grad")


def conventional_domain(name: str, domain: Domain) -> Domain:
    """The domain the search gives an input the tree declares nothing about, by its last name."""
    if domain.types or domain.choices is not None or domain.constraints:
        return domain
    if name.endswith(".shape"):
        return replace(domain, types=("list",))  # (a tuple too: domains._type_ok)
    if name.endswith(".ndim"):
        return replace(domain, types=("int",), constraints=(Constraint(name="ge", value="0"),))
    if name.endswith(_FLAGS):
        return replace(domain, types=("bool",))
    return domain


def incoherent_arrays(values: Mapping[str, Any]) -> list[str]:
    """The arrays (``x`` of ``x.shape``) whose values here no array has: a shape that is no
    sequence of sizes, a negative ``ndim``, an ``ndim`` other than its shape's length, a
    ``dtype`` or ``device`` that is a number, a bool, None or a sequence (``a.dtype = 0``
    beside ``b.dtype = 1``, where the guard only compares the two: no dtype is either); or a
    ``shape``, ``ndim`` or ``dtype`` other than the one the array the trigger gives itself has
    (``a = torch.empty(2, 3)`` beside ``a.shape = [1, 1]``: ``a.numel()`` reads the first); and
    the dtypes, devices and paths given beside an attribute other than their own."""
    bad: set[str] = set()
    for name, value in values.items():
        base, _, attribute = name.rpartition(".")
        model = values.get(base) if base else None
        if isinstance(model, Modelled) and model.is_array and attribute in ("shape", "ndim", "dtype") \
                and not _same(dict(model.attributes).get(attribute), value):
            bad.add(base)
        if isinstance(model, Modelled) and model.fixed and not _own_of_fixed(values, name):
            bad.add(base)  # (``x = torch.float32`` beside ``x.itemsize = 1``)
        if base and attribute in ("dtype", "device") and (value is None or isinstance(value, (int, float, list, tuple))):
            bad.add(base)
        if not base or attribute not in ("shape", "ndim"):
            continue
        if attribute == "ndim":
            if type(value) is not int or value < 0:
                bad.add(base)
            continue
        is_sizes = isinstance(value, (list, tuple)) and all(type(size) is int and size >= 0 for size in value)
        if not is_sizes or (f"{base}.ndim" in values and values[f"{base}.ndim"] != len(value)):
            bad.add(base)
    return sorted(bad)


def _same(own: Any, given: Any) -> bool:
    """Whether an array's own attribute is the value given for it (a shape as any sequence)."""
    if isinstance(own, (list, tuple)) and isinstance(given, (list, tuple)):
        return list(own) == list(given)
    return bool(own == given) if not isinstance(own, (list, tuple)) else False


def cohere(values: dict[str, Any], holds: Callable[[dict[str, Any]], bool | None]) -> dict[str, Any]:
    """``values`` with the arrays' shapes made ones arrays have, where the guard still holds
    under the result (the search sets a shape, its sizes and ``ndim`` apart): a negative size
    ``n`` becomes ``-n + 1``, a shape that is no sequence (a value only the message reads) an
    empty one, and the sizes are cut, or padded with 1 after or before them, to ``ndim``
    (``x.ndim = 3`` beside ``x.shape = []`` gives ``x.shape = [1, 1, 1]``). All shapes at
    once first (``v.shape == k.shape``), then each alone."""
    options = {name: _coherent(values, name) for name in sorted(values) if name.rpartition(".")[0] and name.endswith(".shape")}
    options = {name: found for name, found in options.items() if found}
    together = {**values, **{name: found[0] for name, found in options.items()}}
    if options and holds(together) is True:
        return together
    out = dict(values)
    for name, found in options.items():
        for shape in found:
            if holds(trial := {**out, name: shape}) is True:
                out = trial
                break
    return out


def _coherent(values: Mapping[str, Any], name: str) -> list[Any]:
    """Shapes an array has, near ``values[name]``, that differ from it (none where it is one)."""
    return shapes_near(values[name], values.get(name.removesuffix("shape") + "ndim"))


def shapes_near(shape: Any, ndim: Any) -> list[Any]:
    """Shapes an array has (of ``ndim`` sizes, where that is a count), near ``shape``, that differ from it."""
    sizes = [size if size >= 0 else 1 - size for size in shape if type(size) is int] if isinstance(shape, (list, tuple)) else []
    kind = type(shape) if isinstance(shape, (list, tuple)) else tuple
    found = [sizes]
    if type(ndim) is int and 0 <= ndim <= 8 and len(sizes) != ndim:
        pad = [1] * max(ndim - len(sizes), 0)
        found = [sizes[:ndim] + pad, pad + sizes[len(sizes) - ndim:] if len(sizes) > ndim else pad + sizes]
    return [kind(s) for s in found if kind(s) != shape]


# The dtypes a guard may name, by every name the library gives them -> the canonical one.
_FLOATING = frozenset({"float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"})
# The names a path's type goes by (``Path``, ``pathlib.Path``, ``os.PathLike``): a relative path's model.
_PATH_TYPES = frozenset({"Path", "PurePath", "PosixPath", "PurePosixPath", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath",
                         "pathlib.PurePosixPath", "PathLike", "os.PathLike"})
TENSOR_SHAPE = (2, 3)  # the shape of a tensor nothing constrains


class TorchSize(tuple):
    """A tensor's shape: a tuple that prints as torch's does (``torch.Size([2, 3])``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __getitem__(self, index: Any) -> Any:  # (a slice of one is one too: ``x.shape[:-1]``)
        item = tuple.__getitem__(self, index)
        return TorchSize(item) if isinstance(index, slice) else item

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (TorchSize, (tuple(self),))


def dtype_value(chain: str) -> Modelled | None:
    """``torch.float16``, ``torch.half`` (the same dtype), ``np.float32``: the dtype a guard names, or None."""
    found = dtype_of(chain)
    if found is None:
        return None
    module, canonical = found
    attributes = (("is_floating_point", canonical in _FLOATING), ("itemsize", _ELEMENT_BYTES[canonical])) \
        if module == "torch" and canonical in _ELEMENT_BYTES else ()
    return Modelled("dtype", f"{module}.{canonical}", module, attributes)


def device_value(kind: str = "cpu") -> Modelled:
    return Modelled("device", f"torch.device({kind!r})", "torch", (("type", kind), ("index", None)))


def is_array_class(name: str | None) -> bool:
    """``torch.Tensor``, ``np.ndarray`` (a name or an annotation naming it first): a class whose instances the evaluator models."""
    value = library_value(name)
    return value is not None and value.is_array


def tests_array_class(tree: ast.expr) -> bool:
    """Whether an ``isinstance`` of ``tree`` names such a class (``isinstance(x, torch.Tensor)``)."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id == "isinstance" and len(node.args) == 2]
    classes = [c for call in calls for c in (call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]])]
    return any(is_array_class(dotted_name(c)) for c in classes)


def array_value(module: str, shape: tuple[int, ...] = TENSOR_SHAPE, dtype: Modelled | None = None, contiguous: bool = True) -> Modelled:
    """A CPU tensor (``module`` "torch") or a numpy array of ``shape``, of ``dtype`` (None: the
    library's default); ``contiguous`` False: a 2-d tensor's transpose (``torch.empty(3, 2).t()``)."""
    default = "torch.float32" if module == "torch" else "numpy.float64"
    dtype = dtype if dtype is not None else dtype_value(default)
    assert dtype is not None  # (the default is in the table)
    sizes = ", ".join(map(str, shape))
    written = f"torch.empty({sizes or '()'}" if module == "torch" else f"numpy.zeros(({sizes}{',' if len(shape) == 1 else ''})"
    code = written + (f", dtype={dtype.code})" if dtype.code != default else ")")
    if not contiguous:
        shape = (2, 3)
        code = f"torch.empty(3, 2{f', dtype={dtype.code}' if dtype.code != default else ''}).t()"
    attributes: tuple[tuple[str, Any], ...] = (("shape", TorchSize(shape) if module == "torch" else tuple(shape)), ("ndim", len(shape)),
                                               ("dtype", dtype))
    if module == "torch":
        attributes += (("device", device_value()), ("is_cuda", False), ("is_cpu", True), ("is_sparse", False), ("is_meta", False),
                       ("is_quantized", False), ("requires_grad", False))
    return Modelled("Tensor" if module == "torch" else "ndarray", code, module, attributes)


def library_values(annotation: str | None) -> list[Modelled]:
    """Values of a library type the annotation names, for the search: tensors or arrays of
    1, 2 and 3 dimensions (``x.dim() != 2``), dtypes (``x.dtype != torch.float16``)."""
    first = library_value(annotation)
    if first is None:
        return []
    if first.is_array:
        shaped = [array_value(first.module, shape) for shape in ((4,), (), (0,), (2, 3, 4))]
        return [first, *shaped, *([array_value("torch", contiguous=False)] if first.module == "torch" else [])]
    if first.kind == "dtype":
        return [first, *filter(None, map(dtype_value, ("torch.float16", "torch.bfloat16", "torch.int64", "torch.int8")))]
    return [first]


def near_dtypes(value: Modelled) -> list[Modelled]:
    """A dtype a guard compares with, and others of its library (``x.dtype != torch.float16``: float32)."""
    names = ("float32", "float16", "bfloat16", "int64", "int8") if value.module == "torch" else ("float64", "float32", "int64")
    return [value, *(d for name in names if (d := dtype_value(f"{value.module}.{name}")) is not None and d.code != value.code)]


def library_value(annotation: str | None) -> Modelled | None:
    """A value of a library type the annotation names first (``torch.Tensor | None``: a
    tensor), or None: a tensor, a numpy array, a dtype, a device, a path, a function."""
    for name in _annotation_names(annotation):
        head, _, rest = name.partition(".")
        module = LIBRARIES.get(head)
        if module == "torch" and rest in ("Tensor", "nn.Parameter"):
            return array_value("torch")
        if module == "numpy" and rest in ("ndarray", "typing.NDArray", "NDArray"):
            return array_value("numpy")
        if module == "torch" and rest == "dtype":
            return dtype_value("torch.float32")
        if module == "torch" and rest == "device":
            return device_value()
        if name in _PATH_TYPES:
            return path_value()
        if name in _CALLABLE_TYPES:
            return callable_value()
    return None


def callable_value() -> Modelled:
    """A function that takes any arguments and returns None (``lambda *args, **kwargs: None``),
    for a parameter declared ``Callable``: what ``cb is not None`` and ``callable(cb)`` hold for."""
    return Modelled("Callable", "lambda *args, **kwargs: None", "builtins")


_CALLABLE_TYPES = frozenset({"Callable", "typing.Callable", "collections.abc.Callable", "abc.Callable"})


def instance_value(annotation: str | None) -> Modelled | None:
    """A plain instance of a library class the annotation names (``torch.nn.Module``:
    ``torch.nn.Module()``), for a parameter nothing reads before the raise; else None. Only
    the absolute name counts: ``nn.Module`` may be another library's."""
    for name in _annotation_names(annotation):
        if name == "torch.nn.Module":
            return Modelled("Module", "torch.nn.Module()", "torch")
    return None


def path_value(text: str = "data.txt") -> Modelled:
    """A relative path (``pathlib.Path('data.txt')``): its parts the evaluator reads (``name``,
    ``suffix``, ``stem``, ``parts``) and ``str``/``repr`` print; nothing of it touches the disk."""
    pure = PurePosixPath(text)
    attributes = (("name", pure.name), ("suffix", pure.suffix), ("stem", pure.stem), ("parts", pure.parts))
    return Modelled("Path", f"pathlib.Path({text!r})", "pathlib", attributes)


def _annotation_names(annotation: str | None) -> list[str]:
    if not annotation:
        return []
    text = annotation.strip().strip("'\"")
    return [part.strip().removeprefix("Optional[").split("[", 1)[0].strip(" ]") for part in text.replace("Union[", "").split("|")
            for part in part.split(",")]


def modelled_text(value: Modelled, conversion: str | None) -> str | None:
    """What ``str``/``repr`` (``conversion`` "r") print for a modelled value, where the model
    says: a torch dtype (``torch.float32``) and a device (``cpu``, ``device(type='cpu')``); None
    for a tensor or an array (their elements) and a numpy dtype."""
    if value.kind == "dtype" and value.module == "torch":
        return value.code
    if value.kind == "device":
        kind = value.attribute("type")
        return f"device(type={kind!r})" if conversion == "r" else kind
    if value.kind == "Path":
        text = "/".join(value.attribute("parts"))
        return f"PosixPath({text!r})" if conversion == "r" else text
    return None


def array_method(value: Modelled, method: str, args: list[Any], shape: Any = None) -> Any:
    """``x.dim()``, ``x.size()``, ``x.size(1)``, ``x.numel()``, ``x.stride()``,
    ``x.stride(0)``, ``x.is_contiguous()``, ``x.element_size()``, ``x.is_floating_point()`` of
    a modelled tensor or array; AttributeError for another. ``shape``: the ``x.shape`` the
    trigger gives beside ``x`` (the example builds ``x`` with it: ``fold_arrays``), which the
    sizes and strides are of, where ``x`` is contiguous."""
    contiguous = not value.code.endswith(".t()")
    own = value.attribute("shape")
    shape = own if shape is None or not contiguous else shape
    if method == "dim" and not args:
        return len(shape)
    if method == "size" and value.kind == "Tensor" and len(args) <= 1:
        return shape[args[0]] if args else shape
    if method == "numel" and not args:
        return math.prod(shape)
    if method == "stride" and value.kind == "Tensor" and len(args) <= 1:
        strides = _strides(shape) if contiguous else (1, own[0])  # (``torch.empty(3, 2).t()``: (1, 2))
        return strides[args[0]] if args else strides
    if method == "is_contiguous" and not args:
        return contiguous
    if method == "element_size" and value.kind == "Tensor" and not args:
        return _ELEMENT_BYTES[value.attribute("dtype").code.removeprefix("torch.")]
    if method == "is_floating_point" and not args:
        return value.attribute("dtype").attribute("is_floating_point")
    raise AttributeError(f"{value.kind}.{method} is not modelled")


def _strides(shape: Any) -> tuple[int, ...]:
    """A contiguous tensor's strides: each size's step, in elements (``(2, 3, 4)``: ``(12, 4, 1)``)."""
    strides, step = [], 1
    for size in reversed(tuple(shape)):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


ARRAY_METHODS = frozenset({"dim", "size", "numel", "stride", "is_contiguous", "element_size", "is_floating_point"})
# The bytes of one element of each torch dtype (``x.element_size()``)
_ELEMENT_BYTES = {"float64": 8, "int64": 8, "complex128": 16, "complex64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2,
                  "int16": 2, "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1,
                  "float8_e5m2fnuz": 1}


def frame_annotations(frame: Any) -> dict[str, str | None]:
    """The annotations of a card's parameters and of its inputs' declared domains (a ``Frame``)."""
    return {**{p.name: p.annotation for p in frame.ctx.signature.params}, **{n: d.annotation for n, d in frame.domains.items()}}


def own_shapes(variables: Iterable[Any], annotations: Mapping[str, str | None]) -> None:
    """Each declared tensor's shape candidates (``Variable``s named ``x.shape``) as ``torch.Size``:
    ``x.shape == (n, 2)`` holds for one, ``x.shape == [n, 2]`` never does, and a message shows it as
    torch prints it; a numpy array's as tuples."""
    for variable in variables:
        base = variable.name.removesuffix(".shape")
        model = library_value(annotations.get(base)) if base != variable.name else None
        if model is not None and model.is_array:
            kind = TorchSize if model.module == "torch" else tuple
            variable.candidates = [kind(v) if isinstance(v, (list, tuple)) else v for v in variable.candidates]


MAX_FOLDED_ELEMENTS = 1 << 16  # a tensor an example builds holds at most this many elements (256 KiB of float32)


def _small(shape: list[Any] | tuple[Any, ...]) -> bool:
    """Sizes of a tensor small enough to build in an example: ``[0, 0, 128]``, ``[1, 4096]``."""
    if not all(type(n) is int and n >= 0 for n in shape):
        return False
    return math.prod(shape) <= MAX_FOLDED_ELEMENTS and max(shape, default=0) <= MAX_FOLDED_ELEMENTS


def fold_arrays(values: dict[str, Any], annotations: Mapping[str, str | None]) -> dict[str, Any]:
    """``values`` where a modelled tensor or array ``x`` is built with the ``x.shape``,
    ``x.ndim`` and ``x.dtype`` the values give (``x.shape = [1, 5]``: ``torch.empty(1, 5)``),
    those entries left out, and an ``x.device`` that is the CPU one it is built on;
    unchanged where they are no sizes, or disagree. ``x`` need not be in ``values`` where
    ``annotations`` (input -> its annotation) declares it a tensor; nor need its shape, where
    the values give it flags only, each the CPU tensor's own (``x.is_cuda = False``: the
    typical tensor). An attribute of a dtype, a device or a path the values give, that value's
    own, is left out too (``x.itemsize = 1`` beside ``x = torch.int8``)."""
    out = dict(values)
    bases = {n.rpartition(".")[0] for n in values if n.endswith((".shape", ".ndim", ".dtype", ".device"))}
    found = {base: modelled for base in sorted(bases)
             if base not in values and (modelled := library_value(annotations.get(base))) is not None}
    # (one the trigger gives flags only, each the CPU tensor's own: ``x.is_cuda = False``)
    flagged = {n.rpartition(".")[0] for n in values if n.endswith(_FLAGS)} - bases - set(values)
    for base in sorted(flagged):
        modelled = library_value(annotations.get(base))
        if modelled is not None and modelled.is_array and all(_has(modelled, flag[1:], values[f"{base}{flag}"])
                                                               for flag in _FLAGS if f"{base}{flag}" in values):
            found[base] = modelled
    for name, value in {**values, **found}.items():
        if not (isinstance(value, Modelled) and value.is_array):
            continue
        ndim = values.get(f"{name}.ndim")
        own = value.attribute("shape")
        # (an ndim the tensor has itself keeps its sizes, as the evaluator reads them: evaluate.expressions._given_shape)
        shape = values.get(f"{name}.shape", own if ndim is None or ndim == len(own) else (1,) * ndim if type(ndim) is int else None)
        ndim = len(shape) if ndim is None and isinstance(shape, (list, tuple)) else ndim
        dtype = values.get(f"{name}.dtype", value.attribute("dtype"))
        if not (isinstance(shape, (list, tuple)) and _small(shape) and ndim == len(shape)
                and isinstance(dtype, Modelled) and dtype.kind == "dtype" and dtype.module == value.module):
            continue
        contiguous = not value.code.endswith(".t()")
        if not contiguous and tuple(shape) != TENSOR_SHAPE:
            continue  # (a transpose is of the one shape it is built with)
        out[name] = array_value(value.module, tuple(shape), dtype, contiguous)
        for attribute in ("shape", "ndim", "dtype"):
            out.pop(f"{name}.{attribute}", None)
        for flag in _FLAGS:  # (``x.is_cuda = False``: what the CPU tensor built has)
            if f"{name}{flag}" in out and _has(out[name], flag[1:], out[f"{name}{flag}"]):
                out.pop(f"{name}{flag}")
        if value.module == "torch" and out.get(f"{name}.device") == device_value():  # (the CPU device it is built on)
            out.pop(f"{name}.device")
    return {name: value for name, value in out.items() if not _own_of_fixed(out, name)}


def _own_of_fixed(values: Mapping[str, Any], name: str) -> bool:
    """Whether ``name`` is an attribute of a dtype, a device or a path the values give, with
    that value's own (``x.itemsize = 1`` beside ``x = torch.int8``): building ``x`` gives it."""
    base, _, attribute = name.rpartition(".")
    model = values.get(base) if base else None
    return isinstance(model, Modelled) and model.fixed and owns(model, attribute, values[name])


def owns(model: Modelled, attribute: str, value: Any) -> bool:
    """Whether ``value`` is the model's own ``attribute``, of its type too (``True`` is no itemsize
    of 1); false for an attribute the model does not give: no such value is known to have it."""
    own = dict(model.attributes).get(attribute, _ABSENT)
    return type(own) is type(value) and bool(own == value)


_ABSENT = object()


def _has(model: Modelled, attribute: str, value: Any) -> bool:
    """Whether the model's own ``attribute`` is ``value``."""
    try:
        return bool(model.attribute(attribute) is value)
    except AttributeError:
        return False
