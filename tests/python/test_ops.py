# SPDX-License-Identifier: Apache-2.0
"""Every operation against numpy / scipy oracles on random inputs, in GraphBLAS semantics
(absent entries, masks, accumulators, replace), and the planner's what-if queries."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

import spindle

from conftest import random_csr

INF = math.inf

# name: (add, multiply, identity) over Python floats
SEMIRINGS = {
    "plus_times": (lambda a, b: a + b, lambda a, b: a * b, 0.0),
    "min_plus": (min, lambda a, b: a + b, INF),
    "max_plus": (max, lambda a, b: a + b, -INF),
    "max_times": (max, lambda a, b: a * b, -INF),
    "min_times": (min, lambda a, b: a * b, INF),
    "plus_min": (lambda a, b: a + b, min, 0.0),
    "lor_land": (lambda a, b: float(a != 0 or b != 0), lambda a, b: float(a != 0 and b != 0), 0.0),
    "any_pair": (lambda a, b: a if a != 0 else b, lambda a, b: 1.0, 0.0),
    "plus_pair": (lambda a, b: a + b, lambda a, b: 1.0, 0.0),
    "max_min": (max, min, -INF),
}
EXACT = {"min_plus", "max_plus", "max_times", "min_times", "lor_land", "any_pair", "max_min",
         "plus_pair"}


def random_vector(rng, n, absent=0.3, dtype=np.float64):
    """(spindle.Vector, values, present) with a fraction of absent entries."""
    values = (rng.random(n) * 2 - 1).astype(dtype)
    present = rng.random(n) >= absent
    v = spindle.vector(np.ma.MaskedArray(values, mask=~present))
    return v, values, present


def oracle_mxv(A, u, present, semiring, transpose=False):
    """(t values, t present) of t = A ⊕.⊗ u over the stored entries with u present."""
    add, mul, _ = SEMIRINGS[semiring]
    A = sp.csr_array(A.T if transpose else A)
    n = A.shape[0]
    t = np.zeros(n)
    tp = np.zeros(n, dtype=bool)
    for i in range(n):
        acc = None
        for k in range(A.indptr[i], A.indptr[i + 1]):
            j = A.indices[k]
            if present[j]:
                term = mul(float(A.data[k]), float(u[j]))
                acc = term if acc is None else add(acc, term)
        if acc is not None:
            t[i], tp[i] = acc, True
    return t, tp


def oracle_write(w_old, wp_old, t, tp, mask_sel, accum=None, replace=False):
    """GraphBLAS's w<mask> = accum(w, t)."""
    w, wp = w_old.copy(), wp_old.copy()
    for i in range(len(t)):
        if mask_sel[i]:
            if accum is not None and wp_old[i] and tp[i]:
                w[i], wp[i] = accum(w_old[i], t[i]), True
            elif accum is not None and wp_old[i]:
                pass
            else:
                w[i], wp[i] = t[i], tp[i]
        elif replace:
            wp[i] = False
    return w, wp


def check_vector(v, values, present, exact=False):
    got_p = v.present().astype(bool)
    assert np.array_equal(got_p, present), "presence differs"
    got = v.to_numpy(fill=0)[present]
    want = np.asarray(values)[present]
    if exact:
        assert np.array_equal(got, want)
    else:
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("semiring", sorted(SEMIRINGS))
@pytest.mark.parametrize("transpose", [False, True])
def test_mxv_every_semiring_matches_the_oracle(rng, semiring, transpose):
    A = random_csr(rng, 70, 50, density=0.08)
    g = spindle.Graph.from_scipy(A)
    n_in = 70 if transpose else 50
    u, uv, up = random_vector(rng, n_in)
    w = spindle.mxv(None, None, None, semiring, g, u,
                    spindle.Descriptor(transpose_a=transpose))
    t, tp = oracle_mxv(A, uv, up, semiring, transpose)
    check_vector(w, t, tp, exact=semiring in EXACT)


@pytest.mark.parametrize("semiring", ["plus_times", "min_plus", "max_times"])
def test_vxm_matches_the_transposed_oracle(rng, semiring):
    A = random_csr(rng, 40, 55, density=0.1)
    u, uv, up = random_vector(rng, 40)
    w = spindle.vxm(None, None, None, spindle.Semiring and getattr(spindle.semirings, semiring),
                    u, spindle.Graph.from_scipy(A))
    t, tp = oracle_mxv(A, uv, up, semiring, transpose=True)
    check_vector(w, t, tp, exact=semiring != "plus_times")


def test_mxv_full_numpy_input_equals_scipy_product(rng):
    A = random_csr(rng, 200, 150, density=0.05)
    x = rng.random(150)
    w = spindle.mxv(None, None, None, "plus_times", spindle.Graph.from_scipy(A), x)
    ref = A @ x
    nonempty = np.diff(A.indptr) > 0
    assert np.allclose(w.to_numpy(fill=0)[nonempty], ref[nonempty])
    assert not w.present()[~nonempty].any()  # empty rows give absent entries
    f = spindle.mxv(None, None, None, "plus_times", spindle.Graph.from_scipy(A.astype(np.float32)),
                    x.astype(np.float32))
    assert f.dtype == "float32"


@pytest.mark.parametrize("structural", [False, True])
@pytest.mark.parametrize("complement", [False, True])
@pytest.mark.parametrize("replace", [False, True])
def test_masks_accumulators_and_replace_follow_graphblas(rng, structural, complement, replace):
    A = random_csr(rng, 60, density=0.1)
    g = spindle.Graph.from_scipy(A)
    u, uv, up = random_vector(rng, 60, absent=0.2)
    w, wv, wp = random_vector(rng, 60, absent=0.4)
    m, mv, mp = random_vector(rng, 60, absent=0.3)
    mv_for_value = mv.copy()
    mv_for_value[rng.random(60) < 0.3] = 0.0  # zeros: not selected by a value mask
    m = spindle.vector(np.ma.MaskedArray(mv_for_value, mask=~mp))
    sel = mp.copy() if structural else (mp & (mv_for_value != 0))
    if complement:
        sel = ~sel
    t, tp = oracle_mxv(A, uv, up, "plus_times")
    want, want_p = oracle_write(wv, wp, t, tp, sel, accum=lambda a, b: a + b, replace=replace)
    out = spindle.mxv(w, spindle.Mask(m, structural=structural, complement=complement), "plus",
                      "plus_times", g, u, spindle.Descriptor(replace=replace))
    assert out is w
    check_vector(w, want, want_p)


def test_mask_from_a_boolean_array_and_inversion(rng):
    A = random_csr(rng, 30, density=0.2)
    g = spindle.Graph.from_scipy(A)
    x = rng.random(30)
    sel = rng.random(30) < 0.5
    w = spindle.mxv(None, ~spindle.Mask(sel), None, "plus_times", g, x)
    t, tp = oracle_mxv(A, x, np.ones(30, bool), "plus_times")
    want, want_p = oracle_write(np.zeros(30), np.zeros(30, bool), t, tp, ~sel)
    check_vector(w, want, want_p)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mxm_matches_scipy_and_fuses_bias_and_activation(rng, dtype):
    A = random_csr(rng, 90, 70, density=0.06, dtype=dtype)
    g = spindle.Graph.from_scipy(A)
    B = rng.random((70, 8)).astype(dtype)
    C = spindle.mxm(None, None, "plus_times", g, B)
    assert C.dtype == dtype and C.shape == (90, 8)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert np.allclose(C, A @ B, rtol=tol, atol=tol)
    bias = rng.random(8).astype(dtype) - 0.5
    R = spindle.mxm(None, None, "plus_times", g, B, bias=bias, activation="relu")
    assert np.allclose(R, np.maximum(A @ B + bias, 0), rtol=tol, atol=tol)
    Bt = np.ascontiguousarray(B.T)
    T = spindle.mxm(None, None, "plus_times", g, Bt, spindle.Descriptor(transpose_b=True))
    assert np.allclose(T, A @ B, rtol=tol, atol=tol)
    # accumulate into a given C, in place
    C0 = np.ones((90, 8), dtype=dtype)
    out = spindle.mxm(C0, "plus", "plus_times", g, B)
    assert out is C0 and np.allclose(C0, 1 + A @ B, rtol=tol, atol=tol)


def test_mxm_min_plus_gives_the_identity_on_empty_rows(rng):
    A = random_csr(rng, 30, 20, density=0.1)
    B = rng.random((20, 3))
    C = spindle.mxm(None, None, "min_plus", spindle.Graph.from_scipy(A), B)
    for i in range(30):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        if lo == hi:
            assert np.all(C[i] == INF)
        else:
            want = np.min(A.data[lo:hi, None] + B[A.indices[lo:hi]], axis=0)
            assert np.array_equal(C[i], want)


def test_sddmm_matches_the_sampled_dense_product(rng):
    S = random_csr(rng, 40, 30, density=0.1)
    X = rng.random((40, 6))
    Y = rng.random((30, 6))
    vals = spindle.sddmm(None, None, "plus_times", spindle.Graph.from_scipy(S), X, Y)
    rows = np.repeat(np.arange(40), np.diff(S.indptr))
    want = S.data * np.einsum("kc,kc->k", X[rows], Y[S.indices])
    assert np.allclose(vals, want)
    Yt = np.ascontiguousarray(Y.T)
    vt = spindle.sddmm(None, None, "plus_times", spindle.Graph.from_scipy(S), X, Yt,
                       spindle.Descriptor(transpose_b=True))
    assert np.allclose(vt, want)
    out = np.full(S.nnz, 2.0)
    spindle.sddmm(out, "plus", "plus_times", spindle.Graph.from_scipy(S), X, Y)
    assert np.allclose(out, 2 + want)


OPS = {
    "plus": np.add, "minus": np.subtract, "times": np.multiply, "min": np.minimum,
    "max": np.maximum, "first": lambda a, b: a, "second": lambda a, b: b,
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_ewise_add_and_mult_on_present_entries(rng, op):
    u, uv, up = random_vector(rng, 50)
    v, vv, vp = random_vector(rng, 50)
    f = OPS[op]
    both = up & vp
    add = spindle.ewise_add(None, None, None, op, u, v)
    want = np.where(both, f(uv, vv), np.where(up, uv, vv))
    check_vector(add, want, up | vp)
    mult = spindle.ewise_mult(None, None, None, op, u, v)
    check_vector(mult, f(uv, vv), both)


def test_ewise_on_int_vectors_and_dense_matrices(rng):
    a = rng.integers(-5, 5, 20)
    b = rng.integers(-5, 5, 20)
    r = spindle.ewise_add(None, None, None, "times", a, b)
    assert r.dtype == "int64" and np.array_equal(np.asarray(r), a * b)
    A = rng.random((4, 5))
    B = rng.random((4, 5))
    assert np.allclose(spindle.ewise_mult(None, None, None, "max", A, B), np.maximum(A, B))


UNARY = {
    "abs": np.abs, "ainv": np.negative, "one": np.ones_like, "relu": lambda x: np.maximum(x, 0),
    ("times_scalar", 0.85): lambda x: x * 0.85, ("plus_scalar", 2.0): lambda x: x + 2.0,
    ("max_scalar", 0.1): lambda x: np.maximum(x, 0.1), ("min_scalar", 0.1): lambda x: np.minimum(x, 0.1),
    "is_nonzero": lambda x: (x != 0).astype(float),
}


@pytest.mark.parametrize("op", list(UNARY), ids=str)
def test_apply_unary_operators(rng, op):
    u, uv, up = random_vector(rng, 40)
    check_vector(spindle.apply(None, None, None, op, u), UNARY[op](uv), up)


def test_apply_rowindex_dense_and_graph(rng):
    u, uv, up = random_vector(rng, 30)
    check_vector(spindle.apply(None, None, None, ("rowindex", 10), u), np.arange(30) + 10.0, up)
    D = rng.random((3, 4)) - 0.5
    assert np.allclose(spindle.apply(None, None, None, "abs", D), np.abs(D))
    A = random_csr(rng, 20, density=0.2)
    h = spindle.apply(None, None, None, ("times_scalar", 3.0), spindle.Graph.from_scipy(A))
    assert np.allclose(h.to_scipy().toarray(), 3 * A.toarray())
    with pytest.raises(spindle.InvalidArgument):
        spindle.apply(None, None, None, "bogus", u)


@pytest.mark.parametrize("monoid,f,ident", [
    ("plus", np.sum, 0.0), ("times", np.prod, 1.0), ("min", np.min, INF), ("max", np.max, -INF)])
def test_reduce_monoids(rng, monoid, f, ident):
    u, uv, up = random_vector(rng, 64)
    assert np.isclose(spindle.reduce(monoid, u), f(uv[up]))
    assert spindle.reduce(monoid, spindle.Vector.empty(5)) == ident
    ints = rng.integers(1, 4, 10)
    assert spindle.reduce(monoid, ints) == f(ints)


def test_reduce_rows_and_l1_distance(rng):
    A = random_csr(rng, 50, 40, density=0.1)
    g = spindle.Graph.from_scipy(A)
    rows = np.diff(A.indptr) > 0
    check_vector(spindle.reduce_rows(None, None, None, "plus", g), A.sum(axis=1), rows)
    mx = np.array([A.data[A.indptr[i]:A.indptr[i + 1]].max() if rows[i] else 0 for i in range(50)])
    check_vector(spindle.reduce_rows(None, None, None, "max", g), mx, rows, exact=True)
    cols = spindle.reduce_rows(None, None, None, "plus", g, spindle.Descriptor(transpose_a=True))
    check_vector(cols, A.sum(axis=0), np.bincount(A.indices, minlength=40) > 0)
    a, b = rng.random(10), rng.random(10)
    assert np.isclose(spindle.l1_distance(a, b), np.abs(a - b).sum())


def test_assign_scalars_vectors_indices_and_masks(rng):
    w = spindle.Vector.full(10, 1.0)
    spindle.assign(w, None, None, 5.0, [2, 4, 4])
    assert np.asarray(w).tolist() == [1, 1, 5, 1, 5, 1, 1, 1, 1, 1]
    spindle.assign(w, None, "plus", 1.0)
    assert np.asarray(w).tolist() == [2, 2, 6, 2, 6, 2, 2, 2, 2, 2]
    sel = np.zeros(10, bool)
    sel[:3] = True
    spindle.assign(w, spindle.Mask(sel), None, 0.0)
    assert np.asarray(w).tolist() == [0, 0, 0, 2, 6, 2, 2, 2, 2, 2]
    spindle.assign(w, None, None, np.array([7.0, 8.0, 9.0]), [1, 1, 3])  # last one wins
    assert w[1] == 8.0 and w[3] == 9.0
    e = spindle.Vector.empty(4, "int64")
    spindle.assign(e, None, None, 3, [1])
    assert e[1] == 3 and e[0] is None and e.nvals == 1
    v = spindle.Vector.full(4, 2.0)
    spindle.assign(v, None, None, np.ma.MaskedArray([1.0, 1.0, 1.0, 1.0], mask=[0, 1, 0, 1]))
    assert [v[i] for i in range(4)] == [1.0, None, 1.0, None]


def test_scale_is_diagonal_scaling(rng):
    A = random_csr(rng, 20, 15, density=0.2)
    left, right = rng.random(20), rng.random(15)
    s = spindle.scale(left, spindle.Graph.from_scipy(A), right)
    assert np.allclose(s.to_scipy().toarray(), np.diag(left) @ A.toarray() @ np.diag(right))


def test_vector_protocols(rng):
    v = spindle.vector([1.0, 2.0, 3.0])
    assert np.array_equal(np.asarray(v), [1.0, 2.0, 3.0])
    assert np.array_equal(np.from_dlpack(v), [1.0, 2.0, 3.0])
    assert list(v) == [1.0, 2.0, 3.0] and len(v) == 3 and v[-1] == 3.0
    s = spindle.Vector.empty(3)
    with pytest.raises(spindle.InvalidArgument, match="absent"):
        np.asarray(s)
    m = spindle.vector(np.ma.MaskedArray([1, 2, 3], mask=[0, 1, 0]))
    assert m.dtype == "int64" and m.nvals == 2
    assert m.to_masked().mask.tolist() == [False, True, False]
    assert m.to_numpy(fill=-1).tolist() == [1, -1, 3]
    assert spindle.vector(m, np.float32).dtype == "float32"
    assert "nvals=2" in repr(m) and m.residency == "host"
    assert spindle.Vector.from_numpy(np.arange(4, dtype=np.int32)).dtype == "int32"
    with pytest.raises(IndexError):
        v[3]


def test_semiring_objects_and_names():
    assert [s.name for s in spindle.semirings][:2] == ["plus_times", "min_plus"]
    assert spindle.semirings.min_plus.identity == INF
    with pytest.raises(spindle.InvalidArgument, match="known"):
        spindle.mxv(None, None, None, "nope", spindle.Graph.from_edges([0], [1]), [1.0, 1.0])


def test_plans_name_a_kernel_a_device_and_a_reason(rng):
    g = spindle.Graph.from_scipy(random_csr(rng, 500, density=0.02))
    p = spindle.plan_for_mxv(g)  # for this machine: its GPU when it has one
    here = "cuda" if spindle.cuda_available() else "cpu"
    assert p.op == "mxv" and p.device == here and p.kernel and p.reason
    h = spindle.plan_for_vxm(g, "min_plus", target="reference_hopper")
    assert h.device == "cuda" and h.op == "vxm" and h.reason
    m = spindle.plan_for_mxm(g, 64, target="reference_hopper")
    assert m.op == "mxm" and m.device == "cuda"
    s = spindle.plan_for_sddmm(g, 32, target=spindle.reference_hopper_caps())
    assert s.op == "sddmm" and s.device == "cuda"
    forced = spindle.plan_for_mxv(g, target="reference_hopper",
                                  desc=spindle.Descriptor(mxv_kernel="merge_path"))
    assert forced.forced and forced.kernel == "merge_path"
    assert "merge_path" in str(forced) and "spindle.Plan" in repr(forced)
    text = spindle.explain(g)
    assert "mxv" in text and "sddmm" in text and "why:" in text and here in text
    with pytest.raises(spindle.InvalidArgument):
        spindle.Descriptor(mxv_kernel="no_such_kernel")
