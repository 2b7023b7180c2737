# SPDX-License-Identifier: Apache-2.0
"""The conversion of networkx graphs (Graph.from_networkx and the backend's convert_from_nx, both
the C++ walk of G._adj) against networkx.to_scipy_sparse_array: labels of any kind, node orders,
nodelists, self-loops, default and renamed weights, multigraphs, views, errors, and graphs that
change while they are read."""

import decimal
import fractions
import random
import sys

import numpy as np
import pytest

import networkx as nx
import spindle
from spindle.networkx_backend import BackendInterface

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")


def reference(G, nodelist=None, weight="weight"):
    """networkx's own matrix (missing attributes count 1, parallel edges add up)."""
    return nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, format="csr").toarray()


def matrix(g):
    """A Spindle graph as a dense array, after checking its rows are sorted (the engine's
    invariant, which the converter establishes)."""
    A = g.to_scipy()
    for i in range(A.shape[0]):
        row = A.indices[A.indptr[i]:A.indptr[i + 1]]
        assert np.all(np.diff(row) > 0), f"row {i} is not sorted: {row}"
    return A.toarray()


def random_graph(nodes, edges, directed, seed, weighted=0.8, self_loops=True):
    """A graph over `nodes` (in that order) with random edges, most of them weighted."""
    rnd = random.Random(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(nodes)
    for _ in range(edges):
        u, v = rnd.choice(nodes), rnd.choice(nodes)
        if u == v and not self_loops:
            continue
        if rnd.random() < weighted:
            G.add_edge(u, v, weight=rnd.choice([0.5, 2.0, -3.25, 7.0]))
        else:
            G.add_edge(u, v)
    return G


LABELS = {
    "strings": [f"n{i}" for i in range(40)],
    "ints out of order": [7, 3, 0, 12, 5, 1, 2, 40, 39, 6] + list(range(13, 39)),
    "ints 0..n-1 in order": list(range(40)),
    "huge and negative ints": [10**30, -(2**70), 2**63, 2**63 - 1, -1] + list(range(100, 135)),
    "mixed": ["a", ("t", 1), 7, frozenset({2}), 3.5, b"raw", (None,)]
    + [f"x{i}" for i in range(33)],
}


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("kind", list(LABELS))
def test_converter_matches_networkx_on_every_kind_of_label(kind, directed):
    nodes = LABELS[kind]
    G = random_graph(nodes, 150, directed, seed=len(kind))
    g = spindle.Graph.from_networkx(G, weight="weight")
    assert np.array_equal(matrix(g), reference(G))
    assert g.directed == directed
    assert g.labels == (None if kind == "ints 0..n-1 in order" else nodes)
    p = spindle.Graph.from_networkx(G)  # structure only
    assert p.is_pattern and np.array_equal(matrix(p), reference(G, weight=None))


def test_self_loops_are_stored_once_in_undirected_graphs():
    G = nx.Graph([(0, 0, {"weight": 4.0}), (0, 1, {"weight": 2.0}), (2, 2)])
    g = spindle.Graph.from_networkx(G, weight="weight")
    assert g.nnz == 4
    assert matrix(g).tolist() == [[4.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    assert np.array_equal(matrix(g), reference(G))


@pytest.mark.parametrize("labels", [[0, 1, 2, 3], ["a", "b", "c", "d"]], ids=["ints", "strings"])
def test_an_undirected_graph_holding_an_edge_one_way_converts_what_its_dicts_hold(labels):
    # Each undirected edge's value is read once and copied to the other direction; dicts changed
    # by hand (an edge left in one row) still give what they hold.
    a, b, c, d = labels
    G = nx.Graph()
    G.add_weighted_edges_from([(a, b, 2.0), (b, c, 3.0), (c, d, 4.0), (a, d, 5.0)])
    del G._adj[b][c]  # c -> b is left
    g = spindle.Graph.from_networkx(G, weight="weight")
    expected = np.zeros((4, 4))
    for u, nbrs in G._adj.items():
        for v, data in nbrs.items():
            expected[labels.index(u), labels.index(v)] = data["weight"]
    assert matrix(g).tolist() == expected.tolist()


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_nodelists_order_restrict_and_drop_edges_to_nodes_left_out(directed):
    G = random_graph(list(range(30)), 120, directed, seed=3)
    rnd = random.Random(5)
    subset = rnd.sample(range(30), 12)
    for nodelist in (subset, list(range(12)), list(range(29, -1, -1)), np.arange(5)):
        g = spindle.Graph.from_networkx(G, weight="weight", nodelist=nodelist)
        assert np.array_equal(matrix(g), reference(G, nodelist=list(nodelist)))
        # labels only unless the nodes are the Python ints 0..k-1 (numpy ints keep their labels)
        plain = isinstance(nodelist, list) and nodelist == list(range(len(nodelist)))
        assert g.labels == (None if plain else list(nodelist))
    S = random_graph(LABELS["strings"], 120, directed, seed=4)
    some = ["n3", "n17", "n0", "n39"]
    g = spindle.Graph.from_networkx(S, weight="weight", nodelist=some)
    assert g.labels == some and np.array_equal(matrix(g), reference(S, nodelist=some))


def test_nodelist_errors_name_the_node():
    G = nx.path_graph(["a", "b", "c"])
    with pytest.raises(spindle.InvalidArgument, match="repeated"):
        spindle.Graph.from_networkx(G, nodelist=["a", "b", "a"])
    with pytest.raises(spindle.VertexNotFound, match="'zz'"):
        spindle.Graph.from_networkx(G, nodelist=["a", "zz", "b"])
    with pytest.raises(KeyError):  # VertexNotFound is a KeyError too
        spindle.Graph.from_networkx(G, nodelist=["q"])
    with pytest.raises(TypeError):
        spindle.Graph.from_networkx(G, nodelist=[["unhashable"]])


def test_missing_weights_take_the_default_and_the_attribute_can_have_any_name():
    G = nx.DiGraph()
    G.add_edge("a", "b", cost=3.0, weight=9.0)
    G.add_edge("b", "c", weight=9.0)
    G.add_edge("c", "a", cost=0.5)
    g = spindle.Graph.from_networkx(G, weight="cost", default_weight=2.5)
    assert matrix(g).tolist() == [[0, 3.0, 0], [0, 0, 2.5], [0.5, 0, 0]]
    assert np.array_equal(spindle.Graph.from_networkx(G, weight="cost").to_scipy().toarray(),
                          reference(G, weight="cost"))
    # no edge has the attribute: every value is the default (a valued graph unless asked)
    none = spindle.Graph.from_networkx(G, weight="length")
    assert none.value_dtype == np.float64 and np.all(none.data == 1)
    # a non-string attribute key works as networkx allows it
    H = nx.Graph()
    H.add_edge(0, 1, **{"w": 1})
    H[0][1][7] = 4.0
    assert matrix(spindle.Graph.from_networkx(H, weight=7)).tolist() == [[0, 4.0], [4.0, 0]]


@pytest.mark.parametrize("bad", ["heavy", "1.5", None, 3 + 1j, [1], 10**400],
                         ids=["str", "numeric str", "None", "complex", "list", "huge int"])
def test_a_weight_that_is_not_a_number_raises_invalid_argument_naming_the_edge(bad):
    G = nx.Graph()
    G.add_edge("u", "v", weight=1.0)
    G.add_edge("v", "w", weight=bad)
    with pytest.raises(spindle.InvalidArgument, match=r"edge \('(v|w)', '(w|v)'\).*'weight'.*not "
                                                       r"a number") as info:
        spindle.Graph.from_networkx(G, weight="weight")
    assert isinstance(info.value, ValueError)
    with pytest.raises(spindle.InvalidArgument):
        BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    # structure only: the attribute is never read
    assert spindle.Graph.from_networkx(G).nnz == 4


def test_numbers_of_every_numeric_type_are_weights():
    values = [True, 3, np.float32(0.5), np.int64(-4), fractions.Fraction(1, 4),
              decimal.Decimal("2.5"), 10**20, float("inf")]
    G = nx.DiGraph()
    for i, x in enumerate(values):
        G.add_edge(i, i + 1, weight=x)
    g = spindle.Graph.from_networkx(G, weight="weight")
    assert g.data.tolist() == [float(x) for x in values]


def test_neighbours_equal_to_int_nodes_but_of_another_type_find_them():
    G = nx.DiGraph()
    G.add_nodes_from(range(4))
    G.add_edge(0, True)  # True == 1: networkx keeps the key True in 0's row
    G.add_edge(2, 3.0)
    G.add_edge(3, np.int64(0))
    assert any(type(v) is bool for v in G._adj[0])
    g = spindle.Graph.from_networkx(G)
    assert g.labels is None
    assert np.array_equal(matrix(g), reference(G, weight=None))


def test_multigraphs_add_parallel_edges_with_defaults():
    G = nx.MultiGraph()
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("a", "b")  # default
    G.add_edge("b", "b", weight=5.0)
    G.add_edge("b", "c", weight=1.5)
    g = spindle.Graph.from_networkx(G, weight="weight", default_weight=0.25)
    assert matrix(g).tolist() == [[0, 2.25, 0], [2.25, 5.0, 1.5], [0, 1.5, 0]]
    p = spindle.Graph.from_networkx(G, nodelist=["c", "b"])
    assert p.is_pattern and matrix(p).tolist() == [[0, 1], [1, 1]]


def test_graph_views_convert_like_the_graphs_they_show():
    G = random_graph(LABELS["strings"], 150, True, seed=9)
    for view in (G.subgraph(LABELS["strings"][::2]), nx.reverse_view(G),
                 nx.subgraph_view(G, filter_edge=lambda u, v: u < v)):
        g = spindle.Graph.from_networkx(view, weight="weight")
        assert np.array_equal(matrix(g), reference(view))
        assert g.labels == list(view)


def test_index_and_value_types_are_honoured():
    G = random_graph(list(range(20)), 60, False, seed=2)
    g = spindle.Graph.from_networkx(G, weight="weight", index_dtype=np.int64,
                                    value_dtype=np.float32)
    assert g.index_dtype == np.int64 and g.value_dtype == np.float32
    assert np.allclose(matrix(g), reference(G))
    p = spindle.Graph.from_networkx(G, weight="weight", value_dtype="pattern")
    assert p.is_pattern and np.array_equal(matrix(p) != 0, reference(G) != 0)
    ones = spindle.Graph.from_networkx(G, value_dtype="float64")
    assert ones.value_dtype == np.float64 and np.all(ones.data == 1)
    empty = spindle.Graph.from_networkx(nx.Graph())
    assert empty.shape == (0, 0) and empty.nnz == 0


def test_the_backend_keeps_values_only_when_they_are_not_all_one():
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, 1, "weight")
    S = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert S.weight is None and S.spindle_graph.is_pattern
    G[1][2]["weight"] = 3
    S = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert S.weight == "weight" and S.spindle_graph.value_dtype == np.float64
    assert np.array_equal(matrix(S.spindle_graph), reference(G))
    # the default counts: all edges lack the attribute and the default is 2
    S = BackendInterface.convert_from_nx(nx.path_graph(3), edge_attrs={"cost": 2})
    assert S.weight == "cost" and np.all(S.spindle_graph.data == 2)


def test_conversion_keeps_reference_counts_on_success_and_on_error():
    nodes = [f"node-{i}" for i in range(200)]  # fresh objects: their counts are ours to watch
    G = random_graph(nodes, 800, False, seed=1)
    attr = next(iter(G.edges(data=True)))[2]
    before = [sys.getrefcount(v) for v in nodes], sys.getrefcount(attr)
    for _ in range(3):
        spindle.Graph.from_networkx(G, weight="weight")
        spindle.Graph.from_networkx(G, nodelist=nodes[::3])
    G.add_edge(nodes[50], nodes[60], weight="bad")
    for _ in range(3):
        with pytest.raises(spindle.InvalidArgument):
            spindle.Graph.from_networkx(G, weight="weight")
    G.remove_edge(nodes[50], nodes[60])
    assert ([sys.getrefcount(v) for v in nodes], sys.getrefcount(attr)) == before


class _Key:
    """A node label whose __eq__ may run a hook (networkx compares labels that are equal but
    not identical, as an edge added with a copy of a node's label leaves in a row)."""

    hook = None

    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        if _Key.hook is not None:
            hook, _Key.hook = _Key.hook, None
            hook()
        return isinstance(other, _Key) and self.v == other.v

    def __repr__(self):
        return f"_Key({self.v})"


class _Weight:
    """A number whose conversion runs a hook."""

    def __init__(self, hook):
        self.hook = hook

    def __float__(self):
        self.hook()
        return 2.0


def _graph_of_copies():
    keys = [_Key(i) for i in range(60)]
    G = nx.Graph()
    G.add_nodes_from(keys)
    rnd = random.Random(7)
    for _ in range(300):
        u, v = rnd.sample(range(60), 2)
        G.add_edge(keys[u], _Key(v), weight=1.0)  # the row of u keeps a copy of v's label
    return G, keys


@pytest.mark.parametrize("change", ["clear rows", "grow a row", "remove nodes", "raise"])
def test_graphs_changed_by_python_code_during_the_walk_never_crash(change):
    G, keys = _graph_of_copies()

    def hook():
        if change == "clear rows":
            for row in G._adj.values():
                row.clear()
        elif change == "grow a row":
            for i in range(100, 160):
                G.add_edge(keys[59], _Key(i))
        elif change == "remove nodes":
            G.remove_nodes_from(keys[10:50])
        else:
            raise RuntimeError("from __eq__")

    for weight in (None, "weight"):
        _Key.hook = hook
        try:
            g = spindle.Graph.from_networkx(G, weight=weight)
        except RuntimeError as e:
            assert change == "raise" and "from __eq__" in str(e)
        except spindle.InvalidArgument as e:
            assert "changed while it was converted" in str(e)
        else:
            assert g.nrows <= len(keys) + 60
        finally:
            _Key.hook = None
        G, keys = _graph_of_copies()

    # a weight's __float__ that empties the graph it is read from
    H = nx.path_graph(50, create_using=nx.DiGraph)
    for u, v in list(H.edges):
        H[u][v]["weight"] = _Weight(lambda: [row.clear() for row in H._adj.values()])
    g = spindle.Graph.from_networkx(H, weight="weight")
    assert g.nrows == 50 and g.nnz <= 49
