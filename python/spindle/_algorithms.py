# SPDX-License-Identifier: Apache-2.0
"""Spindle's algorithms: PageRank, power iteration / eigenvector centrality, BFS, SSSP, GCN.

Each takes a spindle.Graph (or a scipy sparse matrix or networkx graph, converted for the call:
build a Graph once to reuse what it caches), releases the GIL while it runs, stops between two
iterations on Ctrl-C (KeyboardInterrupt) or when ``cancel()`` returns True (spindle.Cancelled),
and returns numpy arrays in the graph's internal vertex order with the convergence report.
``to_dict()`` keys a result by the graph's own vertex ids.
"""

from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._arrays import check_device_argument, device_capsule, host_array, like, real_dtype
from ._errors import InvalidArgument
from ._graph import Graph

__all__ = [
    "pagerank",
    "PageRankResult",
    "power_iteration",
    "PowerIterationResult",
    "eigenvector_centrality",
    "bfs",
    "BfsResult",
    "sssp",
    "SsspResult",
    "gcn",
]

_PRESETS = ("default", "networkx", "gap", "boost")


def _as_graph(G, weight):
    """(spindle.Graph, use_values) for G and the `weight` argument.

    weight: None / False (structure only), True (the graph's values), or an edge attribute name
    for a networkx graph (converted with that attribute's values)."""
    if isinstance(G, Graph):
        if isinstance(weight, str):
            return G, not G.is_pattern
        return G, bool(weight) and not G.is_pattern
    from ._graph import _is_networkx_graph

    if _is_networkx_graph(G):
        attr = weight if isinstance(weight, str) else ("weight" if weight is True else None)
        g = Graph.from_networkx(G, weight=attr)
        return g, attr is not None
    from ._graph import _is_scipy_sparse

    if _is_scipy_sparse(G) and not weight:
        # structure only: no value array is copied (nor a pattern copy made later)
        return Graph.from_scipy(G, value_dtype="pattern"), False
    g = Graph._from_any(G)
    return g, bool(weight) and not g.is_pattern


def _vertex_weights(G, values, what):
    """A float64 array in internal order from a {vertex id: weight} mapping (unlisted: 0) or
    an array-like of n weights."""
    n = G.nrows
    if isinstance(values, dict):
        out = np.zeros(n, dtype=np.float64)
        for v, w in values.items():
            out[G.index_of(v)] = w
        return out
    arr = host_array(values, np.float64, ndim=1, name=what)
    if arr.size != n:
        raise InvalidArgument(f"{what} has {arr.size} entries for {n} vertices")
    return arr


@dataclass(frozen=True)
class PageRankResult:
    """What spindle.pagerank returns.

    Attributes
    ----------
    ranks : numpy.ndarray
        The rank of every vertex, in internal order (``graph.vertex_ids[i]`` is vertex i).
    iterations : int
        Rank updates whose result counts.
    residual : float
        L1 norm of the change in the last iteration.
    converged : bool
        The stop test was met within max_iter (not converging is not an error).
    tuned : str
        Tuning mode's winning kernel ('' when no tuning ran).
    graph : spindle.Graph
        The graph ranked (for its vertex ids).
    """

    ranks: np.ndarray
    iterations: int
    residual: float
    converged: bool
    tuned: str = ""
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: rank} in the graph's own ids."""
        return self.graph.keyed(self.ranks)

    def top(self, k=10):
        """The k highest-ranked (vertex id, rank) pairs, ties by internal order."""
        order = np.argsort(-self.ranks, kind="stable")[:k]
        return [(self.graph.id_of(int(i)), float(self.ranks[i])) for i in order]


def pagerank(G, alpha=0.85, *, personalization=None, weight=None, preset="default", tol=1e-6,
             max_iter=None, device="auto", dtype="float64", mxv_kernel="auto", tune=False,
             plan_cache="", cancel=None, method="power"):
    """PageRank, with explicit conventions (and presets that reproduce other tools exactly).

    An entry A(u,v) is an edge u -> v. From x = 1/n, each iteration computes

        x' = alpha * A^T (x ./ outdeg) + (alpha * dangling + 1 - alpha) * p

    with p uniform or the personalization vector (normalized to sum 1), outdeg the out-degree
    (the weighted out-degree with `weight`), and dangling the rank held by vertices without
    out-edges. The presets:

    ==========  =================  ===================  ========================  ============
    preset      teleport           dangling rank        stops when                ranks sum to
    ==========  =================  ===================  ========================  ============
    default     (1-alpha)/n        redistributed by p   ||x'-x||_1 < tol          1
    networkx    (1-alpha)/n        redistributed by p   ||x'-x||_1 < n*tol        1
    gap         (1-alpha)/n        dropped (GAP pr)     ||x'-x||_1 < tol          <= 1
    boost       (1-alpha), not /n  dropped              after exactly max_iter    unnormalized
                                                        (20)
    ==========  =================  ===================  ========================  ============

    networkx reproduces networkx.pagerank(G, alpha, personalization, tol=tol) (its scipy
    implementation), gap the GAP benchmark suite's pr, boost boost::graph::page_rank.
    Self-loops are ordinary edges; a parallel edge counts once unless weighted (then the
    weights add up).

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph
        Square. A networkx graph is converted for this call (undirected edges both ways).
    alpha : float
        Damping factor in [0, 1]: the probability of following an edge.
    personalization : dict or array-like, optional
        Teleport (and dangling) weights: {vertex id: weight} (unlisted vertices weigh 0) or n
        weights in internal order; finite, >= 0, with a positive sum. Not with preset 'boost'.
    weight : None, bool or str
        None / False: structure only (every edge weighs 1). True: the graph's values. A string:
        the networkx edge attribute to read (for a spindle.Graph, its values). Weights must be
        finite and >= 0.
    preset : 'default', 'networkx', 'gap' or 'boost'
    tol : float
        Tolerance on the L1 norm of the change (scaled by n for 'networkx'; unused by 'boost').
    max_iter : int, optional
        Iteration limit (default 100; 20 for 'boost', which always runs exactly this many).
    device : 'auto', 'cpu' or 'cuda'
        Where the operations run ('auto': CUDA when this build has it and a GPU is present).
    dtype : 'float64' or 'float32'
        Precision of the ranks and the arithmetic.
    mxv_kernel : str
        Force an mxv/vxm kernel by name ('auto': the planner decides).
    tune, plan_cache :
        CUDA tuning mode: time the mxv kernels once for this graph and keep the fastest
        (plan_cache: a file of winners, so later processes time nothing).
    cancel : callable, optional
        Called before every iteration; returning True stops with spindle.Cancelled. Ctrl-C
        stops the call with KeyboardInterrupt either way.
    method : 'power' or 'anderson'
        'power' runs the preset's iteration. 'anderson' (presets 'default' and 'networkx')
        reaches the same fixed point in fewer matrix products by Anderson acceleration of that
        iteration, with the same stop test; its iterates differ from the preset's.

    Returns
    -------
    PageRankResult
        ``ranks`` (numpy, internal order), ``iterations``, ``residual``, ``converged``,
        ``tuned``; ``to_dict()`` keys the ranks by vertex id.

    Raises
    ------
    spindle.InvalidArgument (ValueError) for a non-square graph, bad options, a bad
    personalization, negative or non-finite weights; spindle.VertexNotFound for a
    personalization key the graph lacks; spindle.Unsupported (NotImplementedError) for
    device='cuda' in a build without CUDA.

    Deterministic on the CPU: the same bits for any thread count.
    """
    if preset not in _PRESETS:
        raise InvalidArgument(f"unknown preset {preset!r} (known: {', '.join(_PRESETS)})")
    g, weighted = _as_graph(G, weight)
    p = None if personalization is None else _vertex_weights(g, personalization,
                                                             "personalization")
    r = _core._pagerank(g._g, real_dtype(dtype), float(alpha), float(tol),
                        -1 if max_iter is None else int(max_iter), p, weighted, preset,
                        check_device_argument(device), mxv_kernel, bool(tune), plan_cache, cancel,
                        str(method))
    return PageRankResult(r["ranks"], r["iterations"], r["residual"], r["converged"], r["tuned"],
                          g)


@dataclass(frozen=True)
class PowerIterationResult:
    """What spindle.power_iteration and spindle.eigenvector_centrality return.

    Attributes
    ----------
    vector : numpy.ndarray
        The final iterate, unit L2 norm, internal order.
    eigenvalue : float
        Its Rayleigh quotient (the shift removed).
    iterations : int
    residual : float
        ||Mx - lambda x||_2: how good the eigenpair is.
    last_change : float
        The change the stop test measured last.
    converged : bool
    vanished : bool
        An iterate became exactly 0 (no cycle and no shift): the vector says nothing then.
    graph : spindle.Graph
    """

    vector: np.ndarray
    eigenvalue: float
    iterations: int
    residual: float
    last_change: float
    converged: bool
    vanished: bool
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: component of the eigenvector}."""
        return self.graph.keyed(self.vector)


def _power(G, tol, max_iter, shift, weight, centrality, device, dtype, mxv_kernel, cancel):
    g, weighted = _as_graph(G, weight)
    r = _core._power_iteration(g._g, real_dtype(dtype), float(tol), int(max_iter),
                               None if shift is None else float(shift), weighted, centrality,
                               check_device_argument(device), mxv_kernel, cancel)
    return PowerIterationResult(r["vector"], r["eigenvalue"], r["iterations"], r["residual"],
                                r["last_change"], r["converged"], r["vanished"], g)


def power_iteration(G, *, tol=1e-6, max_iter=100, shift=None, weight=None, device="auto",
                    dtype="float64", mxv_kernel="auto", cancel=None):
    """The dominant eigenpair of the adjacency matrix M = A by power iteration.

    From x = 1/sqrt(n): x <- (M + shift*I) x / ||(M + shift*I) x||_2 until the L1 norm of the
    change is below tol. A shift > 0 separates a dominant eigenvalue lambda from -lambda
    (bipartite graphs, where the plain iteration oscillates) without changing eigenvectors; the
    reported eigenvalue is M's.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    tol : float
    max_iter : int
    shift : float, optional (default 0)
    weight : None, bool or str
        Structure only (None), the graph's values (True), or a networkx edge attribute.
    device, dtype, mxv_kernel, cancel :
        As in spindle.pagerank.

    Returns
    -------
    PowerIterationResult
    """
    return _power(G, tol, max_iter, shift, weight, False, device, dtype, mxv_kernel, cancel)


def eigenvector_centrality(G, *, max_iter=100, tol=1e-6, weight=None, device="auto",
                           dtype="float64", mxv_kernel="auto", cancel=None):
    """Eigenvector centrality with networkx.eigenvector_centrality's semantics, exactly.

    M = A^T (a vertex is central when its in-neighbours are), x0 = 1/n, x <- (x + A^T x) /
    ||x + A^T x||_2, stopping when sum |x_k - x_(k-1)| < n*tol. networkx raises
    PowerIterationFailedConvergence after max_iter; here ``converged`` is False instead.

    Parameters and result as spindle.power_iteration (``vector`` holds the centralities).
    """
    return _power(G, tol, max_iter, None, weight, True, device, dtype, mxv_kernel, cancel)


@dataclass(frozen=True)
class BfsResult:
    """What spindle.bfs returns.

    Attributes
    ----------
    levels : numpy.ndarray (int64)
        Hops from the source along out-edges, internal order; -1 where unreachable.
    parents : numpy.ndarray (int64) or None
        With parents=True: the smallest-position in-neighbour on the previous level (a
        deterministic BFS tree), internal positions; the source is its own parent; -1 where
        unreachable.
    depth : int
        Number of levels (largest level + 1).
    reached : int
        Vertices reached, the source included.
    graph : spindle.Graph
    """

    levels: np.ndarray
    parents: object
    depth: int
    reached: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: level} for the reached vertices."""
        ids = self.graph.vertex_ids
        reached = np.flatnonzero(self.levels >= 0)
        return {_id(ids, i): int(self.levels[i]) for i in reached}

    def parents_dict(self):
        """{vertex id: parent's vertex id} for the reached vertices (needs parents=True)."""
        if self.parents is None:
            raise InvalidArgument("bfs ran without parents=True")
        ids = self.graph.vertex_ids
        reached = np.flatnonzero(self.levels >= 0)
        return {_id(ids, i): _id(ids, int(self.parents[i])) for i in reached}


def _id(ids, i):
    x = ids[i]
    return x.item() if isinstance(x, np.generic) else x


def bfs(G, source, *, parents=False, device="auto", mxv_kernel="auto", cancel=None):
    """Breadth-first search from `source` along out-edges (level-synchronous, masked vxm).

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square; values ignored)
    source : vertex id
        In the graph's own ids (1-based for Matrix Market files, labels for edge lists and
        networkx graphs, positions for arrays).
    parents : bool
        Also compute a BFS tree (smallest-position parent on the previous level).
    device, mxv_kernel, cancel :
        As in spindle.pagerank.

    Returns
    -------
    BfsResult
        ``levels`` (-1: unreachable), ``parents``, ``depth``, ``reached``; ``to_dict()``.

    Raises
    ------
    spindle.VertexNotFound (an IndexError and a KeyError) for a source the graph lacks.
    """
    g, _ = _as_graph(G, None)
    s = g.index_of(source)
    r = _core._bfs(g._g, s, bool(parents), check_device_argument(device), mxv_kernel, cancel)
    return BfsResult(r["level"], r["parent"], r["depth"], r["reached"], g)


@dataclass(frozen=True)
class SsspResult:
    """What spindle.sssp returns.

    Attributes
    ----------
    distances : numpy.ndarray
        Shortest-path length from the source, internal order; +inf where unreachable.
    rounds : int
        Relaxation rounds run (the last one changed nothing).
    reached : int
        Vertices with a finite distance, the source included.
    graph : spindle.Graph
    """

    distances: np.ndarray
    rounds: int
    reached: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: distance} for the reached vertices."""
        ids = self.graph.vertex_ids
        reached = np.flatnonzero(np.isfinite(self.distances))
        return {_id(ids, i): float(self.distances[i]) for i in reached}


def sssp(G, source, *, weight=True, device="auto", dtype="float64", mxv_kernel="auto",
         cancel=None):
    """Single-source shortest path lengths along out-edges (Bellman-Ford by min-plus vxm:
    round r relaxes from the vertices whose distance changed in round r-1).

    Negative weights are allowed; a negative cycle reachable from the source raises
    spindle.InvalidArgument. A pattern graph (or weight=None) gives hop counts.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    source : vertex id (the graph's own ids)
    weight : bool or str
        True: the graph's values (a networkx graph: its 'weight' attribute, 1 where absent);
        a string: that networkx attribute; None / False: every edge 1.
    device, dtype, mxv_kernel, cancel :
        As in spindle.pagerank.

    Returns
    -------
    SsspResult
        ``distances`` (+inf: unreachable), ``rounds``, ``reached``; ``to_dict()``.
    """
    g, weighted = _as_graph(G, weight)
    if not weighted and not g.is_pattern:
        g = g.with_values("pattern")
    s = g.index_of(source)
    r = _core._sssp(g._g, s, real_dtype(dtype), check_device_argument(device), mxv_kernel, cancel)
    return SsspResult(r["distance"], r["rounds"], r["reached"], g)


def gcn(G, features, weights, biases=None, *, order="auto", weighted=False, in_edges=False,
        device="auto", dtype=None, mxm_kernel="auto", tune=False, fuse=False, fuse_dense=True,
        cancel=None):
    """Graph convolutional network inference (Kipf & Welling).

    H_0 = X, H_(l+1) = ReLU(Â H_l W_l + b_l) between layers, no activation after the last, with
    Â = D^-1/2 (A + I) D^-1/2 (a unit self-loop added where the diagonal entry is missing; D the
    row sums of A + I), computed once per call.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    features : 2-D array-like (numpy, torch, cupy, ...), n x d_0
    weights : sequence of 2-D array-likes, W_l of shape d_l x d_(l+1)
    biases : sequence of 1-D array-likes, optional (zeros by default)
    order : 'auto', 'aggregate_first' or 'transform_first'
        Multiplication order per layer ('auto': fewer flops).
    weighted : bool
        Build Â from the graph's values instead of its structure.
    in_edges : bool
        Aggregate over in-neighbours (A^T: PyTorch Geometric's GCNConv default flow).
    device : 'auto', 'cpu' or 'cuda'
    dtype : 'float32' or 'float64', optional
        Default: the features' (float32 unless they are float64).
    mxm_kernel, tune, fuse, fuse_dense :
        The engine's GcnOptions (kernel forcing and CUDA tuning / fusion).
    cancel : callable, optional
        Called before every layer (see spindle.pagerank).

    Returns
    -------
    The n x d_L output: a numpy array, or a torch / cupy array on the features' device when
    the features are one (on CUDA the features are copied device to device and the output is
    handed over without a copy: no host round trip; the weights and biases, small, go through
    the host).
    """
    g, _ = _as_graph(G, None)
    if dtype is None:
        dt = getattr(features, "dtype", None)
        dtype = "float64" if str(dt).endswith("float64") else "float32"
    name = real_dtype(dtype)
    X = device_capsule(features, name, ndim=2, name="features")
    if X is None:
        X = host_array(features, name, ndim=2, name="features")
    W = [host_array(w, name, ndim=2, name="weights") for w in weights]
    if biases is None:
        B = [np.zeros(w.shape[1], dtype=name) for w in W]
    else:
        B = [host_array(b, name, ndim=1, name="biases") for b in biases]
        if len(B) != len(W):
            raise InvalidArgument(f"{len(B)} biases for {len(W)} layers")
    out = _core._gcn(g._g, X, W, B, name, order, bool(weighted), bool(in_edges),
                     check_device_argument(device), mxm_kernel, bool(tune), bool(fuse),
                     bool(fuse_dense), cancel)
    return like(out, features)
