# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python tests: the data folder, random graphs and independent oracles.

The oracles never go through Spindle: Matrix Market files are read with scipy.io.mmread and
edge lists with networkx.read_edgelist, and the answers come from scipy, numpy or networkx.
"""

import os
import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import networkx as nx

REPO = pathlib.Path(__file__).resolve().parents[2]


def data_dir():
    """SPINDLE_DATA_DIR (set by ctest), else ../shared/data beside the checkout."""
    env = os.environ.get("SPINDLE_DATA_DIR")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def graphs_dir():
    d = data_dir() / "graphs"
    if not d.is_dir():
        pytest.skip(f"test data not found at {d} (set SPINDLE_DATA_DIR)")
    return d


@pytest.fixture(scope="session")
def bad_dir():
    d = data_dir() / "bad"
    if not d.is_dir():
        pytest.skip(f"test data not found at {d} (set SPINDLE_DATA_DIR)")
    return d


# Square graphs of the data folder with a networkx oracle: (file, directed). Matrix Market files
# are read by scipy (1-based ids become 0-based rows: the oracle's node v is Spindle's v + 1).
REAL_GRAPHS = [
    "karate.mtx",
    "chesapeake.mtx",
    "cugraph_dolphins.mtx",
    "cugraph_polbooks.mtx",
    "west0067.mtx",
    "1138_bus.mtx",
    "jagmesh7.mtx",
    "cryg2500.mtx",
    "ldbc-directed-example.mtx",
    "bcsstk13.mtx",
    "karate.csv",
    "karate_s_loop.csv",
    "email-Eu-core.csv",
    "as20graph.txt",
    "C-elegans-frontal.txt",
]


def oracle_graph(path, weighted=False):
    """(networkx DiGraph, map from oracle node to Spindle vertex id), built without Spindle."""
    path = pathlib.Path(path)
    if path.suffix == ".mtx":
        A = sp.csr_array(scipy.io.mmread(str(path)))
        if not weighted:
            A.data[:] = 1.0
        A.sum_duplicates()
        G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph, edge_attribute="weight")
        return G, {v: v + 1 for v in G}
    G = nx.DiGraph()
    for line in open(path):
        s = line.strip()
        if not s or s[0] in "#%":
            continue
        parts = s.replace(",", " ").split()
        u, v = int(parts[0]), int(parts[1])
        w = float(parts[2]) if weighted and len(parts) > 2 else 1.0
        if G.has_edge(u, v):
            if weighted:
                G[u][v]["weight"] += w  # duplicates add up, as Spindle's default policy
        else:
            G.add_edge(u, v, weight=w)
    return G, {v: v for v in G}


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def random_csr(rng, n, m=None, density=0.1, dtype=np.float64, positive=False):
    """A random sparse matrix with some empty rows and values in [-1, 1) (or (0, 1])."""
    m = n if m is None else m
    try:
        A = sp.random_array((n, m), density=density, format="csr", dtype=np.float64, rng=rng)
    except TypeError:  # scipy < 1.15 names it random_state
        A = sp.random_array((n, m), density=density, format="csr", dtype=np.float64,
                            random_state=rng)
    if not positive:
        A.data = A.data * 2 - 1
    else:
        A.data = A.data + 0.01
    A = A.astype(dtype)
    A.sort_indices()
    return A
