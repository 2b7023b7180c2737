# SPDX-License-Identifier: Apache-2.0
"""networkx's metadata for the Spindle backend (entry point ``networkx.backend_info``).

networkx reads this when it is imported, to document and configure its backends; it must not
import Spindle's compiled engine (``spindle._core``), so it lives outside the ``spindle``
package, whose ``__init__`` loads the engine.
"""

_ONE_SOURCE = "Runs on Spindle's BFS (masked vxm) with one source."

_COMPONENTS = "Spindle's FastSV components (min-label hooking by mxv/vxm)."
_TRIANGLES = "Spindle's triangle count by masked sparse x sparse mxm (on the CPU)."

_FUNCTIONS = {
    "pagerank": (
        "Spindle's 'networkx' PageRank preset: the same iteration as networkx's scipy "
        "implementation and its stop test (L1 change < n*tol), in double precision. "
        "nstart and dangling are not supported (networkx runs those calls)."
    ),
    "eigenvector_centrality": (
        "Spindle's power iteration in centrality mode: networkx's iteration and stop test. "
        "nstart is not supported."
    ),
    "eigenvector_centrality_numpy": (
        "The same eigenvector by power iteration on A^T + I to a tight tolerance instead of "
        "ARPACK; raises PowerIterationFailedConvergence when the spectral gap is too small "
        "for max_iter*200 iterations."
    ),
    "single_source_shortest_path_length": _ONE_SOURCE,
    "single_target_shortest_path_length": _ONE_SOURCE + " Over the transpose.",
    "bfs_layers": _ONE_SOURCE + " Nodes within a layer come in the graph's node order.",
    "descendants_at_distance": _ONE_SOURCE,
    "single_source_dijkstra_path_length": (
        "Spindle's SSSP (min-plus relaxation). Graphs with negative weights run in networkx."
    ),
    "dijkstra_path_length": "Spindle's SSSP (min-plus relaxation).",
    "single_source_bellman_ford_path_length": (
        "Spindle's SSSP (min-plus Bellman-Ford); a reachable negative cycle raises "
        "NetworkXUnbounded."
    ),
    "bellman_ford_path_length": "Spindle's SSSP (min-plus Bellman-Ford).",
    "descendants": _ONE_SOURCE,
    "ancestors": _ONE_SOURCE + " Over the transpose.",
    "has_path": _ONE_SOURCE,
    "is_connected": _ONE_SOURCE,
    "is_strongly_connected": "Runs on two of Spindle's BFS: over the graph and its transpose.",
    "node_connected_component": _ONE_SOURCE,
    "connected_components": _COMPONENTS + " Components come in the order networkx finds them.",
    "number_connected_components": _COMPONENTS,
    "weakly_connected_components": _COMPONENTS + " Components come in networkx's order.",
    "number_weakly_connected_components": _COMPONENTS,
    "is_weakly_connected": _COMPONENTS,
    "strongly_connected_components": (
        "Spindle's trimming and forward/backward coloring (masked mxv/vxm). Only graphs with "
        "one component run on Spindle: networkx yields several in its Tarjan search's order, "
        "which nx.condensation's numbering takes over, so those graphs run in networkx."
    ),
    "number_strongly_connected_components": (
        "Spindle's trimming and forward/backward coloring (masked mxv/vxm)."
    ),
    "triangles": _TRIANGLES,
    "clustering": _TRIANGLES + " Undirected and unweighted only (networkx runs the others).",
    "average_clustering": _TRIANGLES + " Undirected and unweighted only.",
    "transitivity": _TRIANGLES + " Undirected graphs only.",
    "core_number": "Spindle's level-synchronous peeling (one mxv per step).",
    "k_truss": (
        "Spindle's k-truss: supports by masked sparse x sparse mxm, the edges below k - 2 "
        "removed together round by round. Returns the graph networkx returns (a copy of G's "
        "kept nodes and edges with their attributes, in G's order, and G.graph). k < 2 and "
        "non-integer k are not supported (networkx runs those calls)."
    ),
    "hits": (
        "Spindle's power iteration for the singular vectors networkx finds with ARPACK. Where "
        "it does not converge within max_iter iterations (or the graph has no edges, or the "
        "start vector is negative), networkx runs the call."
    ),
    "katz_centrality": "Spindle's Katz iteration: networkx's iteration, stop test and scaling.",
    "jaccard_coefficient": (
        "Spindle's SpMM over neighbour indicators; the pairs are computed at the call."
    ),
    "betweenness_centrality": (
        "Spindle's Brandes with a batch of sources per SpMM, unweighted (networkx runs "
        "weighted calls). With k, the sources are drawn by networkx's own seed.sample."
    ),
}


def get_info():
    """The backend's description for networkx (backend_info entry point)."""
    return {
        "backend_name": "spindle",
        "project": "spindle",
        "package": "spindle",
        "short_summary": "GraphBLAS-flavored C++ engine (OpenMP CPU backend, optional CUDA).",
        "description": (
            "Runs networkx functions on Spindle's engine: graphs are converted once to CSR "
            "(cached by networkx) and the algorithms run on the OpenMP CPU backend or on CUDA."
        ),
        "functions": {name: {"additional_docs": docs} for name, docs in _FUNCTIONS.items()},
        "default_config": {"device": "auto"},
    }
