# SPDX-License-Identifier: Apache-2.0
"""Spindle's operations in GraphBLAS argument order, and the planner's what-if queries.

Every operation writes ``w<mask> = accum(w, t)``: ``t`` is what the operation computes; where
the mask selects an entry, ``w`` takes ``accum(w, t)`` (or ``t`` without an accumulator, an
absent ``t`` removing the entry); elsewhere ``w`` keeps its entry, or loses it with
``Descriptor(replace=True)``. ``w`` may be None: a new output is made (empty when a mask or an
accumulator needs an old value) and returned.
"""

import numpy as np

from . import _core
from ._arrays import device_capsule, host_array, is_device_array, like, real_dtype
from ._errors import DimensionMismatch, InvalidArgument
from ._graph import Graph

__all__ = [
    "Semiring",
    "Mask",
    "semirings",
    "vector",
    "mxv",
    "vxm",
    "mxm",
    "sddmm",
    "ewise_add",
    "ewise_mult",
    "apply",
    "reduce",
    "reduce_rows",
    "l1_distance",
    "assign",
    "scale",
    "plan_for_mxv",
    "plan_for_vxm",
    "plan_for_mxm",
    "plan_for_sddmm",
    "explain",
]

_VECTOR_DTYPES = ("float32", "float64", "int32", "int64")


class Semiring:
    """A built-in semiring: ``add`` (a commutative monoid with ``identity``) and ``multiply``.

    Operations take a semiring by name (``"min_plus"``) or as one of these objects
    (``spindle.semirings.min_plus``). Built-ins:

    ============ ===== ======== ========= ================================================
    name         add   multiply identity  typical use
    ============ ===== ======== ========= ================================================
    plus_times   +     *        0         SpMV, PageRank, GCN aggregation
    min_plus     min   +        +inf      shortest paths
    max_plus     max   +        -inf      longest / critical paths
    max_times    max   *        -inf      most reliable path
    min_times    min   *        +inf
    plus_min     +     min      0
    lor_land     or    and      0         reachability over {0, 1}
    any_pair     any   pair(1)  0         BFS: "is there any edge"
    plus_pair    +     pair(1)  0         counting neighbours (degrees, triangles)
    max_min      max   min      -inf      widest / bottleneck paths
    ============ ===== ======== ========= ================================================
    """

    __slots__ = ("name", "add", "multiply", "identity")

    def __init__(self, name, add, multiply, identity):
        self.name = name
        self.add = add
        self.multiply = multiply
        self.identity = identity

    def __repr__(self):
        return f"spindle.semirings.{self.name}"

    def __eq__(self, other):
        return isinstance(other, Semiring) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class _Semirings:
    """The built-in semirings as objects (see spindle.Semiring)."""

    def __init__(self):
        inf = float("inf")
        for name, add, mul, ident in (
            ("plus_times", "plus", "times", 0.0),
            ("min_plus", "min", "plus", inf),
            ("max_plus", "max", "plus", -inf),
            ("max_times", "max", "times", -inf),
            ("min_times", "min", "times", inf),
            ("plus_min", "plus", "min", 0.0),
            ("lor_land", "lor", "land", 0.0),
            ("any_pair", "any", "pair", 0.0),
            ("plus_pair", "plus", "pair", 0.0),
            ("max_min", "max", "min", -inf),
        ):
            setattr(self, name, Semiring(name, add, mul, ident))

    def __iter__(self):
        return iter(v for v in vars(self).values() if isinstance(v, Semiring))

    def __repr__(self):
        return "spindle.semirings(" + ", ".join(s.name for s in self) + ")"


semirings = _Semirings()


def _semiring_name(s):
    if isinstance(s, Semiring):
        return s.name
    if isinstance(s, str):
        if not hasattr(semirings, s):
            known = ", ".join(x.name for x in semirings)
            raise InvalidArgument(f"unknown semiring {s!r} (known: {known})")
        return s
    raise InvalidArgument(f"a semiring is a name or a spindle.Semiring, got {type(s).__name__}")


class Mask:
    """A write mask over an output vector.

    ``Mask(m)`` selects the entries where ``m`` is present and nonzero (a value mask);
    ``structural=True`` selects where ``m`` is present, whatever its value; ``complement=True``
    (or ``~mask``) selects exactly the other entries. ``m`` is a spindle.Vector or anything
    spindle.vector() takes (a numpy boolean array is a value mask). A Vector given directly as
    an operation's mask is a value mask.
    """

    __slots__ = ("vector", "structural", "complement")

    def __init__(self, m, *, structural=False, complement=False):
        self.vector = m if isinstance(m, _core.Vector) else vector(
            np.asarray(m).astype(np.int64) if np.asarray(m).dtype == bool else m)
        self.structural = bool(structural)
        self.complement = bool(complement)

    def __invert__(self):
        return Mask(self.vector, structural=self.structural, complement=not self.complement)

    def __repr__(self):
        kind = "structural" if self.structural else "value"
        return f"<spindle.Mask {kind}{', complemented' if self.complement else ''} {self.vector!r}>"


def _mask_args(mask):
    if mask is None:
        return None, False, False
    if not isinstance(mask, Mask):
        mask = Mask(mask)
    return mask.vector, mask.structural, mask.complement


def _desc(desc):
    if desc is None:
        return _core.Descriptor()
    if not isinstance(desc, _core.Descriptor):
        raise InvalidArgument(f"desc must be a spindle.Descriptor, got {type(desc).__name__}")
    return desc


def _accum(accum):
    if accum is None or isinstance(accum, str):
        return accum
    raise InvalidArgument(f"accum is None or a binary operator name ('plus', 'min', ...), got "
                          f"{accum!r}")


def _graph(A):
    return A if isinstance(A, Graph) else Graph._from_any(A)


def vector(x, dtype=None):
    """A spindle.Vector from an array-like (numpy, a DLPack tensor such as torch, a list),
    a numpy masked array (masked entries are absent), or a Vector (returned as it is, or
    converted to `dtype`). Element types: float32, float64, int32, int64 (other integers and
    booleans become int64, other floats float64)."""
    if isinstance(x, _core.Vector):
        if dtype is None or np.dtype(dtype).name == x.dtype:
            return x
        present = x.present()
        values = x.to_numpy(fill=0).astype(np.dtype(dtype))
        return _core.Vector._from_arrays(values, present, np.dtype(dtype).name)
    cap = _device_vector_capsule(x, dtype)
    if cap is not None:  # a CUDA tensor: copied on the device
        return _core.Vector._from_device(cap)
    present = None
    if isinstance(x, np.ma.MaskedArray):
        present = np.ascontiguousarray(~np.ma.getmaskarray(x), dtype=np.uint8)
        x = np.ma.getdata(x)
    arr = host_array(x, ndim=1, name="a vector")
    name = _vector_dtype(arr.dtype if dtype is None else np.dtype(dtype))
    arr = np.ascontiguousarray(arr, dtype=name)
    return _core.Vector._from_arrays(arr, present, name)


def _device_vector_capsule(x, dtype):
    """A capsule of a CUDA tensor converted to a vector dtype on the device, or None."""
    if not is_device_array(x):
        return None
    if dtype is None:
        try:
            dtype = _vector_dtype(str(getattr(x, "dtype", None)).replace("torch.", ""))
        except (TypeError, InvalidArgument):
            return None  # bfloat16 and the like: staged through the host
    return device_capsule(x, _vector_dtype(dtype), ndim=1, name="a vector")


def _vector_dtype(d):
    d = np.dtype(d)
    if d.name in _VECTOR_DTYPES:
        return d.name
    if d.kind in "iub":
        return "int64"
    if d.kind == "f":
        return "float64"
    raise InvalidArgument(f"a vector holds float32, float64, int32 or int64, not {d}")


def _real_vector(x, dtype=None):
    """A float32 / float64 Vector (integers become float64)."""
    if isinstance(x, _core.Vector) and dtype is None:
        if x.dtype in ("float32", "float64"):
            return x
        return vector(x, np.float64)
    v = vector(x, dtype)
    return v if v.dtype in ("float32", "float64") else vector(v, np.float64)


def _output(w, dtype, size):
    """The output vector: w itself, or a new one of `size` absent entries."""
    if w is None:
        return _core.Vector.empty(size, dtype)
    if not isinstance(w, _core.Vector):
        raise InvalidArgument(
            f"the output w must be a spindle.Vector or None, got {type(w).__name__} (a numpy "
            "array cannot be updated in place: pass None and read the result)"
        )
    if w.dtype != dtype:
        raise InvalidArgument(f"the output has dtype {w.dtype}, the operation computes {dtype}")
    return w


def mxv(w, mask, accum, semiring, A, u, desc=None):
    """``w<mask> = accum(w, A ⊕.⊗ u)``: ``t(i) = ⊕_j A(i,j) ⊗ u(j)`` over the stored ``A(i,j)``
    whose ``u(j)`` is present (absent when there is none). GrB_mxv.

    Parameters
    ----------
    w : spindle.Vector or None
        Output (also an input with a mask or an accumulator); None makes a new one.
    mask : spindle.Mask, Vector, array-like or None
    accum : str or None
        A binary operator name ('plus', 'min', 'max', 'times', 'first', 'second', ...).
    semiring : str or spindle.Semiring
    A : spindle.Graph (or a scipy sparse matrix / networkx graph, converted for this call)
        With ``desc.transpose_a`` A^T is used (its cached transpose).
    u : spindle.Vector or array-like, float32 / float64 (integers become float64)
    desc : spindle.Descriptor, optional

    Returns the output Vector. Results are deterministic (the same bits for any thread count).
    """
    A = _graph(A)
    u = _real_vector(u)
    d = _desc(desc)
    rows = A.ncols if d.transpose_a else A.nrows
    needs_old = mask is not None or accum is not None
    w = _output(w, u.dtype, rows if needs_old else 0)
    m, structural, complement = _mask_args(mask)
    _core._mxv(w, m, structural, complement, _accum(accum), _semiring_name(semiring), A._g, u,
               d, False)
    return w


def vxm(w, mask, accum, semiring, u, A, desc=None):
    """``w<mask> = accum(w, u ⊕.⊗ A)``: ``t(j) = ⊕_i u(i) ⊗ A(i,j)`` (a pull over the cached
    transpose, or a push for frontier semirings on CUDA). GrB_vxm; arguments as in mxv."""
    A = _graph(A)
    u = _real_vector(u)
    d = _desc(desc)
    cols = A.nrows if d.transpose_a else A.ncols
    needs_old = mask is not None or accum is not None
    w = _output(w, u.dtype, cols if needs_old else 0)
    m, structural, complement = _mask_args(mask)
    _core._mxv(w, m, structural, complement, _accum(accum), _semiring_name(semiring), A._g, u,
               d, True)
    return w


def _dense(x, dtype, name):
    """x for the engine: a DLPack capsule of a CUDA tensor (copied on the device), else a host
    array."""
    cap = device_capsule(x, dtype, ndim=2, name=name)
    return cap if cap is not None else host_array(x, dtype, ndim=2, name=name)


def _dense_out(C, accum, dtype):
    """(array given to the engine, array to write back into) for a dense output."""
    if C is None:
        if accum is not None:
            raise InvalidArgument("an accumulator needs the output C (its old values)")
        return None, None
    if not isinstance(C, np.ndarray):
        raise InvalidArgument(f"C must be a numpy array or None, got {type(C).__name__}")
    return np.ascontiguousarray(C, dtype=dtype), C


def _write_back(result, target):
    if target is None:
        return result
    if target.shape != result.shape:
        raise DimensionMismatch(f"C has shape {target.shape}, the result {result.shape}")
    np.copyto(target, result, casting="same_kind")
    return target


def mxm(C, accum, semiring, A, B, desc=None, *, bias=None, activation=None):
    """``C = accum(C, act(A ⊕.⊗ B + bias))``: sparse times dense (SpMM).

    Parameters
    ----------
    C : numpy array or None
        rows(A) x N output, updated in place when given (it must be given with an
        accumulator); None returns a new array.
    accum : str or None
    semiring : str or spindle.Semiring
    A : spindle.Graph
    B : 2-D array-like (numpy, torch, ...), cols(A) x N (N x cols(A) with desc.transpose_b);
        float32 or float64 (others become float64).
    bias : 1-D array-like of N values, optional
        Added to every row before the activation (fused on CUDA: the GCN epilogue).
    activation : str, optional
        A unary operator name applied last ('relu', 'identity', ...).

    Returns C, a numpy array (a torch / cupy array on B's device when B is one: on CUDA, B is
    copied device to device and C is handed over without a copy, no host round trip).
    """
    A = _graph(A)
    B_in = B
    dtype = _dense_real_dtype(B)
    B = _dense(B, dtype, "B")
    c_in, target = _dense_out(C, accum, dtype)
    b = None if bias is None else host_array(bias, dtype, ndim=1, name="bias")
    r = _core._mxm(c_in, _accum(accum), _semiring_name(semiring), A._g, B, _desc(desc), b,
                   activation, 0.0, dtype)
    if target is not None:
        return _write_back(r, target)
    return like(r, B_in)


def _dense_real_dtype(x):
    d = getattr(x, "dtype", None)
    try:
        d = np.dtype(str(d).replace("torch.", "")) if d is not None else np.asarray(x).dtype
    except TypeError:
        d = np.dtype(np.float64)
    return "float32" if d == np.float32 else "float64"


def sddmm(out, accum, semiring, S, X, Y, desc=None):
    """Sampled dense-dense product: for every stored ``S(i,j)``,
    ``out[k] = accum(out[k], S(i,j) ⊗ (⊕_c X(i,c) ⊗ Y(j,c)))`` in S's storage order (aligned
    with ``S.indices``; pattern S contributes 1).

    X is rows(S) x K and Y cols(S) x K (K x cols(S) with desc.transpose_b). Returns the nnz(S)
    values as a numpy array (``out`` updated in place when given); ``S.with_values`` is not
    needed to read them: ``scipy.sparse.csr_array((values, S.indices, S.indptr))``.
    """
    S = _graph(S)
    dtype = _dense_real_dtype(X)
    Xa = _dense(X, dtype, "X")
    Ya = _dense(Y, dtype, "Y")
    o_in, target = None, None
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise InvalidArgument(f"out must be a numpy array or None, got {type(out).__name__}")
        o_in, target = np.ascontiguousarray(out, dtype=dtype), out
    elif accum is not None:
        raise InvalidArgument("an accumulator needs the output (its old values)")
    r = _core._sddmm(o_in, _accum(accum), _semiring_name(semiring), S._g, Xa, Ya, _desc(desc),
                     dtype)
    return _write_back(r, target) if target is not None else r


def _is_dense2d(x):
    return not isinstance(x, _core.Vector) and np.ndim(x) == 2


def _ewise(w, mask, accum, op, u, v, desc, mult):
    if _is_dense2d(u) or _is_dense2d(v):
        if mask is not None:
            raise InvalidArgument("masks apply to vectors; dense matrices have none")
        dtype = _dense_real_dtype(u)
        c_in, target = _dense_out(w, accum, dtype)
        r = _core._ewise_dense(c_in, _accum(accum), op, _dense(u, dtype, "A"),
                               _dense(v, dtype, "B"), _desc(desc), dtype)
        if target is not None:
            return _write_back(r, target)
        # A CUDA operand makes a CUDA result: like the first one (numpy when neither is).
        return like(r, next((x for x in (u, v) if is_device_array(x)), u))
    u = vector(u)
    v = vector(v, u.dtype)
    needs_old = mask is not None or accum is not None
    w = _output(w, u.dtype, u.size if needs_old else 0)
    m, structural, complement = _mask_args(mask)
    _core._ewise(w, m, structural, complement, _accum(accum), op, u, v, _desc(desc), mult)
    return w


def ewise_add(w, mask, accum, op, u, v, desc=None):
    """Union: ``t(i) = op(u(i), v(i))`` where both are present, ``u(i)`` or ``v(i)`` where
    only one is, absent where neither is; then ``w<mask> = accum(w, t)``. GrB_eWiseAdd.

    ``op`` is a binary operator name: first, second, plus, minus, times, div, min, max, lor,
    land, any, pair. Vectors of float32, float64, int32 or int64; with 2-D arrays (dense
    matrices, where every entry is present) it is ``C = accum(C, op(A, B))`` on numpy arrays.
    """
    return _ewise(w, mask, accum, op, u, v, desc, False)


def ewise_mult(w, mask, accum, op, u, v, desc=None):
    """Intersection: ``t(i) = op(u(i), v(i))`` where both are present, absent elsewhere; then
    ``w<mask> = accum(w, t)``. GrB_eWiseMult (arguments as ewise_add)."""
    return _ewise(w, mask, accum, op, u, v, desc, True)


def _unary(op):
    if isinstance(op, str):
        return op, 0.0
    if isinstance(op, tuple) and len(op) == 2 and isinstance(op[0], str):
        return op[0], float(op[1])
    raise InvalidArgument(
        f"a unary operator is a name ('abs', 'relu', ...) or (name, scalar) such as "
        f"('times_scalar', 0.85), got {op!r}"
    )


def apply(w, mask, accum, op, u, desc=None):
    """``t(i) = op(u(i))`` where u(i) is present, then ``w<mask> = accum(w, t)``. GrB_apply.

    ``op``: identity, ainv, minv, abs, one, relu, sqrt, rsqrt, is_nonzero, or a pair
    (name, s) for plus_scalar, times_scalar, min_scalar, max_scalar, div_by_scalar,
    scalar_div; or ('rowindex', s): ``t(i) = i + s`` (GrB_ROWINDEX, u's values unread).

    ``u`` may also be a 2-D array (``w`` then is a numpy array or None: ``C = accum(C,
    op(A))``), or a spindle.Graph: then ``w``, ``mask`` and ``accum`` must be None and a new
    graph with A's structure and values ``op(A(i,j))`` is returned (float64; float32 for a
    float32 graph).
    """
    name, scalar = _unary(op)
    if isinstance(u, Graph) or (not isinstance(u, _core.Vector) and _is_graph_like(u)):
        if w is not None or mask is not None or accum is not None:
            raise InvalidArgument("apply over a graph makes a new graph: w, mask, accum are None")
        A = _graph(u)
        dtype = "float32" if A.value_dtype == np.float32 else "float64"
        return Graph._wrap(_core._apply_graph(name, scalar, A._g, _desc(desc), dtype),
                           A._labels, A._id_base, A._directed)
    if _is_dense2d(u):
        if mask is not None:
            raise InvalidArgument("masks apply to vectors; dense matrices have none")
        dtype = _dense_real_dtype(u)
        c_in, target = _dense_out(w, accum, dtype)
        r = _core._apply_dense(c_in, _accum(accum), name, scalar, _dense(u, dtype, "A"),
                               _desc(desc), dtype)
        return _write_back(r, target) if target is not None else like(r, u)
    u = vector(u)
    needs_old = mask is not None or accum is not None
    w = _output(w, u.dtype, u.size if needs_old else 0)
    m, structural, complement = _mask_args(mask)
    _core._apply(w, m, structural, complement, _accum(accum), name, scalar, u, _desc(desc))
    return w


def _is_graph_like(x):
    from ._graph import _is_networkx_graph, _is_scipy_sparse

    return _is_scipy_sparse(x) or _is_networkx_graph(x)


def reduce(monoid, u, desc=None):
    """The present entries of u folded with a monoid: 'plus', 'times', 'min', 'max', 'lor',
    'land' or 'any' (the identity when none is present). Deterministic: the same bits for any
    thread count. Returns a Python number."""
    return _core._reduce(monoid, vector(u), _desc(desc))


def l1_distance(u, v, desc=None):
    """Sum of ``|u(i) - v(i)|`` over the entries present in both (deterministic)."""
    u = vector(u)
    return _core._l1_distance(u, vector(v, u.dtype), _desc(desc))


def reduce_rows(w, mask, accum, monoid, A, desc=None, *, dtype=None):
    """``t(i) = ⊕_j A(i,j)`` over row i's stored entries (absent for an empty row; columns
    with desc.transpose_a), then ``w<mask> = accum(w, t)``. The output is float64 (or
    `dtype`, float32 / float64, or w's)."""
    A = _graph(A)
    d = _desc(desc)
    if w is not None and dtype is None:
        dtype = w.dtype
    name = real_dtype(dtype)
    size = A.ncols if d.transpose_a else A.nrows
    needs_old = mask is not None or accum is not None
    w = _output(w, name, size if needs_old else 0)
    m, structural, complement = _mask_args(mask)
    _core._reduce_rows(w, m, structural, complement, _accum(accum), monoid, A._g, d)
    return w


def assign(w, mask, accum, value, indices=None, desc=None):
    """``w<mask>(I) = accum(w(I), value)``. GrB_assign.

    ``value`` is a scalar (every index of I gets it) or a vector (``w(I[k])`` gets
    ``value(k)``; without I, ``w<mask> = accum(w, value)`` over all indices). ``indices`` is
    None (all of w) or an integer array I. ``w`` must be a spindle.Vector (it is updated and
    returned). A repeated index in I takes the last value; an absent value(k) removes w(I[k])
    without an accumulator.
    """
    if not isinstance(w, _core.Vector):
        raise InvalidArgument(f"assign updates a spindle.Vector, got {type(w).__name__}")
    idx = None if indices is None else host_array(indices, np.int64, ndim=1, name="indices")
    m, structural, complement = _mask_args(mask)
    if np.ndim(value) == 0 and not isinstance(value, _core.Vector):
        _core._assign_scalar(w, m, structural, complement, _accum(accum), value, idx,
                             _desc(desc))
    else:
        _core._assign_vector(w, m, structural, complement, _accum(accum), vector(value, w.dtype),
                             idx, _desc(desc))
    return w


def scale(left, A, right, desc=None, *, dtype=None):
    """``diag(left) · A · diag(right)``: value (i, j) becomes ``left(i) · A(i,j) · right(j)``
    (None, an absent entry or a size-0 vector: 1). Returns a new graph (float64 by default)."""
    A = _graph(A)
    name = real_dtype(dtype)
    lv = None if left is None else vector(left, name)
    rv = None if right is None else vector(right, name)
    return Graph._wrap(_core._scale(lv, A._g, rv, _desc(desc), name), A._labels, A._id_base,
                       A._directed)


# --- the planner ------------------------------------------------------------------------------


def _target(target):
    if target is None:
        return None
    if isinstance(target, _core.DeviceCaps):
        return target
    if target == "reference_hopper":
        return _core.reference_hopper_caps()
    if target == "cpu":
        return _core.DeviceCaps()
    raise InvalidArgument(
        f"target is None (this machine), 'cpu', 'reference_hopper' or a DeviceCaps, got {target!r}"
    )


def _plan(op, A, semiring, dtype, mask, accum, desc, width, target):
    A = _graph(A)
    m, structural, complement = _mask_args(mask)
    return _core._plan(op, A._g, _semiring_name(semiring), real_dtype(dtype, "float32"), m,
                       structural, complement, _accum(accum), _desc(desc), int(width),
                       _target(target))


def plan_for_mxv(A, semiring="plus_times", *, mask=None, accum=None, desc=None, target=None,
                 dtype="float32"):
    """The plan mxv would use for this call, without running it: a spindle.Plan with the
    kernel, where it runs, its launch parameters and the planner's one-line reason.

    ``target``: None plans for this machine (desc.device resolves as in a call); 'cpu' for no
    GPU; 'reference_hopper' (or a DeviceCaps) for that GPU, so a machine without one can see
    what a GPU would run."""
    return _plan("mxv", A, semiring, dtype, mask, accum, desc, 0, target)


def plan_for_vxm(A, semiring="plus_times", *, mask=None, accum=None, desc=None, target=None,
                 dtype="float32"):
    """The plan vxm would use (mxv's rules over the rows of the cached transpose); see
    plan_for_mxv."""
    return _plan("vxm", A, semiring, dtype, mask, accum, desc, 0, target)


def plan_for_mxm(A, n_cols, semiring="plus_times", *, desc=None, target=None, dtype="float32"):
    """The plan mxm would use for a dense operand ``n_cols`` wide; see plan_for_mxv."""
    return _plan("mxm", A, semiring, dtype, None, None, desc, n_cols, target)


def plan_for_sddmm(S, k, semiring="plus_times", *, desc=None, target=None, dtype="float32"):
    """The plan sddmm would use with inner dimension ``k``; see plan_for_mxv."""
    return _plan("sddmm", S, semiring, dtype, None, None, desc, k, target)


def explain(A, *, semiring="plus_times", width=32, dtype="float32"):
    """What the planner would pick for A on the CPU and on CUDA (this machine's GPU, or a
    reference H100 without one), for mxv, vxm, mxm and sddmm (``width``: the dense operand's
    columns / sddmm's K), as text: the Python side of ``spindle info --explain``."""
    A = _graph(A)
    lines = [f"{A!r}"]
    cuda = _core.device_caps() if _core.cuda_available() else _core.reference_hopper_caps()
    where = ("cuda: " + cuda.name) if _core.cuda_available() else (
        "cuda: no GPU here: planned for a reference H100 SXM (reference_hopper_caps)")
    for title, target in (("cpu", _core.DeviceCaps()), (where, cuda)):
        lines.append(f"  {title}")
        for op, w in (("mxv", 0), ("vxm", 0), ("mxm", width), ("sddmm", width)):
            p = _plan(op, A, semiring, dtype, None, None, None, w, target)
            label = f"{op} {semiring}<{dtype}>" + (f" width {w}" if w else "")
            lines.append(f"    {label:<34} -> {p.kernel} {_params(p)}".rstrip())
            lines.append(f"      why: {p.reason}")
    return "\n".join(lines)


def _params(plan):
    names = {"block_threads": "block", "lanes_per_row": "lanes", "items_per_worker": "items",
             "tile": "tile", "form": "form", "vec": "vec"}
    parts = [f"{names[k]}={v}" for k, v in plan.params.items() if v]
    return ("(" + " ".join(parts) + ")") if parts else ""
