# SPDX-License-Identifier: Apache-2.0
"""Graph files (Matrix Market, edge lists, .spg) and the deterministic generators."""

import errno
import os

import numpy as np

from . import _core
from ._errors import FileNotFound, InvalidArgument
from ._graph import Graph, _index_dtype_name, _value_dtype_name

__all__ = ["read", "write", "generate_rmat", "generate_uniform"]


def _guess_format(path, format):
    if format is not None:
        if format in ("mtx", "matrix_market", "mm"):
            return "matrix_market"
        if format in ("edge_list", "edgelist", "txt", "el", "csv", "tsv"):
            return "edge_list"
        if format == "spg":
            return "spg"
        raise InvalidArgument(f"unknown format {format!r} (matrix_market, edge_list or spg)")
    lower = str(path).lower()
    if lower.endswith(".spg"):
        return "spg"
    return "matrix_market" if lower.endswith((".mtx", ".mm")) else "edge_list"


def read(path, *, index_dtype=None, value_dtype=None, undirected=False, allow_nonfinite=False,
         headerless=False, ignore_extra_columns=False):
    """Reads a graph from a Matrix Market file, an edge list or a .spg file.

    The format is guessed as the CLI does: a file starting with the .spg magic is Spindle's
    binary CSR (``spindle convert g.mtx g.spg`` writes one; checksummed, loads at copy speed);
    names ending in .mtx / .mm, or files starting with ``%%MatrixMarket``, are Matrix Market;
    anything else is an edge list (``src dst [weight]`` per line; space, tab or comma separated;
    ``#`` / ``%`` comments).

    Vertex ids are the file's own: 1-based indices for Matrix Market, the labels of an edge list
    (ints when every label is an integer, else strings), the labels a .spg file keeps (else
    1-based indices), as the CLI prints them.

    Parameters
    ----------
    path : str or os.PathLike
    index_dtype : 'int32' or 'int64', optional
        Default: int32 unless the file's size needs int64 (a .spg file: its stored type).
    value_dtype : 'float32', 'float64' or 'pattern', optional
        Default: float64 when the file has values, else pattern (a .spg file: its stored type).
    undirected : bool
        Add the reverse of every edge (symmetric Matrix Market files always have both).
    allow_nonfinite : bool
        Accept NaN / Inf values (refused by default, naming the line).
    headerless : bool
        A .mtx file without the ``%%MatrixMarket`` banner.
    ignore_extra_columns : bool
        Edge lists: ignore columns after ``src dst weight``.

    Raises
    ------
    spindle.FileNotFound (a FileNotFoundError) for a missing file, spindle.ParseError (a
    ValueError, with ``file`` and ``line``) for a malformed one, spindle.FileError (an OSError)
    when it cannot be read.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFound(errno.ENOENT, "no such graph file", path)
    if os.path.isdir(path):
        raise FileNotFound(errno.EISDIR, "is a directory, not a graph file", path)
    iname = None if index_dtype is None else _index_dtype_name(index_dtype)
    vname = None if value_dtype is None else _value_dtype_name(value_dtype)
    try:
        r = _core.read(path, iname, vname, undirected, allow_nonfinite, headerless,
                       ignore_extra_columns)
    except Exception as exc:
        raise _as_file_error(exc, path) from None
    labels = None
    if r.labels is not None:
        labels = r.labels
        if r.labels_are_integers:
            labels = [int(x) for x in labels]
    id_base = 1 if r.format in ("matrix_market", "spg") else 0
    return Graph._wrap(r.graph, labels, id_base, True)


def write(path, graph, *, format=None):
    """Writes a graph to a Matrix Market file (.mtx / .mm, 1-based, values in round-trip
    precision), a .spg file (Spindle's binary CSR, with the vertex ids of a square graph) or an
    edge list (any other name: ``src dst [weight]`` per line with the graph's vertex ids). The
    file appears complete or not at all (written to a temporary, then renamed)."""
    path = os.fspath(path)
    graph = Graph._from_any(graph)
    fmt = _guess_format(path, format)
    labels = []
    if fmt == "edge_list" or (fmt == "spg" and graph.shape[0] == graph.shape[1]):
        ids = graph.vertex_ids
        labels = [str(x) for x in (ids.tolist() if isinstance(ids, np.ndarray) else ids)]
    try:
        _core.write(path, graph._g, fmt, labels)
    except Exception as exc:
        raise _as_file_error(exc, path) from None


def _as_file_error(exc, path):
    """A plain spindle.Error from the file layer is an I/O failure: spindle.FileError."""
    from ._errors import Error, FileError

    if type(exc) is Error:
        return FileError(errno.EIO, str(exc), path)
    return exc


def generate_rmat(scale, edge_factor=16, seed=1, *, a=0.57, b=0.19, c=0.19, scramble=True,
                  index_dtype=None, value_dtype="pattern", self_loops=False):
    """A deterministic R-MAT graph (Chakrabarti, Zhan, Faloutsos 2004), as
    ``spindle generate rmat`` makes it: 2**scale vertices, edge_factor * 2**scale generated
    entries (duplicates merged, self-loops dropped unless asked for), ids scrambled as in
    Graph500. The same arguments give the same graph on every machine and thread count."""
    iname = _index_dtype_name(index_dtype, 2**scale, edge_factor * 2**scale)
    core = _core.generate("rmat", int(scale), int(edge_factor), int(seed), a, b, c, scramble,
                          iname, _value_dtype_name(value_dtype), not self_loops)
    return Graph._wrap(core)


def generate_uniform(scale, edge_factor=16, seed=1, *, index_dtype=None, value_dtype="pattern",
                     self_loops=False):
    """A uniform random graph: 2**scale vertices, edge_factor * 2**scale entries with both ends
    uniform (duplicates merged, self-loops dropped unless asked for); deterministic."""
    iname = _index_dtype_name(index_dtype, 2**scale, edge_factor * 2**scale)
    core = _core.generate("uniform", int(scale), int(edge_factor), int(seed), 0.57, 0.19, 0.19,
                          True, iname, _value_dtype_name(value_dtype), not self_loops)
    return Graph._wrap(core)
