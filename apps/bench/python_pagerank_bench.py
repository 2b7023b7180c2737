# SPDX-License-Identifier: Apache-2.0
"""The Python package's PageRank bars (issue 47), on this machine.

1. networkx: nx.pagerank(G, backend="spindle") against networkx's own nx.pagerank (scipy) on an
   R-MAT graph of about 1M edges (--graph): a DiGraph and an undirected Graph built from its
   edges (Graph.to_networkx, no edge attribute), and the undirected Graph that
   nx.from_scipy_sparse_array makes of its matrix (a weight on every edge). For each: the first
   call on a freshly built graph (conversion included), repeated calls (the converted graph
   cached by networkx), convert_from_nx alone, and the L1 distance between the two rankings.
   The load average is printed with each graph (the timings mean little on a busy machine).
2. scipy: spindle.pagerank on a scipy CSR of R-MAT 20 against the CLI's compute time on the same
   file (`spindle pagerank FILE --top 1` prints it), and the conversion's share.

    PYTHONPATH=build/test/python python apps/bench/python_pagerank_bench.py \\
        --cli build/test/bin/spindle [--scale 16 --edge-factor 17] [--big-scale 20] \\
        [--graph digraph|graph|scipy-graph|all] [--only networkx|scipy]

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


def load():
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def networkx_bar(args, kind):
    import networkx as nx

    import spindle
    from spindle.networkx_backend import BackendInterface

    nx.config.warnings_to_ignore.add("cache")
    g = spindle.generate_rmat(args.scale, args.edge_factor, seed=1)
    if kind == "scipy-graph":
        A = g.to_scipy()

        def build():  # undirected, {"weight": 1.0} on every edge
            return nx.from_scipy_sparse_array(A)
    else:
        create = nx.DiGraph if kind == "digraph" else nx.Graph

        def build():  # in edge-list order, as a file or a generator would give them
            return g.to_networkx(create_using=create)

    G = build()
    print(f"networkx {type(G).__name__} ({kind}): R-MAT scale {args.scale}, edge factor "
          f"{args.edge_factor}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges; "
          f"{load()}")
    ref, nx_best, nx_med = timed(lambda: nx.pagerank(G), args.repeat)
    row("nx.pagerank(G) (networkx, scipy)", nx_best, nx_med)
    firsts = []
    for _ in range(args.repeat):
        H = build()  # a fresh graph: nothing converted or cached yet
        t = time.perf_counter()
        got = nx.pagerank(H, backend="spindle")
        firsts.append(time.perf_counter() - t)
    row('nx.pagerank(G, backend="spindle"), first call (converts)', min(firsts),
        statistics.median(firsts), f"{nx_med / statistics.median(firsts):.1f}x")
    got, best, med = timed(lambda: nx.pagerank(H, backend="spindle"), args.repeat)
    row('nx.pagerank(G, backend="spindle"), cached graph', best, med, f"{nx_med / med:.1f}x")
    _, best, med = timed(lambda: BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1}),
                         args.repeat)
    row("  of which convert_from_nx (weight attribute scanned)", best, med)
    l1 = sum(abs(got[v] - ref[v]) for v in G)
    print(f"L1 distance between the rankings: {l1:.3g}; {load()}")


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
    p.add_argument("--graph", choices=["digraph", "graph", "scipy-graph", "all"], default="all",
                   help="the networkx graphs of the networkx bar")
    args = p.parse_args()
    print(f"| {'measurement':<58} | best (s)  | median (s)| ratio")
    if args.only in (None, "networkx"):
        kinds = ("digraph", "graph", "scipy-graph") if args.graph == "all" else (args.graph,)
        for kind in kinds:
            networkx_bar(args, kind)
    if args.only in (None, "scipy"):
        scipy_bar(args)


if __name__ == "__main__":
    main()
