# SPDX-License-Identifier: Apache-2.0
"""Spindle's centralities beyond PageRank and eigenvector centrality: HITS, Katz centrality and
betweenness centrality, with networkx's parameters and scaling.

Each takes a spindle.Graph (or a scipy sparse matrix or networkx graph, converted for the call),
releases the GIL while it runs, stops between two iterations on Ctrl-C (KeyboardInterrupt) or
when ``cancel()`` returns True (spindle.Cancelled), and returns numpy arrays in the graph's
internal vertex order; ``to_dict()`` keys a result by the graph's own vertex ids.
"""

import numbers
from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._algorithms import _as_graph, _vertex_weights
from ._arrays import check_device_argument, host_array, real_dtype
from ._graph import Graph

__all__ = [
    "hits",
    "HitsResult",
    "katz_centrality",
    "KatzResult",
    "betweenness_centrality",
    "BetweennessResult",
]


def _optional_weights(g, values, what):
    return None if values is None else _vertex_weights(g, values, what)


@dataclass(frozen=True)
class HitsResult:
    """What spindle.hits returns.

    Attributes
    ----------
    hubs, authorities : numpy.ndarray
        Hub and authority score of every vertex, internal order.
    iterations : int
    residual : float
        L1 change of the (max-normalized) hub vector in the last iteration.
    converged : bool
        The stop test was met within max_iter (networkx raises instead; not an error here).
    graph : spindle.Graph
    """

    hubs: np.ndarray
    authorities: np.ndarray
    iterations: int
    residual: float
    converged: bool
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """({vertex id: hub score}, {vertex id: authority score}), as networkx.hits returns."""
        return self.graph.keyed(self.hubs), self.graph.keyed(self.authorities)


def hits(G, *, max_iter=100, tol=1e-8, nstart=None, normalized=True, weight=None,
         device="auto", dtype="float64", mxv_kernel="auto", cancel=None):
    """HITS hubs and authorities (Kleinberg) with networkx.hits's parameters and normalization.

    An entry A(u, v) is an edge u -> v: u is a hub pointing at the authority v. From h =
    nstart / sum (or 1/n), each iteration computes a = A^T h and h = A a, scales both to a
    largest entry of 1, and stops when the L1 change of h is below tol; with `normalized` both
    are divided by their sums at the end. networkx computes the same dominant singular vectors
    with ARPACK (max_iter bounds ARPACK's iterations there, power iterations here, which some
    graphs need many more of). A graph without edges gives 1/n everywhere.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    max_iter : int
        Iteration limit (>= 1).
    tol : float
        Tolerance on the L1 change of the max-normalized hub vector (>= 0).
    nstart : dict or array-like, optional
        Starting hub values: {vertex id: value} (unlisted: 0) or n values in internal order;
        finite, >= 0, with a positive sum.
    normalized : bool
        Divide hubs and authorities by their sums (else their largest entry is 1).
    weight : None, bool or str
        Structure only (None), the graph's values (True), or a networkx edge attribute; weights
        must be >= 0.
    device, dtype, mxv_kernel, cancel :
        As in spindle.pagerank.

    Returns
    -------
    HitsResult
        ``hubs``, ``authorities``, ``iterations``, ``residual``, ``converged``; ``to_dict()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph or bad options (nstart of the wrong size,
    negative or summing to 0, max_iter < 1, tol < 0, negative weights).
    """
    g, weighted = _as_graph(G, weight)
    r = _core._hits(g._g, real_dtype(dtype), int(max_iter), float(tol),
                    _optional_weights(g, nstart, "nstart"), bool(normalized), weighted,
                    check_device_argument(device), mxv_kernel, cancel)
    return HitsResult(r["hubs"], r["authorities"], r["iterations"], r["residual"],
                      r["converged"], g)


@dataclass(frozen=True)
class KatzResult:
    """What spindle.katz_centrality returns.

    Attributes
    ----------
    centrality : numpy.ndarray
        Katz centrality of every vertex, internal order: normalized as asked when converged,
        the last unnormalized iterate when not.
    iterations : int
    residual : float
        L1 change in the last iteration.
    converged : bool
        ||x' - x||_1 < n*tol was met within max_iter (networkx raises instead).
    graph : spindle.Graph
    """

    centrality: np.ndarray
    iterations: int
    residual: float
    converged: bool
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: centrality}."""
        return self.graph.keyed(self.centrality)


def katz_centrality(G, alpha=0.1, beta=1.0, *, max_iter=1000, tol=1e-6, nstart=None,
                    normalized=True, weight=None, device="auto", dtype="float64",
                    mxv_kernel="auto", cancel=None):
    """Katz centrality with networkx.katz_centrality's parameters, iteration, stop rule and
    normalization.

    An entry A(u, v) is an edge u -> v; a vertex gains from its in-neighbours. From x = nstart
    (or 0), each iteration computes x' = alpha A^T x + beta and stops when ||x' - x||_1 < n*tol;
    with `normalized` the result is divided by its Euclidean norm. The empty graph gives an
    empty array.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    alpha : float
        Attenuation factor; the iteration converges when alpha < 1 / spectral radius.
    beta : float, dict or array-like
        The weight every vertex gets for free: one number, or one per vertex ({vertex id:
        value}, unlisted 0; or n values in internal order).
    max_iter : int
        Iteration limit (>= 0).
    tol : float
        Tolerance (>= 0), scaled by n as networkx does.
    nstart : dict or array-like, optional
        Starting values ({vertex id: value}, unlisted 0; or n values); not normalized.
    normalized : bool
    weight : None, bool or str
        Structure only (None: networkx's default), the graph's values (True), or a networkx
        edge attribute.
    device, dtype, mxv_kernel, cancel :
        As in spindle.pagerank.

    Returns
    -------
    KatzResult
        ``centrality``, ``iterations``, ``residual``, ``converged``; ``to_dict()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph or bad options (non-finite alpha or beta,
    per-vertex values of the wrong size or not finite, max_iter < 0, tol < 0).
    """
    g, weighted = _as_graph(G, weight)
    if isinstance(beta, numbers.Real):
        scalar, per_vertex = float(beta), None
    else:
        scalar, per_vertex = 1.0, _vertex_weights(g, beta, "beta")
    r = _core._katz(g._g, real_dtype(dtype), float(alpha), scalar, per_vertex, int(max_iter),
                    float(tol), _optional_weights(g, nstart, "nstart"), bool(normalized),
                    weighted, check_device_argument(device), mxv_kernel, cancel)
    return KatzResult(r["centrality"], r["iterations"], r["residual"], r["converged"], g)


@dataclass(frozen=True)
class BetweennessResult:
    """What spindle.betweenness_centrality returns.

    Attributes
    ----------
    centrality : numpy.ndarray (float64)
        Betweenness of every vertex, internal order, scaled as networkx scales it.
    sources : numpy.ndarray (int64)
        The sources used, as internal positions (every vertex for the exact computation).
    batches : int
        Batches of sources run.
    graph : spindle.Graph
    """

    centrality: np.ndarray
    sources: np.ndarray
    batches: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: betweenness}."""
        return self.graph.keyed(self.centrality)


def betweenness_centrality(G, k=None, *, sources=None, seed=0, normalized=True,
                           endpoints=False, directed=None, batch=0, device="auto",
                           mxm_kernel="auto", cancel=None):
    """Betweenness centrality (Brandes), exact or from sampled sources, by hop count, scaled
    exactly as networkx.betweenness_centrality scales it.

    An entry A(u, v) is an edge u -> v; values are ignored (no weighted betweenness yet). A
    batch of sources runs at once: one SpMM per BFS level forward, one per level back.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    k : int, optional
        Sample k distinct sources (0 <= k <= n); None: every vertex (exact).
    sources : iterable of vertex ids, optional
        Explicit sources (distinct): the sampled computation over exactly these, scaled for
        k = len(sources), as networkx scales its sample. Overrides k and seed. To reproduce
        networkx.betweenness_centrality(G, k, seed=s), pass
        ``random.Random(s).sample(list(G), k)``.
    seed : int
        Seed of the sampling with k: a partial Fisher-Yates shuffle driven by
        std::mt19937_64(seed) -- not networkx's generator, so not networkx's sources.
    normalized : bool
        Divide by the number of (s, t) pairs that could pass through each vertex.
    endpoints : bool
        Count the endpoints of each path as on it.
    directed : bool, optional
        False: G is undirected, stored both ways, and unnormalized scores count each unordered
        pair once (as networkx on an nx.Graph). Default: the graph's own ``directed``.
    batch : int
        Sources per batch (0: min(64, max(1, 2^28 / (48 n)))).
    device : 'auto', 'cpu' or 'cuda'
    mxm_kernel : str
        Force an mxm kernel by name ('auto': the planner decides).
    cancel : callable, optional
        Called before every BFS and dependency level (see spindle.pagerank).

    Returns
    -------
    BetweennessResult
        ``centrality``, ``sources``, ``batches``; ``to_dict()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph or bad options (k outside [0, n], repeated
    sources, batch < 0); spindle.VertexNotFound for a source the graph lacks.
    """
    g, _ = _as_graph(G, None)
    s = None
    k = -1 if k is None else int(k)
    if sources is not None:
        s = np.fromiter((g.index_of(v) for v in sources), np.int64)
        s = host_array(s, np.int64, ndim=1, name="sources")
        k = s.size  # an empty list is a sample of 0 sources, not the exact computation
    d = g.directed if directed is None else bool(directed)
    r = _core._betweenness(g._g, k, int(seed), s, bool(normalized),
                           bool(endpoints), d, int(batch), check_device_argument(device),
                           mxm_kernel, cancel)
    return BetweennessResult(r["centrality"], r["sources"], r["batches"], g)
