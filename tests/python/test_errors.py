# SPDX-License-Identifier: Apache-2.0
"""Spindle's errors as Python exceptions: the hierarchy, bad files, bad vertex ids, shape
mismatches, bad options; a bad call raises and never takes the interpreter down."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import spindle

from conftest import random_csr


@pytest.mark.parametrize("cls,builtin", [
    (spindle.InvalidArgument, ValueError),
    (spindle.DimensionMismatch, ValueError),
    (spindle.ParseError, ValueError),
    (spindle.IndexOutOfBounds, IndexError),
    (spindle.VertexNotFound, IndexError),
    (spindle.VertexNotFound, KeyError),
    (spindle.Unsupported, NotImplementedError),
    (spindle.OutOfMemory, MemoryError),
    (spindle.DeviceError, RuntimeError),
    (spindle.FileError, OSError),
    (spindle.FileNotFound, FileNotFoundError),
    (spindle.Cancelled, spindle.Error),
])
def test_every_class_is_a_spindle_error_and_its_builtin(cls, builtin):
    assert issubclass(cls, spindle.Error) and issubclass(cls, builtin)
    assert cls.__doc__


def test_malformed_files_raise_parse_error_with_file_and_line(bad_dir):
    files = sorted(bad_dir.glob("*.mtx"))
    assert files
    for f in files:
        with pytest.raises(spindle.ParseError) as info:
            spindle.read(f)
        e = info.value
        assert isinstance(e, ValueError)
        assert e.file == str(f) and e.line >= 1
        assert f"{f}:{e.line}:" in str(e)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        spindle.read(tmp_path / "nope.mtx")
    assert isinstance(info.value, spindle.Error) and info.value.filename.endswith("nope.mtx")
    with pytest.raises(spindle.FileNotFound):
        spindle.read(tmp_path)  # a directory


def test_an_unwritable_path_is_a_file_error(tmp_path):
    g = spindle.Graph.from_edges([0], [1])
    with pytest.raises(OSError) as info:
        spindle.write(tmp_path / "no" / "such" / "dir" / "g.mtx", g)
    assert isinstance(info.value, spindle.Error)


def test_a_dense_or_complex_file_is_unsupported(graphs_dir):
    with pytest.raises(NotImplementedError):
        spindle.read(graphs_dir / "full.mtx")


def test_edge_list_errors_name_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("1 2\n2 3\n3\n")
    with pytest.raises(spindle.ParseError) as info:
        spindle.read(p)
    assert info.value.line == 3


def test_bad_vertex_ids(graphs_dir):
    g = spindle.read(graphs_dir / "karate.mtx")
    for bad in (0, 35, -1, "1", 2.0):
        with pytest.raises(spindle.VertexNotFound):
            spindle.bfs(g, bad)
    with pytest.raises(KeyError):
        spindle.sssp(g, 99)
    e = spindle.read(graphs_dir / "karate.csv")
    with pytest.raises(IndexError, match="labels such as"):
        spindle.bfs(e, "nobody")
    with pytest.raises(spindle.VertexNotFound):
        spindle.pagerank(e, personalization={12345: 1.0})


def test_dimension_mismatches(rng):
    g = spindle.Graph.from_scipy(random_csr(rng, 10, 8, density=0.3))
    with pytest.raises(spindle.DimensionMismatch):
        spindle.mxv(None, None, None, "plus_times", g, np.ones(9))
    with pytest.raises(ValueError):
        spindle.mxm(None, None, "plus_times", g, np.ones((7, 2)))
    with pytest.raises(spindle.DimensionMismatch):
        spindle.ewise_add(None, None, None, "plus", np.ones(3), np.ones(4))
    with pytest.raises(spindle.DimensionMismatch):
        spindle.mxv(spindle.Vector.full(3), spindle.Mask(np.ones(3)), None, "plus_times", g,
                    np.ones(8))
    with pytest.raises(spindle.InvalidArgument, match="square"):
        spindle.pagerank(g)
    with pytest.raises(spindle.InvalidArgument, match="personalization"):
        spindle.pagerank(spindle.Graph.from_edges([0], [1]), personalization=[1.0, 2.0, 3.0])


def test_bad_options(rng):
    g = spindle.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(spindle.InvalidArgument, match="alpha"):
        spindle.pagerank(g, alpha=1.5)
    with pytest.raises(spindle.InvalidArgument, match="preset"):
        spindle.pagerank(g, preset="google")
    with pytest.raises(ValueError):
        spindle.pagerank(g, personalization=[-1.0, 1.0])
    with pytest.raises(spindle.InvalidArgument, match="non-negative"):
        spindle.pagerank(spindle.Graph.from_edges([0, 1], [1, 0], weights=[1.0, -2.0]), weight=True)
    with pytest.raises(spindle.InvalidArgument, match="device"):
        spindle.pagerank(g, device="tpu")
    with pytest.raises(spindle.InvalidArgument):
        spindle.Graph.from_edges([0], [1], index_dtype="int16")
    with pytest.raises(spindle.InvalidArgument):
        spindle.Graph.from_edges([0, 1], [1])


@pytest.mark.skipif(spindle.cuda_available(), reason="this build has a usable GPU")
def test_cuda_without_a_gpu_is_unsupported():
    g = spindle.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(NotImplementedError) as info:
        spindle.pagerank(g, device="cuda")
    assert isinstance(info.value, spindle.Unsupported)
    with pytest.raises(spindle.Unsupported, match="CUDA_VISIBLE_DEVICES"):
        spindle.pagerank(g, device="cuda:1")


def test_wrong_types_raise_type_errors_not_crashes():
    g = spindle.Graph.from_edges([0, 1], [1, 0])
    with pytest.raises(TypeError):
        spindle.bfs("not a graph", 0)
    with pytest.raises(spindle.InvalidArgument):
        spindle.mxv(None, None, None, "plus_times", g, np.ones((2, 2)))
    with pytest.raises(TypeError):
        spindle._core._pagerank(None, "float64", 0.85, 1e-6, -1, None, False, "default", "auto",
                                "auto", False, "", None)
    with pytest.raises(spindle.InvalidArgument):
        spindle.assign(np.zeros(3), None, None, 1.0)


def test_bad_calls_in_a_child_interpreter_exit_cleanly():
    # Many bad calls in a row: the interpreter survives every one and exits normally.
    code = """
import numpy as np, spindle
g = spindle.Graph.from_edges([0, 1, 2], [1, 2, 0])
bad = [lambda: spindle.bfs(g, 7), lambda: spindle.read('/nonexistent'),
       lambda: spindle.mxv(None, None, None, 'plus_times', g, np.ones(5)),
       lambda: spindle.pagerank(g, alpha=-1), lambda: spindle.Vector.full(-1),
       lambda: spindle._core.Graph.from_csr(2, 2, np.array([0, 5, 1], np.int32),
                                           np.array([0], np.int32), None, 'int32', 'pattern')]
n = 0
for f in bad * 20:
    try:
        f()
    except (spindle.Error, OSError, ValueError, IndexError):
        n += 1
print('ok', n)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=pathlib.Path(__file__).parent)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ok", "120"]
