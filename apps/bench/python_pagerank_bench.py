# SPDX-License-Identifier: Apache-2.0
"""The Python package's PageRank bars (issue 47), on this machine.

1. networkx: nx.pagerank(G, backend="spindle") against networkx's own nx.pagerank (scipy) on an
   R-MAT DiGraph of about 1M edges: the first call (conversion included), then repeated calls
   (the converted graph cached by networkx), and the L1 distance between the two rankings.
2. scipy: spindle.pagerank on a scipy CSR of R-MAT 20 against the CLI's compute time on the same
   file (`spindle pagerank FILE --top 1` prints it), and the conversion's share.

    PYTHONPATH=build/test/python python apps/bench/python_pagerank_bench.py \\
        --cli build/test/bin/spindle [--scale 16 --edge-factor 17] [--big-scale 20]

Prints one table row per measurement (seconds; the best and the median of --repeat runs).
"""

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time


def timed(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, min(times), statistics.median(times)


def row(what, best, median, note=""):
    print(f"| {what:<58} | {best:9.4f} | {median:9.4f} | {note}")


def networkx_bar(args):
    import networkx as nx
    import numpy as np

    import spindle

    nx.config.warnings_to_ignore.add("cache")
    g = spindle.generate_rmat(args.scale, args.edge_factor, seed=1)
    src = np.repeat(np.arange(g.nrows), np.diff(g.indptr)).tolist()
    G = nx.DiGraph()
    G.add_nodes_from(range(g.nrows))
    G.add_edges_from(zip(src, g.indices.tolist()))
    print(f"networkx DiGraph: R-MAT scale {args.scale}, edge factor {args.edge_factor}: "
          f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges")
    ref, nx_best, nx_med = timed(lambda: nx.pagerank(G), args.repeat)
    row("nx.pagerank(G) (networkx, scipy)", nx_best, nx_med)
    firsts = []
    for _ in range(args.repeat):
        G.__networkx_cache__.clear()
        t = time.perf_counter()
        got = nx.pagerank(G, backend="spindle")
        firsts.append(time.perf_counter() - t)
    row('nx.pagerank(G, backend="spindle"), first call (converts)', min(firsts),
        statistics.median(firsts), f"{nx_med / statistics.median(firsts):.1f}x")
    got, best, med = timed(lambda: nx.pagerank(G, backend="spindle"), args.repeat)
    row('nx.pagerank(G, backend="spindle"), cached graph', best, med, f"{nx_med / med:.1f}x")
    l1 = sum(abs(got[v] - ref[v]) for v in G)
    print(f"L1 distance between the rankings: {l1:.3g}")
    G.__networkx_cache__.clear()
    from spindle.networkx_backend import BackendInterface

    _, best, med = timed(lambda: BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}),
                         args.repeat)
    row("  of which convert_from_nx (weight attribute scanned)", best, med)


def scipy_bar(args):
    import spindle

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"rmat{args.big_scale}.mtx")
        subprocess.run([args.cli, "generate", "rmat", "--scale", str(args.big_scale),
                        "--edge-factor", "16", "--seed", "1", "-o", path], check=True,
                       capture_output=True)
        cli = []
        for _ in range(args.repeat):
            out = subprocess.run([args.cli, "pagerank", path, "--top", "1", "--device", "cpu"],
                                 check=True, capture_output=True, text=True).stdout
            m = re.search(r"time ([0-9.]+) (ms|s)\b", out)
            cli.append(float(m.group(1)) / (1000 if m.group(2) == "ms" else 1))
        A = spindle.read(path).to_scipy()
    print(f"scipy CSR: R-MAT scale {args.big_scale}, edge factor 16: {A.shape[0]} rows, "
          f"{A.nnz} entries, {A.indices.dtype} indices")
    row(f"CLI spindle pagerank rmat{args.big_scale}.mtx: its compute time", min(cli),
        statistics.median(cli))
    r, best, med = timed(lambda: spindle.pagerank(A, device="cpu"), args.repeat)
    row("spindle.pagerank(csr) (conversion included)", best, med,
        f"{(med / statistics.median(cli) - 1) * 100:+.1f}% vs CLI, {r.iterations} iterations")
    _, cbest, cmed = timed(lambda: spindle.Graph.from_scipy(A, value_dtype="pattern"),
                           args.repeat)
    row("  of which Graph.from_scipy(csr) (the one copy)", cbest, cmed)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cli", default="build/test/bin/spindle")
    p.add_argument("--scale", type=int, default=16)
    p.add_argument("--edge-factor", type=int, default=17)
    p.add_argument("--big-scale", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", choices=["networkx", "scipy"])
    args = p.parse_args()
    print(f"| {'measurement':<58} | best (s)  | median (s)| ratio")
    if args.only in (None, "networkx"):
        networkx_bar(args)
    if args.only in (None, "scipy"):
        scipy_bar(args)


if __name__ == "__main__":
    main()
