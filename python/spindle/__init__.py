# SPDX-License-Identifier: Apache-2.0
"""Spindle: a GraphBLAS-flavored graph analytics engine (C++17, optional CUDA), from Python.

Graphs are immutable CSR matrices (:class:`Graph`: int32 or int64 indices; float32, float64 or
pattern values) that keep what they derive (transpose, statistics, device copies) for their
lifetime. Operations take semirings, masks and accumulators in GraphBLAS argument order
(:func:`mxv`, :func:`vxm`, :func:`mxm`, :func:`sddmm`, :func:`ewise_add`, :func:`ewise_mult`,
:func:`apply`, :func:`reduce`, :func:`assign`); a planner picks a kernel per call from the
graph's statistics and says why (:func:`plan_for_mxv`, :func:`explain`). The algorithms
(:func:`pagerank`, :func:`power_iteration`, :func:`eigenvector_centrality`, :func:`bfs`,
:func:`sssp`, :func:`gcn`, :func:`weakly_connected_components`,
:func:`strongly_connected_components`, :func:`triangles`, :func:`k_truss`, :func:`core_numbers`,
:func:`jaccard_coefficient`, :func:`hits`, :func:`katz_centrality`,
:func:`betweenness_centrality`) are written against those operations and return numpy arrays
with their convergence report.

Ranking a networkx graph::

    import networkx as nx, spindle
    G = nx.karate_club_graph()
    result = spindle.pagerank(spindle.Graph.from_networkx(G))
    print(result.top(3))
    nx.pagerank(G, backend="spindle")      # networkx's API, Spindle's engine

The package is also a networkx backend (``backend="spindle"``): see
:mod:`spindle.networkx_backend`.

The CPU backend runs on all OpenMP threads (``OMP_NUM_THREADS``). Importing spindle sets
``OMP_WAIT_POLICY=passive`` unless the environment already chooses a wait policy
(``OMP_WAIT_POLICY``, ``GOMP_SPINCOUNT``, ``KMP_BLOCKTIME`` or ``KMP_LIBRARY``), as the
``spindle`` CLI does: idle OpenMP threads then sleep instead of spinning against other
processes between parallel steps. On a 2-core machine running two other compilers, cached
``nx.pagerank(G, backend="spindle")`` calls on a 1M-edge graph took 21 ms with it against
41-136 ms without. It takes effect only if OpenMP's runtime is not loaded yet (another
extension may have loaded it first); set ``OMP_WAIT_POLICY=active`` to keep spinning threads on
a dedicated machine.
"""

import os as _os

# libgomp reads its wait policy once, when it is loaded with the extension below.
if not any(
    _v in _os.environ for _v in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "KMP_LIBRARY")
):
    _os.environ["OMP_WAIT_POLICY"] = "passive"

import numpy as _np  # noqa: E402

from . import _core  # noqa: E402
from ._algorithms import (
    BfsResult,
    PageRankResult,
    PowerIterationResult,
    SsspResult,
    bfs,
    eigenvector_centrality,
    gcn,
    pagerank,
    power_iteration,
    sssp,
)
from ._centrality import (
    BetweennessResult,
    HitsResult,
    KatzResult,
    betweenness_centrality,
    hits,
    katz_centrality,
)
from ._errors import (
    Cancelled,
    DeviceError,
    DimensionMismatch,
    Error,
    FileError,
    FileNotFound,
    IndexOutOfBounds,
    InvalidArgument,
    OutOfMemory,
    ParseError,
    Unsupported,
    VertexNotFound,
)
from ._files import generate_rmat, generate_uniform, read, write
from ._graph import Graph
from ._structure import (
    ComponentsResult,
    JaccardResult,
    KCoreResult,
    KTrussResult,
    TriangleResult,
    core_numbers,
    jaccard_coefficient,
    k_truss,
    strongly_connected_components,
    triangles,
    weakly_connected_components,
)
from ._ops import (
    Mask,
    Semiring,
    apply,
    assign,
    ewise_add,
    ewise_mult,
    explain,
    l1_distance,
    mxm,
    mxv,
    plan_for_mxm,
    plan_for_mxv,
    plan_for_sddmm,
    plan_for_vxm,
    reduce,
    reduce_rows,
    scale,
    sddmm,
    semirings,
    vector,
    vxm,
)

Descriptor = _core.Descriptor
Plan = _core.Plan
DeviceCaps = _core.DeviceCaps
Vector = _core.Vector
built_with_cuda = _core.built_with_cuda
cuda_available = _core.cuda_available
device_caps = _core.device_caps
reference_hopper_caps = _core.reference_hopper_caps
cpu_threads = _core.cpu_threads
release_device_resources = _core.release_device_resources
transfer_stats = _core.transfer_stats
reset_transfer_stats = _core.reset_transfer_stats

__version__ = _core.version()

__all__ = [
    # graphs and files
    "Graph",
    "read",
    "write",
    "generate_rmat",
    "generate_uniform",
    # vectors, semirings, masks, descriptors, plans
    "Vector",
    "vector",
    "Semiring",
    "semirings",
    "Mask",
    "Descriptor",
    "Plan",
    "DeviceCaps",
    # operations
    "mxv",
    "vxm",
    "mxm",
    "sddmm",
    "ewise_add",
    "ewise_mult",
    "apply",
    "reduce",
    "reduce_rows",
    "l1_distance",
    "assign",
    "scale",
    "plan_for_mxv",
    "plan_for_vxm",
    "plan_for_mxm",
    "plan_for_sddmm",
    "explain",
    # algorithms
    "pagerank",
    "PageRankResult",
    "power_iteration",
    "eigenvector_centrality",
    "PowerIterationResult",
    "bfs",
    "BfsResult",
    "sssp",
    "SsspResult",
    "gcn",
    "weakly_connected_components",
    "strongly_connected_components",
    "ComponentsResult",
    "triangles",
    "k_truss",
    "KTrussResult",
    "TriangleResult",
    "core_numbers",
    "KCoreResult",
    "jaccard_coefficient",
    "JaccardResult",
    "hits",
    "HitsResult",
    "katz_centrality",
    "KatzResult",
    "betweenness_centrality",
    "BetweennessResult",
    # machine
    "built_with_cuda",
    "cuda_available",
    "device_caps",
    "reference_hopper_caps",
    "cpu_threads",
    "release_device_resources",
    "transfer_stats",
    "reset_transfer_stats",
    # errors
    "Error",
    "InvalidArgument",
    "DimensionMismatch",
    "IndexOutOfBounds",
    "VertexNotFound",
    "ParseError",
    "Unsupported",
    "OutOfMemory",
    "DeviceError",
    "FileError",
    "FileNotFound",
    "Cancelled",
]


# --- numpy / DLPack protocol of spindle.Vector (see spindle._arrays) ----------------------------


def _vector_from_numpy(x, dtype=None):
    """A Vector from an array-like or a numpy masked array (see spindle.vector)."""
    return vector(x, dtype)


def _vector_to_masked(self):
    """A numpy masked array: absent entries are masked."""
    return _np.ma.MaskedArray(self.to_numpy(fill=0), mask=self.present() == 0)


def _vector_array(self, dtype=None, copy=None):
    """numpy's __array__: the values of a full vector (absent entries raise: see to_numpy)."""
    a = self.to_numpy()
    return a if dtype is None else a.astype(dtype, copy=False)


def _vector_dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export of a full vector's values: a copy on the device when the vector's newest
    copy is there (residency 'device': no host round trip), else a host copy. `dl_device`
    (1, 0) asks for the host copy in any case."""
    if not self.is_full:
        raise InvalidArgument(
            f"the vector has {self.size - self.nvals} absent entries: DLPack carries a full "
            "vector's values (fill them first, e.g. spindle.assign, or use to_numpy(fill=...))"
        )
    if self.residency == "device" and (dl_device is None or tuple(dl_device)[0] != 1):
        return self._device_export()  # a capsule, ready on every stream
    kwargs = {} if max_version is None else {"max_version": max_version}
    return self.to_numpy().__dlpack__(stream=stream, **kwargs)


def _vector_dlpack_device(self):
    """(kDLCUDA, 0) while the newest copy is on the device, else (kDLCPU, 0)."""
    return (2, 0) if self.residency == "device" else (1, 0)


def _vector_iter(self):
    for i in range(len(self)):
        yield self[i]


Vector.from_numpy = staticmethod(_vector_from_numpy)
Vector.to_masked = _vector_to_masked
Vector.__array__ = _vector_array
Vector.__dlpack__ = _vector_dlpack
Vector.__dlpack_device__ = _vector_dlpack_device
Vector.__iter__ = _vector_iter
Vector.__module__ = "spindle"
Descriptor.__module__ = "spindle"
Plan.__module__ = "spindle"
DeviceCaps.__module__ = "spindle"
del _vector_from_numpy, _vector_to_masked, _vector_array, _vector_dlpack
del _vector_dlpack_device, _vector_iter
