# SPDX-License-Identifier: Apache-2.0
"""Components, triangles and clustering, core numbers, Jaccard, HITS, Katz and betweenness:
Spindle's Python functions and the networkx backend against networkx itself, on the real graphs
of the data folder and on random graphs, plus their errors and the cancel hook."""

import random

import numpy as np
import pytest

import networkx as nx
import spindle
from spindle.networkx_backend import BackendInterface

from conftest import REAL_GRAPHS, oracle_graph

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs")

# graphs small enough for networkx's exact betweenness in a test (the others sample sources)
_SMALL = {"karate.mtx", "chesapeake.mtx", "cugraph_dolphins.mtx", "cugraph_polbooks.mtx",
          "west0067.mtx", "ldbc-directed-example.mtx", "karate.csv", "karate_s_loop.csv",
          "C-elegans-frontal.txt"}


def _sets(components, to_id=None):
    if to_id is None:
        return {frozenset(c) for c in components}
    return {frozenset(to_id[v] for v in c) for c in components}


def _undirected(G):
    """The undirected simple graph under G, with its nodes in G's order."""
    U = nx.Graph()
    U.add_nodes_from(G)
    U.add_edges_from(G.edges())
    return U


def _close(got, ref, tol, to_id=None):
    to_id = to_id or {v: v for v in ref}
    assert len(got) == len(ref)
    return max((abs(got[to_id[v]] - x) for v, x in ref.items()), default=0.0) < tol


# --- real graphs: Spindle's functions ----------------------------------------------------------


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_components_match_networkx_on_real_graphs(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    weak = spindle.weakly_connected_components(g)
    assert weak.count == nx.number_weakly_connected_components(G)
    assert _sets(weak.components()) == _sets(nx.weakly_connected_components(G), to_id)
    strong = spindle.strongly_connected_components(g)
    assert strong.count == nx.number_strongly_connected_components(G)
    assert _sets(strong.components()) == _sets(nx.strongly_connected_components(G), to_id)
    # labels are the smallest internal position of each component
    labels = strong.labels
    assert np.all(labels <= np.arange(len(labels))) and np.all(labels[labels] == labels)
    assert strong.to_dict()[g.id_of(0)] == g.id_of(0)


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_k_truss_matches_networkx_on_real_graphs(graphs_dir, name):
    G, _ = oracle_graph(graphs_dir / name)
    U = _undirected(G)
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    for k in (2, 3, 4, 5):
        ref = nx.k_truss(U, k)
        r = spindle.k_truss(U, k)
        assert {frozenset(e) for e in r.edges()} == {frozenset(e) for e in ref.edges()}, k
        assert set(r.nodes()) == set(ref.nodes()), k
    with pytest.raises(spindle.InvalidArgument):
        spindle.k_truss(U, 1)


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_triangles_clustering_and_cores_match_networkx_on_real_graphs(graphs_dir, name):
    G, _ = oracle_graph(graphs_dir / name)
    U = _undirected(G)
    r = spindle.triangles(U, clustering=True)
    ref = nx.triangles(U)
    assert r.to_dict() == ref
    assert r.total == sum(ref.values()) // 3
    assert r.edges == U.number_of_edges() - nx.number_of_selfloops(U)
    assert _close(r.clustering_dict(), nx.clustering(U), 1e-15)
    assert spindle.triangles(U).per_vertex is None
    U.remove_edges_from(list(nx.selfloop_edges(U)))
    assert spindle.core_numbers(U).to_dict() == nx.core_number(U)
    D = nx.DiGraph(G)
    D.remove_edges_from(list(nx.selfloop_edges(D)))
    k = spindle.core_numbers(D)
    assert k.to_dict() == nx.core_number(D)
    assert k.max_core == max(k.core, default=0)


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_jaccard_matches_networkx_on_real_graphs(graphs_dir, name):
    G, _ = oracle_graph(graphs_dir / name)
    U = _undirected(G)
    nodes = list(U)
    rnd = random.Random(5)
    pairs = [(rnd.choice(nodes), rnd.choice(nodes)) for _ in range(300)] + list(U.edges())[:200]
    got = spindle.jaccard_coefficient(U, pairs).to_list()
    ref = list(nx.jaccard_coefficient(U, pairs))
    assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in ref]
    assert max(abs(a[2] - b[2]) for a, b in zip(got, ref)) < 1e-15
    edges = spindle.jaccard_coefficient(U)  # every edge once
    assert len(edges.coefficients) == U.number_of_edges() - nx.number_of_selfloops(U)


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_katz_matches_networkx_on_real_graphs(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    # below 1 / spectral radius (at most the largest in- or out-degree), so both converge
    alpha = 0.5 / max(max(d for _, d in G.in_degree()), max(d for _, d in G.out_degree()))
    ref = nx.katz_centrality(G, alpha=alpha, tol=1e-10)
    r = spindle.katz_centrality(g, alpha, tol=1e-10)
    assert r.converged and r.iterations > 0
    assert _close(r.to_dict(), ref, 1e-12, to_id)


@pytest.mark.parametrize("name", ["karate.mtx", "cugraph_dolphins.mtx", "cugraph_polbooks.mtx",
                                  "chesapeake.mtx", "email-Eu-core.csv", "karate.csv"])
def test_hits_matches_networkx_on_real_graphs(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    ref_h, ref_a = nx.hits(G, tol=1e-12)
    r = spindle.hits(g, max_iter=10000, tol=1e-12)
    assert r.converged
    h, a = r.to_dict()
    assert _close(h, ref_h, 1e-8, to_id) and _close(a, ref_a, 1e-8, to_id)


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_betweenness_matches_networkx_on_real_graphs(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    if name in _SMALL:
        for normalized, endpoints in [(True, False), (False, True)]:
            ref = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints)
            r = spindle.betweenness_centrality(g, normalized=normalized, endpoints=endpoints)
            scale = max(1.0, max(ref.values()))
            assert _close(r.to_dict(), ref, 1e-12 * scale, to_id)
    # sampled: networkx's own sources, passed explicitly
    k = min(12, len(G) - 1)  # k = n is networkx's exact computation
    ref = nx.betweenness_centrality(G, k=k, seed=3)
    sources = random.Random(3).sample(list(G), k)
    r = spindle.betweenness_centrality(g, sources=[to_id[v] for v in sources])
    assert sorted(r.sources.tolist()) == sorted(g.index_of(to_id[v]) for v in sources)
    assert _close(r.to_dict(), ref, 1e-12, to_id)


# --- random graphs through the networkx backend -----------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_backend_equals_networkx_on_random_undirected_graphs(seed):
    G = nx.gnp_random_graph(120, 0.06, seed=seed)
    G.add_nodes_from(["iso", ("t", 1)])  # isolated vertices with labels of other types
    G.add_edge(("t", 1), 5)

    def both(func, *args, **kwargs):
        return func(G, *args, backend="spindle", **kwargs), func(G, *args, **kwargs)

    got, ref = both(nx.connected_components)
    assert [set(c) for c in got] == [set(c) for c in ref]  # the same order, too
    assert both(nx.number_connected_components)[0] == nx.number_connected_components(G)
    assert nx.is_connected(G, backend="spindle") is False
    assert both(nx.triangles)[0] == nx.triangles(G)
    assert nx.triangles(G, 5, backend="spindle") == nx.triangles(G, 5)
    assert nx.triangles(G, [5, 7, "iso"], backend="spindle") == nx.triangles(G, [5, 7, "iso"])
    got, ref = both(nx.clustering)
    assert list(got) == list(ref) and _close(got, ref, 1e-15)
    assert nx.clustering(G, 5, backend="spindle") == nx.clustering(G, 5)
    assert abs(nx.average_clustering(G, backend="spindle") - nx.average_clustering(G)) < 1e-15
    got, ref = both(nx.average_clustering, count_zeros=False)
    assert abs(got - ref) < 1e-15
    assert abs(nx.transitivity(G, backend="spindle") - nx.transitivity(G)) < 1e-15
    assert both(nx.core_number)[0] == nx.core_number(G)
    got, ref = both(nx.jaccard_coefficient)  # every non-edge, in networkx's order
    got, ref = list(got), list(ref)
    assert [p[:2] for p in got] == [p[:2] for p in ref]
    assert max(abs(a[2] - b[2]) for a, b in zip(got, ref)) < 1e-15
    pairs = [(0, 1), (5, ("t", 1)), ("iso", "iso")]
    got, ref = both(nx.jaccard_coefficient, pairs)
    assert list(got) == list(ref)
    for kwargs in [{}, {"normalized": False}, {"endpoints": True},
                   {"k": 10, "seed": 42}, {"k": 10, "seed": 7, "endpoints": True},
                   {"k": 1, "seed": 3}]:
        got, ref = both(nx.betweenness_centrality, **kwargs)
        assert list(got) == list(ref)
        assert all(abs(got[v] - ref[v]) < 1e-12 or (np.isnan(got[v]) and np.isnan(ref[v]))
                   for v in G), kwargs
    got, ref = both(nx.katz_centrality, alpha=0.05)
    assert _close(got, ref, 1e-12)
    beta = {v: 1 + i % 3 for i, v in enumerate(G)}
    got, ref = both(nx.katz_centrality, alpha=0.05, beta=beta, normalized=False)
    assert _close(got, ref, 1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_backend_equals_networkx_on_random_directed_graphs(seed):
    G = nx.gnp_random_graph(100, 0.04, seed=seed, directed=True)
    G.add_edges_from([(0, 1), (1, 0), (1, 2), (2, 0)])  # a cycle: one SCC with 3+ vertices

    def both(func, *args, **kwargs):
        return func(G, *args, backend="spindle", **kwargs), func(G, *args, **kwargs)

    got, ref = both(nx.weakly_connected_components)
    assert [set(c) for c in got] == [set(c) for c in ref]
    assert both(nx.number_weakly_connected_components)[0] == \
        nx.number_weakly_connected_components(G)
    assert nx.is_weakly_connected(G, backend="spindle") == nx.is_weakly_connected(G)
    assert both(nx.number_strongly_connected_components)[0] == \
        nx.number_strongly_connected_components(G)
    # several strongly connected components: networkx's order needs networkx
    with pytest.raises(NotImplementedError):
        nx.strongly_connected_components(G, backend="spindle")
    with nx.config.backend_priority(algos=["spindle"]):
        assert list(nx.strongly_connected_components(G)) == \
            list(nx.strongly_connected_components(G, backend="networkx"))
    C = nx.cycle_graph(6, create_using=nx.DiGraph)
    assert list(nx.strongly_connected_components(C, backend="spindle")) == [set(range(6))]
    assert both(nx.core_number)[0] == nx.core_number(G)
    for kwargs in [{}, {"normalized": False}, {"k": 15, "seed": 11}]:
        got, ref = both(nx.betweenness_centrality, **kwargs)
        assert _close(got, ref, 1e-12), kwargs
    got, ref = both(nx.katz_centrality, alpha=0.1)
    assert _close(got, ref, 1e-12)
    (gh, ga), (rh, ra) = both(nx.hits)
    assert _close(gh, rh, 1e-8) and _close(ga, ra, 1e-8)


def test_backend_weights_start_vectors_and_self_loops_equal_networkx():
    D = nx.gnp_random_graph(50, 0.1, seed=2, directed=True)
    for u, v in D.edges():
        D[u][v]["weight"] = 1.0 + (u * v) % 5
    # networkx's hits always reads 'weight'; katz when asked
    (gh, ga), (rh, ra) = nx.hits(D, backend="spindle"), nx.hits(D)
    assert _close(gh, rh, 1e-8) and _close(ga, ra, 1e-8)
    start = {v: i + 1.0 for i, v in enumerate(D)}
    (gh, _), (rh, _) = nx.hits(D, nstart=start, backend="spindle"), nx.hits(D, nstart=start)
    assert _close(gh, rh, 1e-8)
    for kwargs in [{"weight": "weight"}, {"nstart": dict.fromkeys(D, 1.0)},
                   {"normalized": False}]:
        got = nx.katz_centrality(D, alpha=0.02, backend="spindle", **kwargs)
        assert _close(got, nx.katz_centrality(D, alpha=0.02, **kwargs), 1e-12), kwargs
    G = nx.karate_club_graph()
    G.add_edges_from([(0, 0), (5, 5)])
    assert nx.transitivity(G, backend="spindle") == nx.transitivity(G)
    assert nx.triangles(G, backend="spindle") == nx.triangles(G)
    assert nx.clustering(G, backend="spindle") == pytest.approx(nx.clustering(G), abs=1e-15)


# --- declines, errors, cancellation ------------------------------------------------------------


def test_backend_declines_what_it_cannot_answer_exactly():
    G = nx.karate_club_graph()  # weighted
    D = nx.gnp_random_graph(30, 0.1, seed=1, directed=True)
    assert "weighted clustering" in BackendInterface.can_run("clustering", (G,),
                                                               {"weight": "weight"})
    assert "directed" in BackendInterface.can_run("clustering", (D,), {})
    assert "directed" in BackendInterface.can_run("transitivity", (D,), {})
    assert "k=0" in BackendInterface.can_run("betweenness_centrality", (G,), {"k": 0})
    with nx.config.backend_priority(algos=["spindle"]):
        # each runs in networkx instead of answering differently
        assert nx.clustering(G, weight="weight") == nx.clustering(G, weight="weight",
                                                                   backend="networkx")
        ref = nx.betweenness_centrality(G, weight="weight", backend="networkx")
        assert nx.betweenness_centrality(G, weight="weight") == pytest.approx(ref, abs=1e-12)
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.hits(nx.path_graph(50), max_iter=1)  # ARPACK's verdict, through networkx
    # weights that are all 1 say what the structure says: Spindle runs it
    P = nx.path_graph(6)
    nx.set_edge_attributes(P, 1.0, "weight")
    assert nx.betweenness_centrality(P, weight="weight", backend="spindle") == pytest.approx(
        nx.betweenness_centrality(P), abs=1e-15)
    with pytest.raises(NotImplementedError):
        nx.betweenness_centrality(G, weight="weight", backend="spindle")


def test_backend_errors_are_networkx_errors():
    L = nx.Graph([(0, 0), (0, 1)])
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(L, backend="spindle")
    with pytest.raises(nx.NodeNotFound):
        list(nx.jaccard_coefficient(nx.path_graph(3), [(0, 9)], backend="spindle"))
    with pytest.raises(nx.NetworkXError, match="beta dictionary"):
        nx.katz_centrality(nx.path_graph(3), beta={0: 1}, backend="spindle")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.katz_centrality(nx.complete_graph(20), alpha=0.5, backend="spindle")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.triangles(nx.DiGraph([(0, 1)]), backend="spindle")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_weakly_connected(nx.DiGraph(), backend="spindle")
    assert nx.hits(nx.DiGraph(), backend="spindle") == ({}, {})
    assert nx.katz_centrality(nx.Graph(), backend="spindle") == {}
    assert list(nx.connected_components(nx.Graph(), backend="spindle")) == []


def test_spindle_errors():
    loop = spindle.Graph.from_edges([0, 0], [0, 1], directed=False)
    with pytest.raises(spindle.InvalidArgument):
        spindle.core_numbers(loop)
    one_way = spindle.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(spindle.InvalidArgument):
        spindle.jaccard_coefficient(one_way, [(0, 1)])
    with pytest.raises(spindle.InvalidArgument):
        spindle.core_numbers(one_way, directed=False)
    with pytest.raises(spindle.VertexNotFound):
        spindle.jaccard_coefficient(nx.path_graph(3), [(0, 7)])
    with pytest.raises(spindle.InvalidArgument):
        spindle.betweenness_centrality(one_way, k=9)
    with pytest.raises(spindle.InvalidArgument):
        spindle.betweenness_centrality(one_way, sources=[0, 0])
    with pytest.raises(spindle.InvalidArgument):
        spindle.hits(one_way, max_iter=0)
    with pytest.raises(spindle.InvalidArgument):
        spindle.katz_centrality(one_way, float("nan"))
    with pytest.raises(spindle.InvalidArgument):
        spindle.triangles(one_way, kernel="no_such_kernel")
    if not spindle.built_with_cuda():
        with pytest.raises(spindle.Unsupported):
            spindle.triangles(one_way, device="cuda")


def test_cancel_stops_the_iterative_algorithms():
    G = nx.gnp_random_graph(200, 0.05, seed=3, directed=True)
    calls = []

    def cancel():
        calls.append(1)
        return True

    for run in (lambda: spindle.weakly_connected_components(G, cancel=cancel),
                lambda: spindle.strongly_connected_components(G, cancel=cancel),
                lambda: spindle.core_numbers(G, cancel=cancel),
                lambda: spindle.hits(G, cancel=cancel),
                lambda: spindle.katz_centrality(G, 0.01, cancel=cancel),
                lambda: spindle.betweenness_centrality(G, cancel=cancel),
                lambda: spindle.jaccard_coefficient(G.to_undirected(), [(0, 1)],
                                                    cancel=cancel)):
        with pytest.raises(spindle.Cancelled):
            run()
    assert len(calls) == 7


def test_results_are_keyed_by_labels_and_one_based_ids(graphs_dir):
    g = spindle.read(graphs_dir / "karate.mtx")
    assert min(spindle.core_numbers(g).to_dict()) == 1
    assert min(spindle.triangles(g, per_vertex=True).to_dict()) == 1
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    assert spindle.triangles(G, clustering=True).clustering_dict() == nx.clustering(G)
    assert spindle.weakly_connected_components(G).to_dict() == dict.fromkeys("abcd", "a")
    assert spindle.jaccard_coefficient(G, [("a", "d")]).to_list() == \
        list(nx.jaccard_coefficient(G, [("a", "d")]))
    h, a = spindle.hits(G).to_dict()
    assert set(h) == set(a) == set("abcd")
    assert set(spindle.katz_centrality(G).to_dict()) == set("abcd")
    b = spindle.betweenness_centrality(G, sources=["c", "a"])
    assert sorted(b.sources.tolist()) == [0, 2] and b.to_dict()["c"] > 0
    with pytest.raises(spindle.InvalidArgument):
        spindle.triangles(G).to_dict()  # no per-vertex counts were asked for


def test_backend_info_lists_every_dispatched_function():
    import _spindle_nx
    from spindle import networkx_backend

    assert set(_spindle_nx._FUNCTIONS) == set(networkx_backend._FUNCTIONS)
