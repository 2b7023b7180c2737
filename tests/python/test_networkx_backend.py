# SPDX-License-Identifier: Apache-2.0
"""The networkx backend: entry points, conversion (labels, weights, caching), dispatch, results
equal to networkx's (k_truss's graph compared as strictly as networkx's test mode does), and
calls it declines."""

import importlib.metadata
import os
import pathlib
import random
import subprocess
import sys

import numpy as np
import pytest

import networkx as nx
import spindle
from spindle.networkx_backend import BackendInterface, SpindleGraph

from conftest import REAL_GRAPHS, REPO, data_dir, oracle_graph

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")


def test_entry_points_are_registered():
    eps = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="networkx.backends")}
    assert eps.get("spindle") == "spindle.networkx_backend:BackendInterface"
    info = {ep.name: ep.value
            for ep in importlib.metadata.entry_points(group="networkx.backend_info")}
    assert info.get("spindle") == "_spindle_nx:get_info"
    assert "spindle" in nx.utils.backends.backends


def test_pyproject_declares_the_same_entry_points():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    eps = project["entry-points"]
    assert eps["networkx.backends"] == {"spindle": "spindle.networkx_backend:BackendInterface"}
    assert eps["networkx.backend_info"] == {"spindle": "_spindle_nx:get_info"}


def test_backend_info_does_not_import_the_compiled_module():
    code = ("import sys, networkx as nx\n"
            "info = nx.utils.backends.backend_info['spindle']\n"
            "assert 'pagerank' in info['functions'], info\n"
            "print(sorted(m for m in sys.modules if m.startswith('spindle')))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=pathlib.Path(__file__).parent)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_pagerank_through_the_backend_equals_networkx(graphs_dir, name):
    G, _ = oracle_graph(graphs_dir / name)
    ref = nx.pagerank(G)
    got = nx.pagerank(G, backend="spindle")
    assert got.keys() == ref.keys()
    assert sum(abs(got[v] - ref[v]) for v in G) < 1e-12
    assert all(type(x) is float for x in got.values())


def test_weighted_undirected_and_personalized_pagerank():
    G = nx.Graph()
    G.add_weighted_edges_from([("a", "b", 2.0), ("b", ("c", 1), 0.5), (("c", 1), "a", 3.0),
                               ("d", "a", 1.0)])
    for kwargs in ({}, {"weight": None}, {"personalization": {"a": 1, "d": 3}},
                   {"alpha": 0.5, "tol": 1e-10}):
        ref = nx.pagerank(G, **kwargs)
        got = nx.pagerank(G, backend="spindle", **kwargs)
        assert list(got) == list(ref)
        assert sum(abs(got[v] - ref[v]) for v in G) < 1e-12
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"a": 0}, backend="spindle")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=1, backend="spindle")
    assert nx.pagerank(nx.DiGraph(), backend="spindle") == {}


def test_shortest_paths_and_traversals_equal_networkx(rng):
    G = nx.gnp_random_graph(80, 0.05, seed=7, directed=True)
    for u, v in G.edges():
        G[u][v]["weight"] = float(rng.integers(1, 10))
    for s in [0, 5, 17]:
        assert (nx.single_source_shortest_path_length(G, s, backend="spindle")
                == nx.single_source_shortest_path_length(G, s))
        assert (nx.single_source_shortest_path_length(G, s, cutoff=2, backend="spindle")
                == nx.single_source_shortest_path_length(G, s, cutoff=2))
        assert (nx.single_source_dijkstra_path_length(G, s, backend="spindle")
                == nx.single_source_dijkstra_path_length(G, s))
        assert (nx.single_source_bellman_ford_path_length(G, s, backend="spindle")
                == nx.single_source_bellman_ford_path_length(G, s))
        assert ({frozenset(x) for x in nx.bfs_layers(G, s, backend="spindle")}
                == {frozenset(x) for x in nx.bfs_layers(G, s)})
        assert nx.descendants(G, s, backend="spindle") == nx.descendants(G, s)
        assert nx.ancestors(G, s, backend="spindle") == nx.ancestors(G, s)
    assert nx.is_strongly_connected(G, backend="spindle") == nx.is_strongly_connected(G)
    U = G.to_undirected()
    assert nx.is_connected(U, backend="spindle") == nx.is_connected(U)
    assert (nx.node_connected_component(U, 3, backend="spindle")
            == nx.node_connected_component(U, 3))


def test_errors_are_networkx_errors():
    G = nx.path_graph(4)
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, 99, backend="spindle")
    with pytest.raises(nx.NetworkXError):
        list(nx.bfs_layers(G, [99], backend="spindle"))
    D = nx.DiGraph([(0, 1, {"weight": -2.0}), (1, 0, {"weight": 1.0})])
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(D, 0, backend="spindle")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.eigenvector_centrality(nx.Graph(), backend="spindle")
    with pytest.raises(nx.AmbiguousSolution):
        nx.eigenvector_centrality_numpy(nx.empty_graph(3), backend="spindle")
    with pytest.raises(nx.NetworkXNoPath):
        nx.dijkstra_path_length(nx.DiGraph([(0, 1), (2, 3)]), 0, 3, backend="spindle")


def test_eigenvector_centralities_equal_networkx():
    G = nx.karate_club_graph()
    ref = nx.eigenvector_centrality(G, weight="weight")
    got = nx.eigenvector_centrality(G, weight="weight", backend="spindle")
    assert max(abs(got[v] - ref[v]) for v in G) < 1e-12
    ref = nx.eigenvector_centrality_numpy(G)
    got = nx.eigenvector_centrality_numpy(G, backend="spindle")
    assert max(abs(got[v] - ref[v]) for v in G) < 1e-9


def test_conversion_keeps_labels_weights_and_direction():
    G = nx.DiGraph()
    G.add_edge(("x", 1), "y", weight=2.5, other=7)
    G.add_edge("y", 3, weight=-1.0)
    G.add_node(frozenset({9}))
    S = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert isinstance(S, SpindleGraph) and S.__networkx_backend__ == "spindle"
    assert S.is_directed() and not S.is_multigraph()
    assert S.nodes == list(G) and len(S) == 4 and S.number_of_edges() == 2
    H = BackendInterface.convert_to_nx(S)
    assert list(H) == list(G)
    assert {(u, v): d for u, v, d in H.edges(data=True)} == {
        (("x", 1), "y"): {"weight": 2.5}, ("y", 3): {"weight": -1.0}}
    plain = BackendInterface.convert_from_nx(G)
    assert plain.weight is None and plain.spindle_graph.is_pattern
    unit = BackendInterface.convert_from_nx(nx.path_graph(3), edge_attrs={"weight": 1})
    assert unit.spindle_graph.is_pattern  # every value 1: the structure says the same
    U = BackendInterface.convert_from_nx(nx.path_graph(3))
    assert not U.is_directed() and U.number_of_edges() == 2
    # a converted graph goes straight to the backend
    assert nx.pagerank(S, weight=None) == pytest.approx(nx.pagerank(G, weight=None), abs=1e-12)
    assert BackendInterface.convert_to_nx({"a": 1}) == {"a": 1}
    # and Spindle's own functions take it as it is
    assert spindle.bfs(S, ("x", 1)).to_dict() == {("x", 1): 0, "y": 1, 3: 2}


def test_converted_graphs_are_cached_until_the_graph_changes(monkeypatch):
    calls = []
    original = BackendInterface.convert_from_nx

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(BackendInterface, "convert_from_nx", staticmethod(counting))
    G = nx.gnp_random_graph(50, 0.1, seed=1, directed=True)
    first = nx.pagerank(G, backend="spindle")
    second = nx.pagerank(G, backend="spindle")
    assert first == second and len(calls) == 1
    # structure only: networkx hands over the cached graph (it has the weights and more)
    assert nx.pagerank(G, weight=None, backend="spindle") == pytest.approx(
        nx.pagerank(G, weight=None), abs=1e-12)
    assert len(calls) == 1
    nx.pagerank(G, weight="cost", backend="spindle")  # another attribute: converted again
    assert len(calls) == 2
    G.add_edge(0, 1)  # networkx clears its cache on a change
    nx.pagerank(G, backend="spindle")
    assert len(calls) == 3


def test_unsupported_calls_are_declined_cleanly():
    MG = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    assert "multigraph" in BackendInterface.can_run("pagerank", (MG,), {})
    with pytest.raises(NotImplementedError):
        nx.pagerank(MG, backend="spindle")
    G = nx.path_graph(4)
    assert BackendInterface.can_run("pagerank", (G,), {}) is True
    assert "nstart" in BackendInterface.can_run("pagerank", (G,), {"nstart": {0: 1}})
    assert "dangling" in BackendInterface.can_run("pagerank", (G,), {"dangling": {0: 1}})
    w = BackendInterface.can_run("single_source_dijkstra_path_length", (G, 0),
                                 {"weight": lambda u, v, d: 1})
    assert "weight functions" in w
    assert "several sources" in BackendInterface.can_run("bfs_layers", (G, [0, 3]), {})
    assert BackendInterface.can_run("bfs_layers", (G, [0, 0]), {}) is True
    assert BackendInterface.can_run("closeness_centrality", (G,), {}) is False
    # with Spindle first in the priority list, what it declines runs in networkx
    with nx.config.backend_priority(algos=["spindle"]):
        assert nx.pagerank(MG) == nx.pagerank(MG, backend="networkx")
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"), abs=1e-12)
    # negative weights: Dijkstra's answer is networkx's to give
    D = nx.DiGraph([(0, 1, {"weight": -1.0})])
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(D, 0, backend="spindle")


def test_backend_device_configuration():
    assert nx.config.backends.spindle.device == "auto"
    G = nx.path_graph(5)
    with nx.config.backends.spindle(device="cpu"):
        assert nx.pagerank(G, backend="spindle") == pytest.approx(nx.pagerank(G), abs=1e-12)


# --- k_truss: the graph networkx returns, attributes and order included -------------------------

# Files of the data folder that are not square graphs networkx reads (every other file is a
# k_truss test case, made undirected): why each is left out.
_NOT_GRAPHS = {
    "SOURCES.tsv": "the folder's provenance table",
    "comments_west0067.mtx": "a NaN value",
    "skew_fp64.mtx": "an Inf value",
    "complex.mtx": "a dense array",
    "full.mtx": "a dense array",
    "west0067_noheader.mtx": "no Matrix Market banner",
    "west0067_jumbled.mtx": "scipy does not read its jumbled lines",
    "duplicates.mtx": "3 x 4",
    "empty.mtx": "3 x 4",
    "lp_afiro.mtx": "27 x 51",
}


def _graph_files():
    d = data_dir() / "graphs"
    names = sorted(p.name for p in d.iterdir() if p.name not in _NOT_GRAPHS) if d.is_dir() else []
    return names or REAL_GRAPHS  # without the folder the graphs_dir fixture skips them


def _assert_same_graph(got, ref, G):
    """got is ref as networkx's strict comparison sees it (G.graph, G._node, G._adj), in the
    same node and adjacency order, with attribute dicts copied from G as G.copy() copies
    them."""
    assert type(got) is type(ref)
    assert got.graph == ref.graph and got.graph is not G.graph
    assert list(got._node.items()) == list(ref._node.items())
    assert ([(u, list(nbrs.items())) for u, nbrs in got._adj.items()]
            == [(u, list(nbrs.items())) for u, nbrs in ref._adj.items()])
    assert all(d is not G._node[n] for n, d in got._node.items())
    for u, v, d in got.edges(data=True):
        assert d is not G._adj[u][v] and got._adj[v][u] is d


def _with_attributes(G, tag):
    """G with graph, node and edge attributes (a container shared with G's, as networkx's
    shallow copies share them)."""
    G.graph.update(name=tag, meta={"k": [1, 2]})
    for i, v in enumerate(G):
        G.nodes[v]["order"] = i
    shared = ["shared"]
    for u, v, d in G.edges(data=True):
        d["pair"] = (u, v)
        d["shared"] = shared
    return G


@pytest.mark.parametrize("name", _graph_files())
def test_k_truss_through_the_backend_equals_networkx_on_real_graphs(graphs_dir, name):
    D, _ = oracle_graph(graphs_dir / name, weighted=True)
    G = _with_attributes(nx.Graph(D), name)  # undirected, the weights kept as attributes
    loops = list(nx.selfloop_edges(G))
    if loops:
        with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
            nx.k_truss(G, 3, backend="spindle")
        G.remove_edges_from(loops)
    for k in range(2, 7):
        _assert_same_graph(nx.k_truss(G, k, backend="spindle"), nx.k_truss(G, k), G)


def _shuffled_graph(seed, cls=nx.Graph):
    """A random graph whose adjacency order is not its node order: labels of mixed types,
    isolated nodes, nodes and edges added in random order, and attributes everywhere."""
    rnd = random.Random(seed)
    nodes = list(range(70)) + ["a", "b", ("t", 1), frozenset({2})]
    rnd.shuffle(nodes)
    G = cls()
    G.add_nodes_from((v, {"w": rnd.random()}) for v in nodes[:-3])  # some come with edges
    pairs = {frozenset(rnd.sample(nodes, 2)) for _ in range(420)}
    for u, v in pairs:
        G.add_edge(u, v, weight=rnd.random(), label=f"{u}-{v}")
    for _ in range(15):  # cliques, so larger trusses exist
        clique = rnd.sample(nodes, rnd.randint(3, 7))
        G.add_edges_from((u, v) for u in clique for v in clique if u != v)
    return _with_attributes(G, f"random {seed}")


class _MyGraph(nx.Graph):
    pass


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_k_truss_through_the_backend_equals_networkx_on_random_graphs(seed):
    G = _shuffled_graph(seed, _MyGraph if seed == 4 else nx.Graph)
    for k in range(2, 9):
        _assert_same_graph(nx.k_truss(G, k, backend="spindle"), nx.k_truss(G, k), G)
    # a view of a part of it, and a frozen copy: networkx copies those the same way
    part = G.subgraph(list(G)[::2] + list(G)[1::4])
    frozen = nx.freeze(G.copy())
    for H in (part, frozen):
        for k in (2, 3, 5):
            _assert_same_graph(nx.k_truss(H, k, backend="spindle"), nx.k_truss(H, k), H)
    # large k leaves nothing; numpy integers are integers
    _assert_same_graph(nx.k_truss(G, 10**30, backend="spindle"), nx.k_truss(G, 10**30), G)
    _assert_same_graph(nx.k_truss(G, np.int64(4), backend="spindle"), nx.k_truss(G, 4), G)
    # the result is G's data copied: changing it leaves G as it was
    H = nx.k_truss(G, 3, backend="spindle")
    u, v = next(iter(H.edges()))
    H[u][v]["weight"] = -1
    H.nodes[u]["order"] = -1
    H.graph["name"] = "changed"
    assert G[u][v]["weight"] != -1 and G.nodes[u]["order"] != -1 and G.graph["name"] != "changed"


def test_k_truss_through_the_backend_refuses_what_networkx_refuses():
    L = nx.Graph([(0, 1), (1, 2), (2, 0), (1, 1)])
    with pytest.raises(nx.NetworkXNotImplemented) as ref:
        nx.k_truss(L, 3)
    with pytest.raises(nx.NetworkXNotImplemented) as got:
        nx.k_truss(L, 3, backend="spindle")
    assert str(got.value) == str(ref.value)
    for G in (nx.DiGraph([(0, 1), (1, 2), (2, 0)]), nx.MultiGraph([(0, 1), (0, 1)])):
        with pytest.raises(nx.NetworkXNotImplemented) as ref:
            nx.k_truss(G, 3)
        with pytest.raises(nx.NetworkXNotImplemented) as got:
            nx.k_truss(G, 3, backend="spindle")
        assert str(got.value) == str(ref.value)
    D = nx.DiGraph([(0, 1)])
    assert "directed" in BackendInterface.can_run("k_truss", (D, 3), {})
    G = nx.path_graph(4)
    assert BackendInterface.can_run("k_truss", (G, 3), {}) is True
    assert BackendInterface.can_run("k_truss", (G,), {"k": np.int64(2)}) is True
    assert "k < 2" in BackendInterface.can_run("k_truss", (G, 1), {})
    assert "integer" in BackendInterface.can_run("k_truss", (G, 2.5), {})
    assert "integer" in BackendInterface.can_run("k_truss", (G, True), {})
    with pytest.raises(NotImplementedError):
        nx.k_truss(G, 1, backend="spindle")
    with nx.config.backend_priority(algos=["spindle"]):
        _assert_same_graph(nx.k_truss(G, 1), nx.k_truss(G, 1, backend="networkx"), G)
        _assert_same_graph(nx.k_truss(G, 3), nx.k_truss(G, 3, backend="networkx"), G)


def test_k_truss_conversion_does_not_stay_in_the_cache():
    # the conversion k_truss gets holds the structure only, though networkx files it as one
    # that kept every attribute: later calls must not be handed it
    G = nx.karate_club_graph()  # weighted
    ref = nx.pagerank(G)
    assert nx.pagerank(G, backend="spindle") == pytest.approx(ref, abs=1e-12)
    first = nx.k_truss(G, 4, backend="spindle")
    assert all(key != (True, True)
               for key in G.__networkx_cache__.get("backends", {}).get("spindle", {}))
    assert nx.pagerank(G, backend="spindle") == pytest.approx(ref, abs=1e-12)
    _assert_same_graph(nx.k_truss(G, 4, backend="spindle"), first, G)
    with nx.config.backends.spindle(device="cpu"):
        _assert_same_graph(nx.k_truss(G, 5, backend="spindle"), nx.k_truss(G, 5), G)


def test_k_truss_of_a_converted_graph_without_its_source():
    G = _shuffled_graph(5)
    S = BackendInterface.convert_from_nx(G)
    assert S.source is None
    assert BackendInterface.convert_from_nx(G, preserve_edge_attrs=True, preserve_node_attrs=True,
                                            preserve_graph_attrs=True, name="k_truss").source is G
    for k in (2, 3, 4):
        ref = nx.k_truss(G, k)
        got = nx.k_truss(S, k)
        assert type(got) is nx.Graph
        assert set(got) == set(ref) and list(got) == [v for v in G if v in ref]
        assert {frozenset(e) for e in got.edges()} == {frozenset(e) for e in ref.edges()}
