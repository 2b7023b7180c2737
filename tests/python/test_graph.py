# SPDX-License-Identifier: Apache-2.0
"""spindle.Graph: round trips scipy <-> Graph <-> networkx, dtypes, zero-copy views, vertex ids,
files and generators."""

import numpy as np
import pytest
import scipy.sparse as sp

import networkx as nx
import spindle

from conftest import random_csr


def same_matrix(A, B):
    A, B = sp.csr_array(A), sp.csr_array(B)
    return A.shape == B.shape and (A != B).nnz == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_scipy_round_trip_keeps_every_entry_and_the_value_dtype(rng, dtype, fmt):
    A = random_csr(rng, 80, 60, density=0.07, dtype=dtype).asformat(fmt)
    g = spindle.Graph.from_scipy(A)
    assert g.shape == (80, 60)
    assert g.nnz == A.nnz
    assert g.value_dtype == np.dtype(dtype)
    assert g.index_dtype == np.int32
    B = g.to_scipy()
    assert B.dtype == dtype
    assert same_matrix(A, B)


def test_scipy_duplicates_are_summed_and_explicit_zeros_kept():
    A = sp.coo_array((np.array([1.0, 2.0, 0.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))),
                     shape=(2, 2))
    g = spindle.Graph.from_scipy(A)
    assert g.nnz == 2  # (0, 1) merged, (1, 0) an explicit zero kept
    assert g.to_scipy().toarray().tolist() == [[0.0, 3.0], [0.0, 0.0]]
    assert g.indices.tolist() == [1, 0]


def test_index_and_value_dtypes_are_overridable(rng):
    A = random_csr(rng, 30, density=0.2)
    g = spindle.Graph.from_scipy(A, index_dtype="int64", value_dtype="float32")
    assert g.index_dtype == np.int64 and g.value_dtype == np.float32
    assert np.allclose(g.to_scipy().toarray(), A.toarray(), atol=1e-6)
    p = spindle.Graph.from_scipy(A, value_dtype="pattern")
    assert p.is_pattern and p.data is None
    assert same_matrix(p.to_scipy(), (A != 0).astype(np.float64))
    # int64 input indices are kept (no conversion pass)
    A64 = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                       shape=A.shape)
    assert spindle.Graph.from_scipy(A64).index_dtype == np.int64
    # integer and boolean data become float64
    assert spindle.Graph.from_scipy(A.astype(np.int32)).value_dtype == np.float64


def test_csr_views_are_read_only_and_not_copies(rng):
    A = random_csr(rng, 50, density=0.1)
    g = spindle.Graph.from_scipy(A)
    a, b = g.indptr, g.indptr
    assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    for view in (g.indptr, g.indices, g.data):
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[0] = 1
    assert np.array_equal(g.indptr, A.indptr) and np.array_equal(g.indices, A.indices)
    assert np.array_equal(g.data, A.data)
    # a view keeps the graph's storage alive after the graph is gone
    v = g.indices
    del g
    assert np.array_equal(v, A.indices)
    # to_scipy(copy=False) shares those arrays
    g = spindle.Graph.from_scipy(A)
    S = g.to_scipy(copy=False)
    assert np.shares_memory(S.indices, g.indices)


def test_networkx_round_trip_keeps_labels_of_any_hashable_type_and_weights():
    G = nx.DiGraph()
    nodes = ["a", ("t", 1), 7, frozenset({2}), 3.5, b"raw"]
    G.add_nodes_from(nodes)
    G.add_edge("a", ("t", 1), weight=2.5)
    G.add_edge(("t", 1), 7, weight=-1.0)
    G.add_edge(7, "a")  # no weight: default 1
    G.add_edge(b"raw", 3.5, weight=4.0)
    g = spindle.Graph.from_networkx(G, weight="weight")
    assert g.labels == nodes
    assert g.nnz == 4 and g.directed
    H = g.to_networkx()
    assert isinstance(H, nx.DiGraph)
    assert list(H) == nodes
    assert {(u, v): d["weight"] for u, v, d in H.edges(data=True)} == {
        ("a", ("t", 1)): 2.5, (("t", 1), 7): -1.0, (7, "a"): 1.0, (b"raw", 3.5): 4.0}
    assert g.index_of(("t", 1)) == 1 and g.id_of(5) == b"raw"
    assert frozenset({2}) in g and "zz" not in g


def test_undirected_networkx_graphs_store_both_directions_and_come_back_undirected():
    G = nx.Graph([(0, 1), (1, 2), (2, 2)])
    g = spindle.Graph.from_networkx(G)
    assert not g.directed and g.is_pattern and g.labels is None
    A = g.to_scipy().toarray()
    assert (A == A.T).all() and A[2, 2] == 1 and g.nnz == 5
    H = g.to_networkx()
    assert not H.is_directed() and set(H.edges()) == set(G.edges())


def test_scipy_networkx_scipy_round_trip_on_a_random_graph(rng):
    A = random_csr(rng, 40, density=0.1, positive=True)
    g = spindle.Graph.from_scipy(A)
    G = g.to_networkx()
    assert G.number_of_edges() == A.nnz
    B = nx.to_scipy_sparse_array(G, nodelist=range(40), weight="weight", format="csr")
    assert np.allclose(B.toarray(), A.toarray())
    g2 = spindle.Graph.from_networkx(G, weight="weight")
    assert same_matrix(g2.to_scipy(), A)


def test_multigraph_weights_add_up():
    G = nx.MultiDiGraph()
    G.add_edge(0, 1, weight=2.0)
    G.add_edge(0, 1, weight=3.0)
    G.add_edge(1, 0)
    g = spindle.Graph.from_networkx(G, weight="weight")
    assert g.to_scipy().toarray().tolist() == [[0.0, 5.0], [1.0, 0.0]]


def test_nodelist_orders_and_restricts_the_vertices():
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])
    g = spindle.Graph.from_networkx(G, nodelist=["c", "b"])
    assert g.labels == ["c", "b"] and g.nnz == 1
    assert g.to_scipy().toarray().tolist() == [[0.0, 0.0], [1.0, 0.0]]  # b -> c


def test_from_edges_with_integer_ids_labels_weights_and_policies():
    g = spindle.Graph.from_edges([0, 1, 1, 3], [1, 2, 2, 0], n=5)
    assert g.shape == (5, 5) and g.nnz == 3 and g.is_pattern and g.labels is None
    w = spindle.Graph.from_edges([0, 1, 1], [1, 2, 2], weights=[1.0, 2.0, 5.0])
    assert w.to_scipy().toarray()[1, 2] == 7.0  # duplicates summed
    last = spindle.Graph.from_edges([0, 1, 1], [1, 2, 2], weights=[1.0, 2.0, 5.0],
                                    duplicates="last")
    assert last.to_scipy().toarray()[1, 2] == 5.0
    with pytest.raises(spindle.InvalidArgument):
        spindle.Graph.from_edges([0, 1, 1], [1, 2, 2], weights=[1, 2, 3], duplicates="error")
    lab = spindle.Graph.from_edges(["x", "y"], ["y", "z"], directed=False)
    assert lab.labels == ["x", "y", "z"] and lab.nnz == 4 and not lab.directed
    loops = spindle.Graph.from_edges([0, 1], [0, 0], self_loops=False)
    assert loops.nnz == 1
    with pytest.raises(spindle.VertexNotFound):
        spindle.Graph.from_edges([0, 5], [1, 2], n=3)


def test_graph_constructor_accepts_scipy_and_networkx(rng):
    A = random_csr(rng, 10, density=0.3)
    assert spindle.Graph(A).nnz == A.nnz
    assert spindle.Graph(nx.path_graph(4)).nnz == 6
    with pytest.raises(TypeError):
        spindle.Graph([1, 2, 3])


def test_transpose_stats_degrees_and_with_values(rng):
    A = random_csr(rng, 30, 20, density=0.2)
    g = spindle.Graph.from_scipy(A)
    assert not g._g.has_transpose()
    assert same_matrix(g.T.to_scipy(), A.T)
    assert g._g.has_transpose()  # cached
    s = g.stats()
    rows = np.diff(A.indptr)
    assert s["rows"] == 30 and s["nnz"] == A.nnz and s["max_row"] == rows.max()
    assert s["empty_rows"] == int((rows == 0).sum())
    assert np.isclose(s["avg_row"], rows.mean()) and np.isclose(s["stdv_row"], rows.std())
    cols = np.bincount(A.indices, minlength=20)  # this graph is below the sample: exact
    assert np.isclose(s["col_imbalance_est"], cols.std() / cols.mean())
    assert np.array_equal(g.out_degrees(), rows)
    assert np.array_equal(g.in_degrees(), np.bincount(A.indices, minlength=20))
    assert g.with_values("float32").value_dtype == np.float32
    assert g.with_values("pattern").is_pattern


def test_read_matrix_market_keeps_one_based_ids(graphs_dir):
    g = spindle.read(graphs_dir / "west0067.mtx")
    assert g.shape == (67, 67) and g.nnz == 294 and g.value_dtype == np.float64
    assert g.id_base == 1 and g.vertex_ids[0] == 1 and g.index_of(1) == 0
    with pytest.raises(spindle.VertexNotFound, match="1-based"):
        g.index_of(0)
    k = spindle.read(graphs_dir / "karate.mtx")
    assert k.is_pattern and k.nnz == 156  # symmetric: both directions
    f = spindle.read(graphs_dir / "west0067.mtx", value_dtype="float32", index_dtype="int64")
    assert f.value_dtype == np.float32 and f.index_dtype == np.int64


def test_read_edge_list_keeps_its_labels(graphs_dir):
    g = spindle.read(graphs_dir / "as20graph.txt")
    first = None
    for line in open(graphs_dir / "as20graph.txt"):
        if line.strip() and not line.startswith("#"):
            first = [int(x) for x in line.split()[:2]]
            break
    assert g.labels[:2] == first  # first appearance order, ints
    assert g.is_pattern
    w = spindle.read(graphs_dir / "karate.csv")
    assert w.value_dtype == np.float64 and isinstance(w.labels[0], int)


def test_write_and_read_back(tmp_path, rng):
    A = random_csr(rng, 25, density=0.2)
    g = spindle.Graph.from_scipy(A)
    spindle.write(tmp_path / "g.mtx", g)
    assert same_matrix(spindle.read(tmp_path / "g.mtx").to_scipy(), A)
    lab = spindle.Graph.from_edges(["a", "b", "c"], ["b", "c", "a"], weights=[1.5, 2.5, 3.5])
    lab.write(tmp_path / "g.tsv")
    back = spindle.read(tmp_path / "g.tsv")
    assert back.labels == ["a", "b", "c"]
    assert same_matrix(back.to_scipy(), lab.to_scipy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spg_files_keep_types_values_and_labels(tmp_path, rng, dtype):
    A = random_csr(rng, 40, density=0.1, dtype=dtype)
    g = spindle.Graph.from_scipy(A, index_dtype="int64")
    spindle.write(tmp_path / "g.spg", g)
    back = spindle.read(tmp_path / "g.spg")
    assert back.value_dtype == np.dtype(dtype) and back.index_dtype == np.int64
    assert same_matrix(back.to_scipy(), A)
    assert back.id_of(0) == g.id_of(0)
    # Found by its magic whatever its name, and the labels of an edge list travel inside it.
    lab = spindle.Graph.from_edges(["x", "y", "z"], ["y", "z", "x"])
    lab.write(tmp_path / "labelled.bin", format="spg")
    got = spindle.read(tmp_path / "labelled.bin")
    assert got.labels == ["x", "y", "z"] and got.is_pattern
    assert same_matrix(got.to_scipy(), lab.to_scipy())
    und = spindle.read(tmp_path / "labelled.bin", undirected=True)
    assert same_matrix(und.to_scipy(), (lab.to_scipy() + lab.to_scipy().T).astype(bool))


def test_a_damaged_spg_file_is_a_parse_error(tmp_path):
    spindle.write(tmp_path / "g.spg", spindle.generate_rmat(6, 4, seed=1))
    data = bytearray((tmp_path / "g.spg").read_bytes())
    data[-1] ^= 0xFF
    (tmp_path / "bad.spg").write_bytes(bytes(data))
    with pytest.raises(spindle.ParseError, match="checksum"):
        spindle.read(tmp_path / "bad.spg")


def test_generators_are_deterministic_and_match_their_description():
    a = spindle.generate_rmat(10, 8, seed=3)
    b = spindle.generate_rmat(10, 8, seed=3)
    assert a.shape == (1024, 1024) and a.is_pattern
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)
    assert a.stats()["self_loops"] == 0 and a.nnz <= 8 * 1024
    u = spindle.generate_uniform(9, 4, seed=1, value_dtype="float64")
    assert u.shape == (512, 512) and u.value_dtype == np.float64


def test_repr_and_len():
    g = spindle.Graph.from_edges([0], [1])
    assert len(g) == 2 and "2x2" in repr(g) and "pattern" in repr(g)
