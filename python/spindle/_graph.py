# SPDX-License-Identifier: Apache-2.0
"""spindle.Graph: the engine's CSR graph with the vertex ids of the data it came from."""

import itertools

import numpy as np

from . import _core
from ._arrays import host_array
from ._errors import InvalidArgument, VertexNotFound

__all__ = ["Graph"]

_INT32_MAX = np.iinfo(np.int32).max
_INDEX_DTYPES = {"int32", "int64"}
_VALUE_DTYPES = {"float32", "float64", "pattern"}


def _index_dtype_name(dtype, *sizes):
    """'int32' / 'int64': the one asked for, else the smallest that indexes every size."""
    if dtype is not None:
        name = np.dtype(dtype).name
        if name not in _INDEX_DTYPES:
            raise InvalidArgument(f"index_dtype must be int32 or int64, got {dtype!r}")
        return name
    return "int64" if any(int(s) > _INT32_MAX for s in sizes) else "int32"


def _value_dtype_name(dtype, data_dtype=None):
    """'float32' / 'float64' / 'pattern': the one asked for, else float32 for float32 input
    and float64 for any other numbers (integers, booleans, float64)."""
    if dtype is not None:
        if isinstance(dtype, str) and dtype == "pattern":
            return "pattern"
        name = np.dtype(dtype).name
        if name not in ("float32", "float64"):
            raise InvalidArgument(
                f"value_dtype must be float32, float64 or 'pattern', got {dtype!r}"
            )
        return name
    if data_dtype is not None and np.dtype(data_dtype) == np.float32:
        return "float32"
    return "float64"


def _numpy_dtype(name):
    return None if name == "pattern" else np.dtype(name)


class Graph:
    """An immutable sparse graph (or matrix) in CSR form, and the ids of its vertices.

    Entry ``A[u, v]`` stored means an edge ``u -> v``. Indices are int32 or int64 and values
    float32, float64 or *pattern* (no value array: every stored entry is 1, which halves the
    bytes an iteration reads), chosen from the input and overridable with ``index_dtype`` /
    ``value_dtype``. The graph caches what it derives (transpose, statistics, the pattern copy
    that structure-only algorithms use over a valued graph, device copies) for its lifetime, so
    repeated calls pay for them once.

    Vertex ids are the input's own, as on the command line: 0-based positions for arrays and
    scipy matrices, 1-based indices for Matrix Market files, the labels of an edge list, the
    nodes of a networkx graph (any hashable). Algorithms take sources and personalization in
    these ids, and their results' ``to_dict()`` is keyed by them.

    Build one with :meth:`from_scipy`, :meth:`from_edges`, :meth:`from_networkx` or
    :func:`spindle.read`; ``Graph(x)`` does the same for a scipy sparse matrix or array or a
    networkx graph.
    """

    __slots__ = ("_g", "_labels", "_id_base", "_index", "_directed")

    def __init__(self, data=None, **kwargs):
        if isinstance(data, _core.Graph):
            self._init(data, kwargs.pop("labels", None), kwargs.pop("id_base", 0),
                       kwargs.pop("directed", True))
            if kwargs:
                raise TypeError(f"unexpected arguments {sorted(kwargs)}")
            return
        if data is None:
            raise TypeError("Graph() needs a scipy sparse matrix or a networkx graph; see "
                            "Graph.from_scipy, Graph.from_edges, Graph.from_networkx, spindle.read")
        other = Graph._from_any(data, **kwargs)
        self._init(other._g, other._labels, other._id_base, other._directed)

    def _init(self, core, labels, id_base, directed):
        self._g = core
        self._labels = labels
        self._id_base = int(id_base)
        self._index = None
        self._directed = bool(directed)

    @classmethod
    def _wrap(cls, core, labels=None, id_base=0, directed=True):
        g = cls.__new__(cls)
        g._init(core, labels, id_base, directed)
        return g

    @staticmethod
    def _from_any(data, **kwargs):
        if isinstance(data, Graph):
            return data
        if getattr(data, "__networkx_backend__", None) == "spindle":
            return data.spindle_graph  # a graph the networkx backend converted
        if _is_scipy_sparse(data):
            return Graph.from_scipy(data, **kwargs)
        if _is_networkx_graph(data):
            return Graph.from_networkx(data, **kwargs)
        raise TypeError(
            f"cannot make a spindle.Graph from {type(data).__name__}: give a spindle.Graph, a "
            "scipy sparse matrix or array, or a networkx graph"
        )

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def from_scipy(cls, A, *, index_dtype=None, value_dtype=None, labels=None):
        """A graph holding the entries of a scipy sparse matrix or array (any format).

        Parameters
        ----------
        A : scipy.sparse matrix or array, 2-D
            ``A[u, v]`` stored is an edge ``u -> v`` (explicit zeros stay stored entries).
            Duplicate entries (a non-canonical COO or CSR) are summed, as scipy does.
        index_dtype : 'int32' or 'int64', optional
            Default: the input's index dtype when it is one of these, else the smallest that
            holds the shape and entry count.
        value_dtype : 'float32', 'float64' or 'pattern', optional
            Default: float32 for float32 data, float64 for any other numbers. 'pattern' keeps
            the structure only.
        labels : sequence, optional
            Vertex ids for the rows (square matrices), in order; default 0-based positions.

        The CSR arrays are copied once into the engine (no conversion pass when their dtypes
        already match).
        """
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise InvalidArgument(f"from_scipy needs a scipy sparse matrix, got {type(A).__name__}")
        if A.ndim != 2:
            raise InvalidArgument(f"from_scipy needs a 2-D matrix, got {A.ndim}-D")
        rows, cols = (int(x) for x in A.shape)
        vname = _value_dtype_name(value_dtype, A.dtype)
        if A.format == "csr" and A.has_canonical_format:
            csr = A
        else:
            csr = A.tocsr()
            if not csr.has_canonical_format:
                csr = csr.copy()
                csr.sum_duplicates()
        nnz = int(csr.indptr[-1]) if csr.indptr.size else 0
        if index_dtype is None and csr.indices.dtype.name in _INDEX_DTYPES:
            iname = csr.indices.dtype.name  # the input's: no conversion pass
        else:
            iname = _index_dtype_name(index_dtype, rows, cols, nnz)
        indptr = np.ascontiguousarray(csr.indptr, dtype=iname)
        indices = np.ascontiguousarray(csr.indices, dtype=iname)
        data = None if vname == "pattern" else np.ascontiguousarray(csr.data, dtype=vname)
        core = _core.Graph.from_csr(rows, cols, indptr, indices, data, iname, vname)
        return cls._wrap(core, _labels_checked(labels, rows))

    @classmethod
    def from_edges(
        cls,
        src,
        dst,
        weights=None,
        n=None,
        *,
        directed=True,
        index_dtype=None,
        value_dtype=None,
        duplicates="default",
        self_loops=True,
    ):
        """A graph from edge lists ``src[k] -> dst[k]`` (with ``weights[k]``).

        Parameters
        ----------
        src, dst : array-like
            Integer arrays are vertex positions 0..n-1. Any other ids (strings, tuples, ...)
            are labels, numbered in order of first appearance (``src[0], dst[0], src[1], ...``),
            and kept as the graph's vertex ids.
        weights : array-like, optional
            Edge values; without them the graph is a pattern graph unless value_dtype says
            otherwise (then every value is 1).
        n : int, optional
            Vertex count for integer ids (default: largest id + 1).
        directed : bool
            False adds the reverse of every edge (an edge given both ways is then a duplicate).
        duplicates : 'default', 'sum', 'first', 'last', 'collapse' or 'error'
            What a repeated edge becomes: 'default' sums values, and keeps one entry of a
            pattern graph.
        self_loops : bool
            False drops them.
        """
        src = np.asarray(src) if not hasattr(src, "__dlpack__") else host_array(src)
        dst = np.asarray(dst) if not hasattr(dst, "__dlpack__") else host_array(dst)
        if src.shape != dst.shape or src.ndim != 1:
            raise InvalidArgument(
                f"src and dst must be 1-D and of the same length, got {src.shape} and {dst.shape}"
            )
        labels = None
        if src.dtype.kind in "iu" and dst.dtype.kind in "iu":
            if src.size and (src.min() < 0 or dst.min() < 0):
                raise InvalidArgument("integer vertex ids must be >= 0")
            top = int(max(src.max(), dst.max())) + 1 if src.size else 0
            if n is None:
                n = top
            elif top > n:
                raise VertexNotFound(f"vertex id {top - 1} is outside [0, {n}) (n={n})")
        else:
            ids = {}
            pairs = np.empty(2 * src.size, dtype=object)
            pairs[0::2] = src.tolist()
            pairs[1::2] = dst.tolist()
            for x in pairs:
                ids.setdefault(x, len(ids))
            labels = list(ids)
            coded = np.fromiter(map(ids.__getitem__, pairs), dtype=np.int64, count=pairs.size)
            src, dst = coded[0::2], coded[1::2]
            if n is not None and n != len(labels):
                raise InvalidArgument(f"n={n} but the edges name {len(labels)} vertices")
            n = len(labels)
        n = int(n)
        w = None
        if weights is not None:
            w = host_array(weights, np.float64, ndim=1, name="weights")
            if w.size != src.size:
                raise InvalidArgument(f"{w.size} weights for {src.size} edges")
        vname = _value_dtype_name(value_dtype, None if weights is None else np.asarray(weights).dtype)
        if value_dtype is None and weights is None:
            vname = "pattern"
        iname = _index_dtype_name(index_dtype, n, 2 * src.size)
        core = _core.Graph.from_coo(
            n, n, np.ascontiguousarray(src, dtype=iname), np.ascontiguousarray(dst, dtype=iname),
            w, iname, vname, duplicates, not self_loops, not directed, True)
        return cls._wrap(core, labels, 0, directed)

    @classmethod
    def from_networkx(cls, G, weight=None, *, nodelist=None, default_weight=1.0,
                      index_dtype=None, value_dtype=None):
        """A graph with the nodes and edges of a networkx graph.

        Parameters
        ----------
        G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
            Undirected edges are stored in both directions (a self-loop once). Node labels of
            any hashable type become the graph's vertex ids, in G's node order (or nodelist's).
        weight : str, optional
            The edge attribute holding the values (``default_weight`` where an edge lacks it).
            None: a pattern graph (structure only). Parallel edges of a multigraph add up, as
            in networkx.to_scipy_sparse_array.
        nodelist : sequence, optional
            The vertices and their order (edges to nodes outside it are dropped).

        Raises
        ------
        spindle.InvalidArgument
            An edge's ``weight`` attribute is not a number (a str, None, ...; bools, ints and
            numpy scalars are numbers), or nodelist repeats a node.
        spindle.VertexNotFound
            nodelist names a node the graph does not have.
        """
        if weight is None:
            vname = None if value_dtype is None else _value_dtype_name(value_dtype)
        else:
            vname = _value_dtype_name(value_dtype)
        core, labels = _convert_networkx(G, weight, default_weight, vname, index_dtype,
                                         nodelist)
        return cls._wrap(core, labels, 0, G.is_directed())

    # --- properties ---------------------------------------------------------------------------

    @property
    def shape(self):
        """(rows, cols)."""
        return (self._g.nrows, self._g.ncols)

    @property
    def nrows(self):
        """Number of rows (the vertices of a square graph)."""
        return self._g.nrows

    @property
    def ncols(self):
        """Number of columns."""
        return self._g.ncols

    @property
    def nnz(self):
        """Number of stored entries (directed edges; an undirected edge counts twice)."""
        return self._g.nnz

    def __len__(self):
        """Number of vertices (rows)."""
        return self._g.nrows

    @property
    def index_dtype(self):
        """numpy dtype of the row offsets and column indices (int32 or int64)."""
        return np.dtype(self._g.index_dtype)

    @property
    def value_dtype(self):
        """numpy dtype of the values (float32 or float64), or the string 'pattern'."""
        v = self._g.value_dtype
        return v if v == "pattern" else np.dtype(v)

    @property
    def is_pattern(self):
        """True for a pattern graph (no values: every entry is 1)."""
        return self._g.value_dtype == "pattern"

    @property
    def indptr(self):
        """Row offsets: a read-only numpy view of the engine's array (no copy)."""
        return self._g.indptr()

    @property
    def indices(self):
        """Column indices: a read-only numpy view of the engine's array (no copy)."""
        return self._g.indices()

    @property
    def data(self):
        """Values: a read-only numpy view (no copy), or None for a pattern graph."""
        return self._g.data()

    @property
    def directed(self):
        """False when the graph came from an undirected source (a networkx Graph, or
        from_edges(directed=False)): its entries then hold both directions of every edge."""
        return self._directed

    @property
    def nbytes(self):
        """Bytes of the CSR arrays."""
        return self._g.nbytes

    # --- vertex ids ---------------------------------------------------------------------------

    @property
    def vertex_ids(self):
        """The id of every vertex, in internal order: a list of labels, or a numpy range
        (0-based, or 1-based for Matrix Market files)."""
        if self._labels is not None:
            return self._labels
        return np.arange(self._id_base, self._id_base + self.nrows, dtype=np.int64)

    @property
    def labels(self):
        """The vertex labels (edge lists, networkx nodes, from_edges ids), or None when the
        ids are positions (0-based; 1-based for Matrix Market files)."""
        return self._labels

    @property
    def id_base(self):
        """0 or 1: the first vertex id when the ids are positions (1 for Matrix Market)."""
        return self._id_base

    def index_of(self, vertex):
        """Internal position (0..n-1) of a vertex id. Raises spindle.VertexNotFound (an
        IndexError and a KeyError) for an id the graph does not have."""
        n = self.nrows
        if self._labels is None:
            if isinstance(vertex, (bool, np.bool_)) or not isinstance(vertex, (int, np.integer)):
                raise VertexNotFound(
                    f"vertex {vertex!r} is not in the graph (ids are the integers "
                    f"{self._id_base}..{self._id_base + n - 1})"
                )
            i = int(vertex) - self._id_base
            if not 0 <= i < n:
                raise VertexNotFound(
                    f"vertex {vertex!r} is not in the graph (ids are "
                    + (f"{self._id_base}..{self._id_base + n - 1}" if n else "none: it is empty")
                    + (", 1-based as in the Matrix Market file)" if self._id_base == 1 else ")")
                )
            return i
        index = self._label_index()
        try:
            return index[vertex]
        except (KeyError, TypeError):
            examples = ", ".join(repr(x) for x in itertools.islice(self._labels, 3))
            raise VertexNotFound(
                f"vertex {vertex!r} is not in the graph (its ids are labels such as {examples})"
            ) from None

    def id_of(self, index):
        """The vertex id of internal position `index`."""
        if self._labels is not None:
            return self._labels[index]
        if not 0 <= index < self.nrows:
            raise VertexNotFound(f"position {index} is outside [0, {self.nrows})")
        return int(index) + self._id_base

    def _label_index(self):
        if self._index is None:
            self._index = {x: i for i, x in enumerate(self._labels)}
        return self._index

    def __contains__(self, vertex):
        try:
            self.index_of(vertex)
        except VertexNotFound:
            return False
        return True

    def keyed(self, values):
        """{vertex id: value} for an array of per-vertex values in internal order (numpy
        numbers become Python numbers)."""
        values = values.tolist() if isinstance(values, np.ndarray) else list(values)
        ids = self.vertex_ids
        ids = ids.tolist() if isinstance(ids, np.ndarray) else ids
        return dict(zip(ids, values))

    # --- derived graphs and data --------------------------------------------------------------

    def stats(self):
        """Row-length statistics (rows, nnz, average / standard deviation / maximum row length,
        empty rows, self-loops, log2 histogram) and the spread of the column lengths
        (``col_imbalance_est``: in-degree stdv/avg, counted when nnz + cols <= 2**17, estimated from
        a fixed sample of entries above), cached with the graph."""
        return self._g.stats()

    def transpose(self):
        """The transpose A^T (built once and cached; it shares this graph's vertex ids)."""
        return Graph._wrap(self._g.transpose(), self._labels, self._id_base, self._directed)

    @property
    def T(self):
        """The transpose (see transpose())."""
        return self.transpose()

    def with_values(self, value_dtype):
        """The same structure with the values converted to float32 / float64, or dropped
        ('pattern')."""
        return Graph._wrap(self._g.with_values(_value_dtype_name(value_dtype)), self._labels,
                           self._id_base, self._directed)

    def out_degrees(self):
        """Stored entries per row (numpy, the index dtype)."""
        return self._g.out_degrees()

    def in_degrees(self):
        """Stored entries per column (numpy, the index dtype)."""
        return self._g.in_degrees()

    # --- conversions --------------------------------------------------------------------------

    def to_scipy(self, format="csr", *, dtype=None, copy=True):
        """The graph as a scipy sparse array (``csr_array``; ``format`` converts it, e.g.
        'coo', 'csc').

        Pattern graphs give ones (float64 unless `dtype`). With ``copy=False`` a CSR result
        shares the engine's read-only arrays (no copy: do not write into it).
        """
        import scipy.sparse as sp

        indptr, indices, data = self.indptr, self.indices, self.data
        if data is None:
            data = np.ones(self.nnz, dtype=dtype or np.float64)
        elif dtype is not None:
            data = data.astype(dtype)
        if copy:
            indptr, indices, data = indptr.copy(), indices.copy(), np.array(data, copy=True)
        A = sp.csr_array((data, indices, indptr), shape=self.shape)
        return A if format == "csr" else A.asformat(format)

    def to_networkx(self, weight="weight", *, create_using=None):
        """A networkx graph with this graph's vertex ids as nodes.

        A DiGraph for a directed graph; for an undirected one (from a networkx Graph or
        from_edges(directed=False)) a Graph. Values go to the edge attribute `weight` (None,
        or a pattern graph: no attribute).
        """
        import networkx as nx

        if create_using is None:
            create_using = nx.DiGraph if self._directed else nx.Graph
        G = nx.empty_graph(0, create_using)
        ids = self.vertex_ids
        ids = ids.tolist() if isinstance(ids, np.ndarray) else list(ids)
        G.add_nodes_from(ids)
        indptr = self.indptr
        rows = np.repeat(np.arange(self.nrows), np.diff(indptr)).tolist()
        cols = self.indices.tolist()
        if self._labels is not None or self._id_base != 0:
            rows = [ids[i] for i in rows]
            cols = [ids[j] for j in cols]
        if weight is None or self.data is None:
            G.add_edges_from(zip(rows, cols))
        else:
            G.add_weighted_edges_from(zip(rows, cols, self.data.tolist()), weight=weight)
        return G

    def write(self, path, *, format=None):
        """Writes the graph: Matrix Market for names ending in .mtx / .mm, else an edge list
        with the vertex ids (see spindle.write)."""
        from ._files import write

        write(path, self, format=format)

    def __repr__(self):
        kind = "pattern" if self.is_pattern else self._g.value_dtype
        ids = ("labels" if self._labels is not None
               else "1-based ids" if self._id_base == 1 else "0-based ids")
        return (f"<spindle.Graph {self.nrows}x{self.ncols}, {self.nnz} entries, "
                f"{self._g.index_dtype} indices, {kind} values, {ids}"
                f"{'' if self._directed else ', undirected'}>")


def _labels_checked(labels, n):
    if labels is None:
        return None
    labels = labels.tolist() if isinstance(labels, np.ndarray) else list(labels)
    if len(labels) != n:
        raise InvalidArgument(f"{len(labels)} labels for {n} vertices")
    return labels


def _is_scipy_sparse(x):
    mod = type(x).__module__
    if not mod.startswith("scipy"):
        return False
    import scipy.sparse as sp

    return sp.issparse(x)


def _is_networkx_graph(x):
    return type(x).__module__.startswith("networkx") or hasattr(x, "_adj") and hasattr(
        x, "is_directed"
    )


def _convert_networkx(G, weight, default_weight, value_dtype, index_dtype, nodelist=None,
                      ones_as_pattern=False):
    """(engine graph, labels) for a networkx graph: rows in G's node order (or nodelist's),
    both directions of undirected edges, values from `weight` (None: pattern; with
    ones_as_pattern, also when every value is 1 and value_dtype is None). Labels are None when
    the nodes are exactly 0..n-1 in order. The walk of G's dicts is C++ (_core)."""
    iname = None if index_dtype is None else _index_dtype_name(index_dtype)
    return _core.from_networkx_adjacency(G._adj, nodelist, weight, default_weight,
                                         G.is_multigraph(), not G.is_directed(), iname,
                                         value_dtype, ones_as_pattern)
