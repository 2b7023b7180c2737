# SPDX-License-Identifier: Apache-2.0
"""The algorithms against networkx / numpy / scipy on the real graphs of the data folder and on
random graphs, plus the GIL, Ctrl-C and the cancel hook."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import networkx as nx
import spindle

from conftest import REAL_GRAPHS, oracle_graph, random_csr


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_pagerank_matches_networkx_on_real_graphs(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    ref = nx.pagerank(G, weight=None, tol=1e-10)
    r = spindle.pagerank(g, preset="networkx", tol=1e-10)
    assert r.converged and r.iterations > 0
    got = r.to_dict()
    assert len(got) == len(ref)
    assert sum(abs(got[to_id[v]] - x) for v, x in ref.items()) < 1e-8
    assert abs(r.ranks.sum() - 1) < 1e-12


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_anderson_pagerank_reaches_networkx_fixed_point(graphs_dir, name):
    # networkx run to its fixed point; Anderson with the default tol lands within 1e-5 (L1) of it
    # in fewer products than the power iteration's.
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    ref = nx.pagerank(G, weight=None, tol=1e-15, max_iter=100000)
    for dtype in ("float64", "float32"):
        r = spindle.pagerank(g, method="anderson", dtype=dtype)
        assert r.converged
        got = r.to_dict()
        assert sum(abs(got[to_id[v]] - x) for v, x in ref.items()) < 1e-5
    assert r.iterations <= spindle.pagerank(g, dtype="float32").iterations
    with pytest.raises(spindle.InvalidArgument):
        spindle.pagerank(g, method="anderson", preset="gap")
    with pytest.raises(spindle.InvalidArgument):
        spindle.pagerank(g, method="gauss")


def test_weighted_and_personalized_pagerank_match_networkx(graphs_dir):
    g = spindle.apply(None, None, None, "abs", spindle.read(graphs_dir / "west0067.mtx"))
    G, to_id = oracle_graph(graphs_dir / "west0067.mtx", weighted=True)
    for u, v, d in G.edges(data=True):
        d["weight"] = abs(d["weight"])
    pers = {v: (i % 5) for i, v in enumerate(G)}
    ref = nx.pagerank(G, weight="weight", personalization=pers, tol=1e-12)
    r = spindle.pagerank(g, weight=True, preset="networkx", tol=1e-12,
                         personalization={to_id[v]: w for v, w in pers.items()})
    got = r.to_dict()
    assert sum(abs(got[to_id[v]] - x) for v, x in ref.items()) < 1e-9
    # the same through a networkx graph handed to spindle directly, keyed by its nodes
    direct = spindle.pagerank(G, weight="weight", preset="networkx", tol=1e-12,
                              personalization=pers).to_dict()
    assert sum(abs(direct[v] - x) for v, x in ref.items()) < 1e-9


def test_pagerank_presets_and_the_convergence_report(rng):
    A = random_csr(rng, 300, density=0.02, positive=True)
    g = spindle.Graph.from_scipy(A)
    d = spindle.pagerank(g)
    assert d.converged and d.residual < 1e-6 and abs(d.ranks.sum() - 1) < 1e-9
    gap = spindle.pagerank(g, preset="gap")
    assert gap.ranks.sum() <= 1 + 1e-12
    b = spindle.pagerank(g, preset="boost")
    assert b.iterations == 20
    short = spindle.pagerank(g, max_iter=2, tol=0)
    assert not short.converged and short.iterations == 2
    f = spindle.pagerank(g, dtype="float32")
    assert f.ranks.dtype == np.float32 and np.allclose(f.ranks, d.ranks, atol=1e-5)
    top = d.top(3)
    assert [r for _, r in top] == sorted(d.ranks, reverse=True)[:3]
    # a scipy matrix is taken directly
    assert np.array_equal(spindle.pagerank(A).ranks, d.ranks)


def test_matrix_market_results_are_keyed_by_one_based_ids(graphs_dir):
    g = spindle.read(graphs_dir / "karate.mtx")
    r = spindle.pagerank(g)
    assert min(r.to_dict()) == 1 and max(r.to_dict()) == 34
    b = spindle.bfs(g, 1)
    assert b.to_dict()[1] == 0 and 0 not in b.to_dict()


@pytest.mark.parametrize("name", ["karate.mtx", "cugraph_dolphins.mtx", "cugraph_polbooks.mtx",
                                  "chesapeake.mtx", "email-Eu-core.csv"])
def test_eigenvector_centrality_matches_networkx(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    ref = nx.eigenvector_centrality(G, max_iter=1000, tol=1e-9)
    r = spindle.eigenvector_centrality(g, max_iter=1000, tol=1e-9)
    assert r.converged
    got = r.to_dict()
    assert max(abs(got[to_id[v]] - x) for v, x in ref.items()) < 1e-9


def test_power_iteration_finds_the_dominant_eigenpair(graphs_dir):
    g = spindle.read(graphs_dir / "cugraph_polbooks.mtx")
    A = g.to_scipy()
    vals, vecs = spla.eigsh(A, k=1, which="LA")
    r = spindle.power_iteration(g, tol=1e-12, max_iter=10000, shift=1.0)
    assert r.converged and abs(r.eigenvalue - vals[0]) < 1e-8 and r.residual < 1e-5
    assert abs(abs(r.vector @ vecs[:, 0]) - 1) < 1e-8


@pytest.mark.parametrize("name", REAL_GRAPHS)
def test_bfs_levels_and_parents_match_networkx(graphs_dir, name):
    g = spindle.read(graphs_dir / name)
    G, to_id = oracle_graph(graphs_dir / name)
    for v in list(G)[:3]:
        ref = nx.single_source_shortest_path_length(G, v)
        r = spindle.bfs(g, to_id[v], parents=True)
        assert r.to_dict() == {to_id[u]: d for u, d in ref.items()}
        assert r.reached == len(ref) and r.depth == max(ref.values()) + 1
        parents = r.parents_dict()
        back = {i: u for u, i in to_id.items()}
        for u, d in ref.items():
            if d == 0:
                assert parents[to_id[u]] == to_id[u]
                continue
            # the smallest-position in-neighbour one level up
            ups = [g.index_of(to_id[p]) for p in G.predecessors(u) if ref.get(p) == d - 1]
            assert g.index_of(parents[to_id[u]]) == min(ups)
            assert back[parents[to_id[u]]] in G.predecessors(u)


@pytest.mark.parametrize("name", ["west0067.mtx", "cryg2500.mtx", "1138_bus.mtx", "karate.csv",
                                  "email-Eu-core.csv"])
def test_sssp_matches_dijkstra_on_real_graphs(graphs_dir, name):
    g = spindle.apply(None, None, None, "abs", spindle.read(graphs_dir / name,
                                                            value_dtype="float64"))
    G, to_id = oracle_graph(graphs_dir / name, weighted=True)
    for u, v, d in G.edges(data=True):
        d["weight"] = abs(d["weight"])
    for s in list(G)[:2]:
        ref = nx.single_source_dijkstra_path_length(G, s)
        r = spindle.sssp(g, to_id[s])
        got = r.to_dict()
        assert got.keys() == {to_id[v] for v in ref}
        assert max(abs(got[to_id[v]] - x) for v, x in ref.items()) < 1e-9
        hops = spindle.sssp(g, to_id[s], weight=None).to_dict()
        assert hops == {to_id[v]: float(x)
                        for v, x in nx.single_source_shortest_path_length(G, s).items()}


def test_sssp_with_negative_weights_matches_bellman_ford_and_finds_negative_cycles(rng):
    n = 60
    A = sp.triu(random_csr(rng, n, density=0.1), k=1).tocsr()  # a DAG: no cycle at all
    g = spindle.Graph.from_scipy(A)
    G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
    ref = nx.single_source_bellman_ford_path_length(G, 0)
    got = spindle.sssp(g, 0).to_dict()
    assert got.keys() == ref.keys()
    assert max(abs(got[v] - x) for v, x in ref.items()) < 1e-12
    cyc = spindle.Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, -3.0, 1.0])
    with pytest.raises(spindle.InvalidArgument, match="negative-weight cycle"):
        spindle.sssp(cyc, 0)


def test_gcn_matches_a_numpy_reference(rng):
    n = 120
    A = random_csr(rng, n, density=0.05, positive=True)
    A = ((A + A.T) > 0).astype(np.float64)
    g = spindle.Graph.from_scipy(A)
    X = rng.random((n, 16)).astype(np.float32)
    W = [rng.standard_normal((16, 32)).astype(np.float32),
         rng.standard_normal((32, 4)).astype(np.float32)]
    b = [rng.standard_normal(32).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    AI = A.toarray()
    np.fill_diagonal(AI, np.where(np.diag(AI) == 0, 1.0, np.diag(AI)))
    d = AI.sum(axis=1)
    Ahat = AI / np.sqrt(np.outer(d, d))
    H = np.maximum(Ahat @ X @ W[0] + b[0], 0)
    ref = Ahat @ H @ W[1] + b[1]
    for order in ("auto", "aggregate_first", "transform_first"):
        out = spindle.gcn(g, X, W, b, order=order)
        assert out.dtype == np.float32 and out.shape == (n, 4)
        assert np.allclose(out, ref, rtol=1e-4, atol=1e-4)
    no_bias = spindle.gcn(g, X.astype(np.float64), W)
    H0 = np.maximum(Ahat @ X @ W[0], 0)
    assert no_bias.dtype == np.float64
    assert np.allclose(no_bias, Ahat @ H0 @ W[1], rtol=1e-5, atol=1e-5)


def test_the_gil_is_released_during_a_long_call():
    g = spindle.generate_rmat(17, 16, seed=2)
    ticks = []
    done = threading.Event()

    def run():
        spindle.pagerank(g, tol=0, max_iter=60, device="cpu")  # on a GPU it is too short
        done.set()

    t = threading.Thread(target=run)
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    elapsed = time.perf_counter() - start
    # The main thread kept running Python while the engine iterated.
    assert elapsed > 0.05 and len(ticks) > 10


def test_ctrl_c_stops_an_algorithm_between_iterations():
    # SIGINT arrives while the third iteration runs (sent from the cancel callable, so the test
    # does not depend on timing): the check before the fourth raises KeyboardInterrupt.
    g = spindle.generate_rmat(12, 8, seed=5)
    path = spindle.Graph.from_edges(np.arange(50), np.arange(1, 51))  # 50 relaxation rounds
    calls = []

    def interrupt_at_three():
        calls.append(1)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return False

    for run in (lambda: spindle.pagerank(g, tol=0, max_iter=1000, cancel=interrupt_at_three),
                lambda: spindle.sssp(path, 0, cancel=interrupt_at_three),
                lambda: spindle.power_iteration(g, tol=0, max_iter=1000, cancel=interrupt_at_three)):
        calls.clear()
        with pytest.raises(KeyboardInterrupt):
            run()
        assert len(calls) == 3


def test_the_cancel_callable_stops_every_algorithm():
    g = spindle.generate_rmat(10, 8, seed=1)
    hub = g.id_of(int(np.argmax(g.out_degrees())))
    calls = []

    def after(k):
        def cancel():
            calls.append(1)
            return len(calls) >= k
        return cancel

    for run in (lambda c: spindle.pagerank(g, tol=0, cancel=c),
                lambda c: spindle.power_iteration(g, tol=0, cancel=c),
                lambda c: spindle.sssp(g, hub, cancel=c),
                lambda c: spindle.bfs(g, hub, cancel=c)):
        calls.clear()
        with pytest.raises(spindle.Cancelled):
            run(after(2))
        assert len(calls) == 2

    def boom():
        raise LookupError("from the callable")

    with pytest.raises(LookupError, match="from the callable"):
        spindle.pagerank(g, cancel=boom)
