# SPDX-License-Identifier: Apache-2.0
"""Spindle as a networkx backend: ``nx.pagerank(G, backend="spindle")``.

networkx converts the graph once (:meth:`BackendInterface.convert_from_nx`, cached on the
graph by networkx while it is not modified) and calls the function of the same name here, which
runs on Spindle's engine and returns what networkx would. Functions and arguments Spindle does
not support are declined by :meth:`BackendInterface.can_run`: networkx then runs its own
implementation when Spindle was picked through ``nx.config.backend_priority`` (or with
``nx.config.fallback_to_nx``), and raises NotImplementedError when ``backend="spindle"`` asked
for Spindle by name.

Dispatched: pagerank, eigenvector_centrality, eigenvector_centrality_numpy,
single_source_shortest_path_length, single_target_shortest_path_length, bfs_layers,
descendants_at_distance, single_source_dijkstra_path_length, dijkstra_path_length,
single_source_bellman_ford_path_length, bellman_ford_path_length, descendants, ancestors,
has_path, is_connected, is_strongly_connected, node_connected_component, connected_components,
number_connected_components, weakly_connected_components, number_weakly_connected_components,
is_weakly_connected, strongly_connected_components, number_strongly_connected_components,
triangles, clustering, average_clustering, transitivity (the last three undirected and
unweighted), core_number, k_truss (k >= 2; the graph networkx returns, attributes and order
included), hits, katz_centrality, jaccard_coefficient, betweenness_centrality (unweighted; with
k, networkx's own sampling of the sources).

Configuration: ``nx.config.backends.spindle.device`` ('auto', 'cpu' or 'cuda') says where the
engine runs.
"""

import inspect
import numbers

import numpy as np

import networkx as nx

from . import _core
from ._graph import Graph, _convert_networkx
from ._algorithms import bfs as _bfs
from ._algorithms import eigenvector_centrality as _eigenvector_centrality
from ._algorithms import pagerank as _pagerank
from ._algorithms import sssp as _sssp
from ._centrality import betweenness_centrality as _betweenness_centrality
from ._centrality import hits as _hits
from ._centrality import katz_centrality as _katz_centrality
from ._structure import core_numbers as _core_numbers
from ._structure import jaccard_coefficient as _jaccard_coefficient
from ._structure import k_truss as _k_truss
from ._structure import strongly_connected_components as _strongly_connected_components
from ._structure import triangles as _triangles
from ._structure import weakly_connected_components as _weakly_connected_components
from ._errors import InvalidArgument

__all__ = ["BackendInterface", "SpindleGraph"]


class SpindleGraph:
    """A networkx graph converted for Spindle: the engine graph (``spindle_graph``), the nodes
    in its vertex order, whether it is directed, and the edge attribute its values came from
    (None: structure only, or every value was 1). ``source`` is the networkx graph itself for
    the functions that give back part of it with its attributes (k_truss), else None."""

    __networkx_backend__ = "spindle"
    source = None

    def __init__(self, spindle_graph, nodes, directed, weight=None, graph_attrs=None):
        self.spindle_graph = spindle_graph
        self.nodes = nodes
        self.directed = directed
        self.weight = weight
        self.graph = dict(graph_attrs or {})
        self.__networkx_cache__ = {}

    def is_directed(self):
        """True for a graph converted from a DiGraph."""
        return self.directed

    def is_multigraph(self):
        """Always False: multigraphs are not converted."""
        return False

    def __len__(self):
        return len(self.nodes)

    def number_of_nodes(self):
        """Number of nodes."""
        return len(self.nodes)

    def number_of_edges(self):
        """Number of edges (an undirected edge once)."""
        g = self.spindle_graph
        if self.directed:
            return g.nnz
        loops = int(g.stats()["self_loops"])
        return (g.nnz - loops) // 2 + loops

    def __contains__(self, node):
        return node in self.spindle_graph

    def __iter__(self):
        return iter(self.nodes)

    def __repr__(self):
        kind = "DiGraph" if self.directed else "Graph"
        return (f"<spindle networkx backend {kind}: {len(self.nodes)} nodes, "
                f"{self.number_of_edges()} edges, weight={self.weight!r}>")


def _device():
    cfg = getattr(nx.config.backends, "spindle", None)
    return getattr(cfg, "device", "auto") if cfg is not None else "auto"


def _weighted(G, weight):
    """True when the call's `weight` is the attribute G's values came from (False when the
    values are all 1: then the structure says the same)."""
    return weight is not None and G.weight is not None and weight == G.weight


def _values(G, weight):
    g = G.spindle_graph
    return g.data if _weighted(G, weight) else None


def _require_source(G, source, message):
    if source not in G:
        raise nx.NodeNotFound(message.format(source))


def _by_distance(G, dist, keep):
    """{node: dist} over the kept vertices, nearest first (networkx's order of discovery by
    distance; ties in vertex order)."""
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(dist[idx], kind="stable")]
    nodes = G.nodes
    return dict(zip((nodes[i] for i in idx.tolist()), dist[idx].tolist()))


# --- the dispatched functions ----------------------------------------------------------------


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """networkx.pagerank on Spindle: the 'networkx' preset (the same iteration as networkx's
    scipy implementation, and its stop test ||x'-x||_1 < n*tol), in double precision."""
    n = len(G)
    if n == 0:
        return {}
    p = None
    if personalization is not None:
        p = np.array([personalization.get(v, 0) for v in G.nodes], dtype=np.float64)
        if p.sum() == 0:
            raise ZeroDivisionError
    r = _pagerank(G.spindle_graph, alpha, personalization=p, weight=_weighted(G, weight),
                  preset="networkx", tol=tol, max_iter=max_iter, device=_device())
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.nodes, r.ranks.tolist()))


def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """networkx.eigenvector_centrality on Spindle (the same iteration and stop test)."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    r = _eigenvector_centrality(G.spindle_graph, max_iter=max_iter, tol=tol,
                                weight=_weighted(G, weight), device=_device())
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.nodes, r.vector.tolist()))


# Power iteration stands in for ARPACK here: its stop test (sum |x_k - x_(k-1)| < n*tol) with
# this tol leaves an error near 1e-13 per entry on graphs with a fair spectral gap; the limit
# keeps slow cases bounded (they raise instead of answering imprecisely).
_NUMPY_TOL = 1e-14
_NUMPY_ITERATIONS_PER_MAX_ITER = 200


def eigenvector_centrality_numpy(G, weight=None, max_iter=50, tol=0):
    """networkx.eigenvector_centrality_numpy on Spindle: the same eigenvector (unit L2 norm,
    positive), by power iteration on A^T + I to a tight tolerance instead of ARPACK."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    g = G.spindle_graph
    reach = _bfs(g, g.id_of(0), device=_device()).reached
    if G.directed and reach == len(G):
        reach = _bfs(g.transpose(), g.id_of(0), device=_device()).reached
    if reach != len(G):
        raise nx.AmbiguousSolution(
            "`eigenvector_centrality_numpy` does not give consistent results for disconnected "
            "graphs"
        )
    limit = max(1000, _NUMPY_ITERATIONS_PER_MAX_ITER * int(max_iter))
    r = _eigenvector_centrality(g, max_iter=limit, tol=tol if tol > 0 else _NUMPY_TOL,
                                weight=_weighted(G, weight), device=_device())
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(limit)
    x = r.vector
    x = x / (np.sign(x.sum()) * np.linalg.norm(x))
    return dict(zip(G.nodes, x.tolist()))


def single_source_shortest_path_length(G, source, cutoff=None):
    """networkx.single_source_shortest_path_length on Spindle's BFS."""
    _require_source(G, source, "Source {} is not in G")
    levels = _bfs(G.spindle_graph, source, device=_device()).levels
    keep = levels >= 0
    if cutoff is not None:
        keep &= levels <= cutoff
    return _by_distance(G, levels, keep)


def single_target_shortest_path_length(G, target, cutoff=None):
    """networkx.single_target_shortest_path_length on Spindle's BFS over the transpose."""
    _require_source(G, target, "Target {} is not in G")
    g = G.spindle_graph
    levels = _bfs(g.transpose() if G.directed else g, target, device=_device()).levels
    keep = levels >= 0
    if cutoff is not None:
        keep &= levels <= cutoff
    return _by_distance(G, levels, keep)


def _single_source(G, sources):
    """The one source of a bfs_layers call (NotImplementedError for several)."""
    if sources in G:
        return sources
    sources = list(dict.fromkeys(sources))
    for s in sources:
        if s not in G:
            raise nx.NetworkXError(f"The node {s} is not in the graph.")
    if len(sources) > 1:
        raise NotImplementedError("spindle's BFS has one source; several sources run in networkx")
    return sources[0] if sources else None


def bfs_layers(G, sources):
    """networkx.bfs_layers on Spindle's BFS, for one source; each layer lists its nodes in
    the graph's node order."""
    source = _single_source(G, sources)
    if source is None:
        return iter(())
    levels = _bfs(G.spindle_graph, source, device=_device()).levels
    reached = np.flatnonzero(levels >= 0)
    order = reached[np.argsort(levels[reached], kind="stable")]
    bounds = np.flatnonzero(np.diff(levels[order])) + 1
    nodes = G.nodes
    layers = [[nodes[i] for i in part.tolist()] for part in np.split(order, bounds)]
    return iter(layers)


def descendants_at_distance(G, source, distance):
    """networkx.descendants_at_distance on Spindle's BFS."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    levels = _bfs(G.spindle_graph, source, device=_device()).levels
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(levels == distance).tolist()}


def _sssp_distances(G, source, weight):
    r = _sssp(G.spindle_graph, source, weight=_weighted(G, weight), device=_device())
    return r.distances


def _as_numbers(G, weight, dist, idx):
    values = dist[idx]
    if not _weighted(G, weight):
        return values.astype(np.int64).tolist()  # hop counts, ints as networkx gives them
    return values.tolist()


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """networkx.single_source_dijkstra_path_length on Spindle's SSSP (min-plus Bellman-Ford).
    Graphs with negative weights run in networkx (Dijkstra's answer is undefined there)."""
    _require_source(G, source, "Node {} not found in graph")
    values = _values(G, weight)
    if values is not None and values.size and values.min() < 0:
        raise NotImplementedError("negative weights: networkx's Dijkstra decides what happens")
    dist = _sssp_distances(G, source, weight)
    keep = np.isfinite(dist)
    if cutoff is not None:
        keep &= dist <= cutoff
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(dist[idx], kind="stable")]
    return dict(zip((G.nodes[i] for i in idx.tolist()), _as_numbers(G, weight, dist, idx)))


def dijkstra_path_length(G, source, target, weight="weight"):
    """networkx.dijkstra_path_length on Spindle's SSSP (see single_source_dijkstra_path_length)."""
    _require_source(G, source, "Node {} not found in graph")
    if source == target:
        return 0
    lengths = single_source_dijkstra_path_length(G, source, weight=weight)
    try:
        return lengths[target]
    except (KeyError, TypeError):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}") from None


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """networkx.single_source_bellman_ford_path_length on Spindle's SSSP; a negative cycle
    reachable from the source raises NetworkXUnbounded."""
    _require_source(G, source, "Source {} not in G")
    try:
        dist = _sssp_distances(G, source, weight)
    except InvalidArgument as exc:
        if "negative-weight cycle" in str(exc):
            raise nx.NetworkXUnbounded("Negative cycle detected.") from None
        raise
    idx = np.flatnonzero(np.isfinite(dist))
    idx = idx[np.argsort(dist[idx], kind="stable")]
    return dict(zip((G.nodes[i] for i in idx.tolist()), _as_numbers(G, weight, dist, idx)))


def bellman_ford_path_length(G, source, target, weight="weight"):
    """networkx.bellman_ford_path_length on Spindle's SSSP."""
    if source == target:
        _require_source(G, source, "Node {} not found in graph")
        return 0
    lengths = single_source_bellman_ford_path_length(G, source, weight=weight)
    try:
        return lengths[target]
    except (KeyError, TypeError):
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}") from None


def descendants(G, source):
    """networkx.descendants on Spindle's BFS: the vertices reachable from source, itself
    excluded."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    levels = _bfs(G.spindle_graph, source, device=_device()).levels
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(levels > 0).tolist()}


def ancestors(G, source):
    """networkx.ancestors on Spindle's BFS over the transpose."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    g = G.spindle_graph
    levels = _bfs(g.transpose() if G.directed else g, source, device=_device()).levels
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(levels > 0).tolist()}


def has_path(G, source, target):
    """networkx.has_path on Spindle's BFS."""
    _require_source(G, source, "Source {} is not in G")
    _require_source(G, target, "Target {} is not in G")
    g = G.spindle_graph
    return bool(_bfs(g, source, device=_device()).levels[g.index_of(target)] >= 0)


def is_connected(G):
    """networkx.is_connected (undirected graphs) on Spindle's BFS."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    g = G.spindle_graph
    return _bfs(g, g.id_of(0), device=_device()).reached == len(G)


def is_strongly_connected(G):
    """networkx.is_strongly_connected (directed graphs) on Spindle's BFS over the graph and its
    transpose."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    g = G.spindle_graph
    s = g.id_of(0)
    return (_bfs(g, s, device=_device()).reached == len(G)
            and _bfs(g.transpose(), s, device=_device()).reached == len(G))


def node_connected_component(G, n):
    """networkx.node_connected_component (undirected graphs) on Spindle's BFS."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    if n not in G:
        raise KeyError(n)
    levels = _bfs(G.spindle_graph, n, device=_device()).levels
    nodes = G.nodes
    return {nodes[i] for i in np.flatnonzero(levels >= 0).tolist()}


def _components(G, strong):
    """The components of G as a list of sets of nodes, ordered by their first node in G's
    order (the order networkx's connected_components and weakly_connected_components find
    them in)."""
    if strong:
        r = _strongly_connected_components(G.spindle_graph, device=_device())
    else:
        r = _weakly_connected_components(G.spindle_graph, device=_device())
    return r.components()


def connected_components(G):
    """networkx.connected_components (undirected graphs) on Spindle's FastSV components."""
    return iter(_components(G, False))


def number_connected_components(G):
    """networkx.number_connected_components on Spindle's FastSV components."""
    return _weakly_connected_components(G.spindle_graph, device=_device()).count


def weakly_connected_components(G):
    """networkx.weakly_connected_components (directed graphs) on Spindle's FastSV
    components."""
    return iter(_components(G, False))


def number_weakly_connected_components(G):
    """networkx.number_weakly_connected_components on Spindle's FastSV components."""
    return _weakly_connected_components(G.spindle_graph, device=_device()).count


def is_weakly_connected(G):
    """networkx.is_weakly_connected (directed graphs) on Spindle's FastSV components."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _weakly_connected_components(G.spindle_graph, device=_device()).count == 1


def strongly_connected_components(G):
    """networkx.strongly_connected_components (directed graphs) on Spindle's trimming and
    coloring, for a graph with one component (or none). networkx yields several in the order
    of its Tarjan search (a reverse topological order that nx.condensation's numbering and
    other callers take over), which Spindle's labels do not give: such graphs run in
    networkx."""
    components = _components(G, True)
    if len(components) > 1:
        raise NotImplementedError(
            "several strongly connected components: networkx's order (its Tarjan search's) "
            "cannot be reproduced, networkx runs it")
    return iter(components)


def number_strongly_connected_components(G):
    """networkx.number_strongly_connected_components on Spindle's trimming and coloring."""
    return _strongly_connected_components(G.spindle_graph, device=_device()).count


def _nbunch(G, nodes):
    """The nodes of a container that are in G, in its order (networkx's nbunch_iter)."""
    try:
        return [v for v in nodes if v in G]
    except TypeError as err:
        raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {nodes}") from err


def triangles(G, nodes=None):
    """networkx.triangles (undirected graphs) on Spindle's masked sparse x sparse mxm: an int
    for a single node, else {node: triangles through it}."""
    r = _triangles(G.spindle_graph, per_vertex=True, device=_device())
    counts = dict(zip(G.nodes, r.per_vertex.tolist()))
    if nodes is None:
        return counts
    if nodes in G:
        return counts[nodes]
    return {v: counts[v] for v in _nbunch(G, nodes)}


def clustering(G, nodes=None, weight=None):
    """networkx.clustering for undirected graphs without weights on Spindle's triangle counts
    (directed or weighted clustering runs in networkx)."""
    if G.directed or weight is not None:
        raise NotImplementedError("spindle computes undirected, unweighted clustering only")
    r = _triangles(G.spindle_graph, clustering=True, device=_device())
    # networkx gives the int 0 where a vertex has no triangle
    values = [c if t else 0 for c, t in zip(r.clustering.tolist(), r.per_vertex.tolist())]
    c = dict(zip(G.nodes, values))
    if nodes is None:
        return c
    if nodes in G:
        return c[nodes]
    return {v: c[v] for v in _nbunch(G, nodes)}


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """networkx.average_clustering (undirected, unweighted) on Spindle's triangle counts."""
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    """networkx.transitivity (undirected graphs) on Spindle's triangle counts: 3 x triangles
    / connected triples, with degrees that leave self-loops out."""
    if G.directed:
        raise NotImplementedError("networkx's transitivity of a directed graph uses successors")
    if len(G) == 0:
        return 0
    g = G.spindle_graph
    r = _triangles(g, device=_device())
    if r.total == 0:
        return 0
    d = g.out_degrees().astype(np.int64)
    if g.stats()["self_loops"]:
        rows = np.repeat(np.arange(len(G), dtype=np.int64), d)
        d -= np.bincount(rows[g.indices == rows], minlength=len(G))
    return 6 * r.total / int(np.sum(d * (d - 1)))


# networkx's message for the functions that refuse self-loops (core_number, k_truss)
_SELF_LOOPS = ("Input graph has self loops which is not permitted; "
               "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")


def core_number(G):
    """networkx.core_number on Spindle's peeling (in + out degree for a directed graph)."""
    g = G.spindle_graph
    if g.stats()["self_loops"]:
        raise nx.NetworkXNotImplemented(_SELF_LOOPS)
    r = _core_numbers(g, directed=G.directed, device=_device())
    return dict(zip(G.nodes, r.core.tolist()))


def _forget_conversion(G):
    """Drops G, a conversion that kept its source, from the source's networkx cache.

    networkx caches it under the key of a conversion that kept every attribute, which satisfies
    every later request: it would be handed to any call (a weighted pagerank too), though it
    holds the structure only. The functions that use `source` call this once they have G."""
    cache = getattr(G.source, "__networkx_cache__", None)
    if not cache:
        return
    ours = cache.get("backends", {}).get("spindle", {})
    for key, value in list(ours.items()):
        if value is G:
            ours.pop(key, None)


def k_truss(G, k):
    """networkx.k_truss (undirected graphs, k >= 2) on Spindle's k-truss (masked sparse x
    sparse mxm): the graph networkx returns, G.copy() without the edges in fewer than k - 2
    of the truss's triangles and without the vertices left isolated. Built from the networkx
    graph itself (``G.source``) as G.copy() builds it: its class, G.graph, the kept nodes in
    G's order with copies of their attribute dicts, then the kept edges in the order of G's
    adjacency with copies of theirs. A SpindleGraph without a source gives a plain nx.Graph
    of the kept nodes (vertex order) and edges, with its graph attributes."""
    source = G.source
    try:
        g = G.spindle_graph
        if g.stats()["self_loops"]:
            raise nx.NetworkXNotImplemented(_SELF_LOOPS)
        # beyond n + 1 nothing is left, as at n + 2 (and the engine takes an int64)
        r = _k_truss(g, min(int(k), len(G) + 2), device=_device())
    finally:
        if source is not None:
            _forget_conversion(G)
    nodes = G.nodes
    edges = [(nodes[i], nodes[j]) for i, j in zip(r.first.tolist(), r.second.tolist())]
    if source is None:
        H = nx.Graph()
        H.graph.update(G.graph)
        H.add_nodes_from(nodes[i] for i in r.vertices.tolist())
        H.add_edges_from(edges)
        return H
    kept = {}  # node: the set of its neighbours in the truss
    for u, v in edges:
        kept.setdefault(u, set()).add(v)
        kept.setdefault(v, set()).add(u)
    H = source.__class__()
    H.graph.update(source.graph)
    H.add_nodes_from((n, d.copy()) for n, d in source._node.items() if n in kept)
    H.add_edges_from(
        (u, v, d.copy())
        for u, nbrs in source._adj.items() if u in kept
        for v, d in nbrs.items() if v in kept[u]
    )
    return H


def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """networkx.hits on Spindle's power iteration (networkx uses ARPACK for the same singular
    vectors). A run that does not converge within max_iter power iterations, a graph without
    edges (ARPACK fails on it) and a start vector Spindle refuses run in networkx, which decides
    what happens."""
    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    g = G.spindle_graph
    if g.nnz == 0:
        raise NotImplementedError("a graph without edges: networkx's ARPACK decides")
    values = _values(G, "weight")  # networkx's hits always reads the 'weight' attribute
    if values is not None and values.size and values.min() < 0:
        raise NotImplementedError("negative weights: networkx's ARPACK decides")
    start = None
    if nstart is not None:
        start = np.array(list(nstart.values()), dtype=np.float64)  # by position, as networkx
        if start.size != len(G) or not np.all(np.isfinite(start)) or start.min() < 0 or \
                start.sum() <= 0:
            raise NotImplementedError("a start vector Spindle refuses: networkx decides")
    r = _hits(g, max_iter=max_iter, tol=tol, nstart=start, normalized=normalized,
              weight=_weighted(G, "weight"), device=_device())
    if not r.converged:
        raise NotImplementedError(
            f"spindle's power iteration did not converge in {max_iter} iterations: networkx's "
            "ARPACK decides")
    return dict(zip(G.nodes, r.hubs.tolist())), dict(zip(G.nodes, r.authorities.tolist()))


def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=None):
    """networkx.katz_centrality on Spindle (the same iteration, stop test and
    normalization)."""
    if len(G) == 0:
        return {}
    try:
        b, per_vertex = float(beta), None
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b, per_vertex = 1.0, np.array([beta[v] for v in G.nodes], dtype=np.float64)
    start = None
    if nstart is not None:
        if set(nstart) != set(G):
            raise NotImplementedError("nstart without every node: networkx decides")
        start = np.array([nstart[v] for v in G.nodes], dtype=np.float64)
    r = _katz_centrality(G.spindle_graph, alpha, b if per_vertex is None else per_vertex,
                         max_iter=max_iter, tol=tol, nstart=start, normalized=normalized,
                         weight=_weighted(G, weight), device=_device())
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.nodes, r.centrality.tolist()))


def _non_edges(G):
    """networkx.non_edges of an undirected graph, in networkx's order (the same set
    operations over the same nodes)."""
    g = G.spindle_graph
    indptr, indices, nodes_list = g.indptr, g.indices, G.nodes
    nodes = set(G.nodes)
    while nodes:
        u = nodes.pop()
        i = g.index_of(u)
        nbrs = {nodes_list[j] for j in indices[indptr[i]:indptr[i + 1]].tolist()}
        for v in nodes - nbrs:
            yield (u, v)


def jaccard_coefficient(G, ebunch=None):
    """networkx.jaccard_coefficient (undirected graphs) on Spindle's SpMM over neighbour
    indicators; the pairs are validated at the call and computed at once."""
    if ebunch is None:
        pairs = list(_non_edges(G))
    else:
        pairs = list(ebunch)
        for u, v in pairs:
            if u not in G:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if v not in G:
                raise nx.NodeNotFound(f"Node {v} not in G.")
    if not pairs:
        return iter(())
    r = _jaccard_coefficient(G.spindle_graph, pairs, device=_device())
    return ((u, v, c) for (u, v), c in zip(pairs, r.coefficients.tolist()))


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """networkx.betweenness_centrality without weights on Spindle's batched Brandes. With k,
    the sources are drawn exactly as networkx draws them (seed.sample(list(G), k) on the
    random.Random networkx made of `seed`) and passed to Spindle."""
    if _weighted(G, weight):
        raise NotImplementedError("weighted betweenness runs in networkx")
    if k == len(G):
        k = None  # networkx's shortcut: the exact computation, no sampling
    sources = None
    if k is not None:
        if not hasattr(seed, "sample"):
            seed = nx.utils.create_py_random_state(seed)
        sources = seed.sample(list(G.nodes), k)
    r = _betweenness_centrality(G.spindle_graph, sources=sources, normalized=normalized,
                                endpoints=endpoints, directed=G.directed, device=_device())
    return dict(zip(G.nodes, r.centrality.tolist()))


# --- arguments Spindle declines ----------------------------------------------------------------

_FUNCTIONS = {
    "pagerank": pagerank,
    "eigenvector_centrality": eigenvector_centrality,
    "eigenvector_centrality_numpy": eigenvector_centrality_numpy,
    "single_source_shortest_path_length": single_source_shortest_path_length,
    "single_target_shortest_path_length": single_target_shortest_path_length,
    "bfs_layers": bfs_layers,
    "descendants_at_distance": descendants_at_distance,
    "single_source_dijkstra_path_length": single_source_dijkstra_path_length,
    "dijkstra_path_length": dijkstra_path_length,
    "single_source_bellman_ford_path_length": single_source_bellman_ford_path_length,
    "bellman_ford_path_length": bellman_ford_path_length,
    "descendants": descendants,
    "ancestors": ancestors,
    "has_path": has_path,
    "is_connected": is_connected,
    "is_strongly_connected": is_strongly_connected,
    "node_connected_component": node_connected_component,
    "connected_components": connected_components,
    "number_connected_components": number_connected_components,
    "weakly_connected_components": weakly_connected_components,
    "number_weakly_connected_components": number_weakly_connected_components,
    "is_weakly_connected": is_weakly_connected,
    "strongly_connected_components": strongly_connected_components,
    "number_strongly_connected_components": number_strongly_connected_components,
    "triangles": triangles,
    "clustering": clustering,
    "average_clustering": average_clustering,
    "transitivity": transitivity,
    "core_number": core_number,
    "k_truss": k_truss,
    "hits": hits,
    "katz_centrality": katz_centrality,
    "jaccard_coefficient": jaccard_coefficient,
    "betweenness_centrality": betweenness_centrality,
}


def _bound(name, args, kwargs):
    func = nx.utils.backends._registered_algorithms[name]
    bound = inspect.signature(getattr(func, "orig_func", func)).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _why_not(name, args, kwargs):
    """A one-line reason Spindle cannot run this call, or None when it can."""
    try:
        a = _bound(name, args, kwargs)
    except TypeError as exc:
        return f"arguments do not bind: {exc}"
    G = a.get("G")
    if G is None:
        return "no graph argument"
    if G.is_multigraph():
        return "multigraphs are not supported (parallel edges would need per-function rules)"
    if callable(a.get("weight")):
        return "weight functions are not supported (only an edge attribute name)"
    if name == "pagerank":
        if a.get("nstart") is not None:
            return "nstart is not supported (Spindle starts from the uniform vector)"
        if a.get("dangling") is not None:
            return "a dangling dict is not supported (dangling rank follows personalization)"
    if name == "eigenvector_centrality" and a.get("nstart") is not None:
        return "nstart is not supported (Spindle starts from the uniform vector)"
    if name in ("clustering", "average_clustering"):
        if a.get("weight") is not None:
            return "weighted clustering is not supported (Spindle counts triangles)"
        if G.is_directed():
            return "directed clustering is not supported (Spindle counts undirected triangles)"
    if name == "transitivity" and G.is_directed():
        return "transitivity of a directed graph is not supported"
    if name == "k_truss":
        if G.is_directed():
            return "directed graphs are not supported (networkx refuses them too)"
        k = a.get("k")
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            return "k must be an integer (Spindle's k_truss takes an int)"
        if k < 2:
            return "k < 2 is not supported (Spindle's k_truss starts at 2)"
    if name == "betweenness_centrality" and a.get("k") == 0:
        return "k=0 is not supported (networkx divides by k)"
    if name == "bfs_layers":
        sources = a.get("sources")
        try:
            single = sources in G
        except TypeError:
            single = False
        if not single and isinstance(sources, (list, tuple, set, frozenset)):
            if len(set(sources)) > 1:
                return "several sources are not supported (Spindle's BFS has one)"
    return None


# Functions that give back (part of) the caller's graph with all its attributes: networkx asks
# to preserve every attribute, and the conversion keeps the networkx graph as `source` instead.
_KEEP_SOURCE = {"k_truss"}


# Tests of networkx's own suites that Spindle does not pass through the backend, with why: each
# a semantic difference, not a bug (see the issue note).
_XFAIL = {}


class BackendInterface:
    """The networkx backend interface (entry point ``networkx.backends: spindle``)."""

    @staticmethod
    def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None, **kwargs):
        """A SpindleGraph for a networkx graph: nodes (any hashable) in G's order, undirected
        edges both ways, and the values of at most one numeric edge attribute (edge_attrs =
        {attribute: default}); graphs whose values are all 1 keep the structure only."""
        if isinstance(graph, SpindleGraph):
            return graph
        if name in _KEEP_SOURCE:  # the structure here, the attributes in the graph itself
            converted = BackendInterface.convert_from_nx(graph, graph_name=graph_name)
            converted.source = graph
            return converted
        if not isinstance(graph, nx.Graph):
            raise TypeError(f"cannot convert {type(graph).__name__} to a Spindle graph")
        if graph.is_multigraph():
            raise NotImplementedError("spindle does not convert multigraphs")
        if preserve_edge_attrs or preserve_node_attrs or node_attrs:
            raise NotImplementedError("spindle keeps at most one numeric edge attribute")
        weight, default = None, 1.0
        if edge_attrs:
            if len(edge_attrs) > 1:
                raise NotImplementedError("spindle keeps at most one numeric edge attribute")
            ((weight, default),) = edge_attrs.items()
            if default is None:
                raise NotImplementedError("edges without the attribute cannot be hidden")
        # every value 1: the structure says the same
        core, labels = _convert_networkx(graph, weight, default, None, None, ones_as_pattern=True)
        if core.value_dtype == "pattern":
            weight = None
        g = Graph._wrap(core, labels, 0, graph.is_directed())
        nodes = labels if labels is not None else list(range(len(graph)))
        attrs = graph.graph if preserve_graph_attrs else None
        return SpindleGraph(g, nodes, graph.is_directed(), weight, attrs)

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """A networkx graph for a SpindleGraph (values under its attribute name); any other
        object (the dispatched functions' dicts and iterators) as it is."""
        if isinstance(obj, SpindleGraph):
            G = obj.spindle_graph.to_networkx(weight=obj.weight or "weight")
            G.graph.update(obj.graph)
            return G
        return obj

    @staticmethod
    def can_run(name, args, kwargs):
        """True when Spindle runs this call, else a one-line reason (networkx then falls back
        to its own implementation when configured to)."""
        if name not in _FUNCTIONS:
            return False
        why = _why_not(name, args, kwargs)
        return True if why is None else why

    @staticmethod
    def should_run(name, args, kwargs):
        """Spindle runs every call it can run."""
        return True

    @staticmethod
    def on_start_tests(items):
        """Marks the tests of networkx's suites that check a semantic Spindle does not share
        (networkx calls this when its tests run with NETWORKX_TEST_BACKEND=spindle)."""
        import pytest

        for item in items:
            for key, reason in _XFAIL.items():
                if item.nodeid.endswith(key):
                    item.add_marker(pytest.mark.xfail(reason=reason))


for _name, _func in _FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_func))
del _name, _func, _core
