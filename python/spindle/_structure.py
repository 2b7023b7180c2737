# SPDX-License-Identifier: Apache-2.0
"""Spindle's structural algorithms: connected components (weak and strong), triangle counts and
the clustering coefficient, core numbers (k-core decomposition), Jaccard coefficients.

Each takes a spindle.Graph (or a scipy sparse matrix or networkx graph, converted for the call),
releases the GIL while it runs and returns numpy arrays in the graph's internal vertex order;
``to_dict()`` keys a result by the graph's own vertex ids. The iterative ones stop between two
rounds on Ctrl-C (KeyboardInterrupt) or when ``cancel()`` returns True (spindle.Cancelled).
"""

from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._algorithms import _as_graph, _id
from ._arrays import check_device_argument
from ._graph import Graph

__all__ = [
    "weakly_connected_components",
    "strongly_connected_components",
    "ComponentsResult",
    "triangles",
    "TriangleResult",
    "core_numbers",
    "KCoreResult",
    "jaccard_coefficient",
    "JaccardResult",
]


@dataclass(frozen=True)
class ComponentsResult:
    """What spindle.weakly_connected_components and spindle.strongly_connected_components
    return.

    Attributes
    ----------
    labels : numpy.ndarray (int64)
        labels[v] is the internal position of the smallest-position vertex of v's component:
        two vertices share a label exactly when they share a component (the same for any thread
        count and backend).
    count : int
        Number of components.
    rounds : int
        Rounds run (hooking rounds for weak components, coloring rounds for strong ones).
    graph : spindle.Graph
    """

    labels: np.ndarray
    count: int
    rounds: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: vertex id of its component's smallest-position vertex}."""
        ids = self.graph.vertex_ids
        return {_id(ids, i): _id(ids, int(r)) for i, r in enumerate(self.labels.tolist())}

    def components(self):
        """The components as a list of sets of vertex ids, ordered by their smallest-position
        vertex (the order in which networkx's connected_components finds them)."""
        ids = self.graph.vertex_ids
        order = np.argsort(self.labels, kind="stable")
        bounds = np.flatnonzero(np.diff(self.labels[order])) + 1
        return [{_id(ids, i) for i in part.tolist()} for part in np.split(order, bounds)
                if part.size]


def _components(G, strong, device, mxv_kernel, cancel):
    g, _ = _as_graph(G, None)
    r = _core._components(g._g, strong, check_device_argument(device), mxv_kernel, cancel)
    return ComponentsResult(r["label"], r["count"], r["rounds"], g)


def weakly_connected_components(G, *, device="auto", mxv_kernel="auto", cancel=None):
    """Weakly connected components: u and v share one when a path joins them ignoring edge
    directions (for an undirected graph, its connected components). Values and self-loops are
    ignored.

    FastSV-style min-label hooking and shortcutting (one mxv and one vxm over min_times per
    round), until a round changes no label.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    device : 'auto', 'cpu' or 'cuda'
    mxv_kernel : str
        Force an mxv/vxm kernel by name ('auto': the planner decides).
    cancel : callable, optional
        Called before every round; returning True stops with spindle.Cancelled.

    Returns
    -------
    ComponentsResult
        ``labels`` (smallest internal position in each vertex's component), ``count``,
        ``rounds``; ``to_dict()``, ``components()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph; spindle.Unsupported for device='cuda' in a
    build without CUDA.
    """
    return _components(G, False, device, mxv_kernel, cancel)


def strongly_connected_components(G, *, device="auto", mxv_kernel="auto", cancel=None):
    """Strongly connected components: u and v share one when each reaches the other along
    out-edges (A(u, v) is an edge u -> v). Values are ignored.

    Rounds of trimming (vertices without in- or out-edges among the rest are components by
    themselves) and forward/backward min-label coloring, all by masked mxv/vxm.

    Parameters and result as spindle.weakly_connected_components.
    """
    return _components(G, True, device, mxv_kernel, cancel)


@dataclass(frozen=True)
class TriangleResult:
    """What spindle.triangles returns.

    Attributes
    ----------
    total : int
        Triangles of the graph, each counted once.
    per_vertex : numpy.ndarray (int64) or None
        Triangles through each vertex, internal order (with per_vertex=True or clustering=True).
    clustering : numpy.ndarray (float64) or None
        Local clustering coefficient 2 t(v) / (d(v) (d(v) - 1)), 0 where d(v) < 2, internal
        order (with clustering=True).
    edges : int
        Edges of the undirected simple graph counted over.
    degree_ordered : bool
        The total was counted after relabelling the vertices by degree (skewed graphs).
    graph : spindle.Graph
    """

    total: int
    per_vertex: object
    clustering: object
    edges: int
    degree_ordered: bool
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: triangles through it} (needs per_vertex=True or clustering=True)."""
        if self.per_vertex is None:
            from ._errors import InvalidArgument

            raise InvalidArgument("triangles ran without per_vertex=True")
        return self.graph.keyed(self.per_vertex)

    def clustering_dict(self):
        """{vertex id: clustering coefficient} (needs clustering=True)."""
        if self.clustering is None:
            from ._errors import InvalidArgument

            raise InvalidArgument("triangles ran without clustering=True")
        return self.graph.keyed(self.clustering)


def triangles(G, *, per_vertex=False, clustering=False, device="auto", kernel="auto"):
    """Triangles of the undirected simple graph underlying G, as networkx.triangles and the
    unweighted networkx.clustering see it: an edge {u, v} (u != v) wherever A(u, v) or A(v, u)
    is stored; values, self-loops and directions are ignored.

    The total is the sum of L plus.pair L^T masked by L (L the strictly lower triangle, after
    relabelling the vertices by degree on skewed graphs); the per-vertex counts add a second
    masked product. The sparse x sparse mxm runs on the CPU.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    per_vertex : bool
        Also count the triangles through every vertex.
    clustering : bool
        Also compute every vertex's local clustering coefficient (implies per_vertex).
    device : 'auto', 'cpu' or 'cuda'
        'auto' runs the products on CUDA when a device is present and they are many; the counts
        are exact on either.
    kernel : str
        Force a sparse x sparse mxm kernel by name ('auto': the planner decides).

    Returns
    -------
    TriangleResult
        ``total``, ``per_vertex``, ``clustering``, ``edges``, ``degree_ordered``;
        ``to_dict()``, ``clustering_dict()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph; spindle.Unsupported for device='cuda';
    spindle.OutOfMemory.
    """
    g, _ = _as_graph(G, None)
    r = _core._triangles(g._g, bool(per_vertex), bool(clustering),
                         check_device_argument(device), kernel)
    return TriangleResult(r["total"], r["per_vertex"], r["clustering"], r["edges"],
                          r["degree_ordered"], g)


@dataclass(frozen=True)
class KCoreResult:
    """What spindle.core_numbers returns.

    Attributes
    ----------
    core : numpy.ndarray (int64)
        Core number of every vertex, internal order: the largest k such that the vertex lies in
        a subgraph whose every vertex has degree >= k inside it (0 when isolated).
    max_core : int
        The largest core number.
    steps : int
        Peeling steps run.
    graph : spindle.Graph
    """

    core: np.ndarray
    max_core: int
    steps: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_dict(self):
        """{vertex id: core number}."""
        return self.graph.keyed(self.core)


def core_numbers(G, *, directed=None, device="auto", mxv_kernel="auto", cancel=None):
    """Core numbers (k-core decomposition) by level-synchronous peeling, as
    networkx.core_number computes them.

    Every remaining vertex of degree <= k gets core number k and is removed at once; removing
    it lowers its neighbours' degrees (one mxv per step); k rises to the smallest remaining
    degree when none is left. Values are ignored.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square, without self-loops)
    directed : bool, optional
        False: G is undirected, stored both ways (its structure must be symmetric), and a
        vertex's degree is its number of neighbours (networkx on an nx.Graph). True: the degree
        is in-degree + out-degree, a neighbour joined both ways counting twice (networkx on an
        nx.DiGraph). Default: the graph's own ``directed`` (False for an undirected networkx
        graph or from_edges(directed=False)).
    device, mxv_kernel :
        As in spindle.weakly_connected_components.
    cancel : callable, optional
        Called before every peeling step (see spindle.pagerank).

    Returns
    -------
    KCoreResult
        ``core``, ``max_core``, ``steps``; ``to_dict()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph, a graph with self-loops (networkx refuses
    them too), or an undirected one whose structure is not symmetric.
    """
    g, _ = _as_graph(G, None)
    d = g.directed if directed is None else bool(directed)
    r = _core._core_numbers(g._g, d, check_device_argument(device), mxv_kernel, cancel)
    return KCoreResult(r["core"], r["max_core"], r["steps"], g)


@dataclass(frozen=True)
class KTrussResult:
    """What spindle.k_truss returns.

    Attributes
    ----------
    first, second : numpy.ndarray (int64)
        The truss's edges {first[e], second[e]} as internal positions, first < second.
    vertices : numpy.ndarray (int64)
        The vertices with an edge in the truss (the ones networkx.k_truss keeps), increasing.
    rounds : int
        Rounds of masked products the peeling took.
    graph : spindle.Graph
    """

    first: np.ndarray
    second: np.ndarray
    vertices: np.ndarray
    rounds: int
    graph: Graph = field(default=None, repr=False, compare=False)

    def edges(self):
        """[(u, v)] in the graph's own vertex ids."""
        ids = self.graph.vertex_ids
        return [(_id(ids, u), _id(ids, v)) for u, v in
                zip(self.first.tolist(), self.second.tolist())]

    def nodes(self):
        """The kept vertices in the graph's own vertex ids."""
        ids = self.graph.vertex_ids
        return [_id(ids, v) for v in self.vertices.tolist()]


def k_truss(G, k, *, device="auto", kernel="auto", cancel=None):
    """The k-truss, as networkx.k_truss computes it: the largest subgraph of the undirected
    simple graph underlying G (either direction is an edge; self-loops and values ignored) in
    which every edge lies in at least k - 2 triangles, and the vertices that keep an edge.

    Supports are counted by masked sparse x sparse products (plus.pair), edges below k - 2 are
    removed together, and the supports of the edges beside them are lowered by two masked
    products per round until none is removed.

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph (square)
    k : int, at least 2
    device : 'auto', 'cpu' or 'cuda'
    kernel : str
        Forces the sparse mxm kernel of every product ('auto': the planner decides).
    cancel : callable, optional
        Called before every round (see spindle.pagerank).

    Returns
    -------
    KTrussResult
        ``first``, ``second``, ``vertices``, ``rounds``; ``edges()``, ``nodes()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square graph or k < 2.
    """
    g, _ = _as_graph(G, None)
    r = _core._k_truss(g._g, int(k), check_device_argument(device), kernel, cancel)
    return KTrussResult(r["first"], r["second"], r["vertices"], r["rounds"], g)


@dataclass(frozen=True)
class JaccardResult:
    """What spindle.jaccard_coefficient returns.

    Attributes
    ----------
    first, second : numpy.ndarray (int64)
        The pairs, as internal positions.
    coefficients : numpy.ndarray (float64)
        The Jaccard coefficient of each pair, in the order given.
    graph : spindle.Graph
    """

    first: np.ndarray
    second: np.ndarray
    coefficients: np.ndarray
    graph: Graph = field(default=None, repr=False, compare=False)

    def to_list(self):
        """[(u, v, coefficient)] in the graph's own vertex ids, as networkx yields them."""
        ids = self.graph.vertex_ids
        return [(_id(ids, u), _id(ids, v), c) for u, v, c in
                zip(self.first.tolist(), self.second.tolist(), self.coefficients.tolist())]


def jaccard_coefficient(G, pairs=None, *, batch=0, device="auto", cancel=None):
    """Jaccard coefficients |N(u) ∩ N(v) \\ {u, v}| / |N(u) ∪ N(v)| of vertex pairs of an
    undirected graph (0 where the union is empty), exactly as networkx.jaccard_coefficient
    computes them (N(u) holds u itself when it has a self-loop). Values are ignored.

    The pairs are grouped by their second vertex; per batch of such vertices, two SpMMs over
    dense neighbour-indicator matrices count the common neighbours. Cost O(edges x distinct
    second vertices).

    Parameters
    ----------
    G : spindle.Graph, scipy sparse matrix or networkx graph
        Square with a symmetric structure (an undirected graph stored both ways).
    pairs : iterable of (u, v) vertex-id pairs, optional
        Default: every edge once (u < v by internal position, self-loops skipped).
    batch : int
        Second vertices per batch (0: min(256, max(1, 2^27 / (16 n)))).
    device : 'auto', 'cpu' or 'cuda'
    cancel : callable, optional
        Called before every batch (see spindle.pagerank).

    Returns
    -------
    JaccardResult
        ``first``, ``second`` (internal positions), ``coefficients``; ``to_list()``.

    Raises
    ------
    spindle.InvalidArgument for a non-square or non-symmetric graph or a bad batch;
    spindle.VertexNotFound for a vertex id the graph lacks.
    """
    g, _ = _as_graph(G, None)
    if pairs is None:
        first, second = _core._edge_pairs(g._g)
    else:
        pairs = list(pairs)
        first = np.fromiter((g.index_of(u) for u, _ in pairs), np.int64, len(pairs))
        second = np.fromiter((g.index_of(v) for _, v in pairs), np.int64, len(pairs))
    c = _core._jaccard(g._g, first, second, int(batch), check_device_argument(device), cancel)
    return JaccardResult(first, second, c, g)
