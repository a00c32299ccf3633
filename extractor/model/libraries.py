"""The names of library values the solver models (solve.arrays), shared with collecting.

A dtype is written ``torch.float16``, ``torch.half`` (the same dtype) or ``np.float32``: a
module constant built of such names (``SUPPORTED = (torch.float16, torch.bfloat16)``) keeps
its source (collect.constants), which the solver evaluates to the dtypes' models.
"""

from __future__ import annotations

TORCH_DTYPES = {
    **{name: name for name in ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                               "complex64", "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")},
    "half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32", "long": "int64",
    "cfloat": "complex64", "cdouble": "complex128",
}
NUMPY_DTYPES = {name: name for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
                                        "complex64", "complex128")}
# (the name code writes -> the module an example imports; ``npt``: ``numpy.typing``, whose ``NDArray`` is an array)
LIBRARIES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "npt": "numpy"}


def dtype_of(chain: str) -> tuple[str, str] | None:
    """``torch.half`` -> ``("torch", "float16")``: the library and canonical name of the dtype a dotted name writes, or None."""
    head, _, name = chain.partition(".")
    module = LIBRARIES.get(head)
    table = TORCH_DTYPES if module == "torch" else NUMPY_DTYPES if module == "numpy" else {}
    canonical = table.get(name)
    return (module, canonical) if module is not None and canonical is not None else None
