#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Speedup against scale from `spindle bench pagerank --json` and `spindle bench mxv --json`.

    python3 plot_speedup.py --out speedup.png pagerank.json [mxv.json ...]

One panel per benchmark kind and GPU found among the files (ratios of different GPUs never share
a panel): PageRank per iteration (cuSPARSE ms / Spindle ms) and mxv (best cuSPARSE algorithm /
the planner's pick), against log2 of the vertex (row) count, one line per graph family (rmat,
uniform, mesh, mesh-r, plaw-gX, bip...). Dashed lines at 1.0x and at the 1.5x bar. Needs
matplotlib.
"""
import argparse
import json
import math
import re
import sys


def family(name):
    """rmat22 -> rmat, mesh24-r -> mesh-r, plaw22-g2.1-o -> plaw-g2.1-o, uniform-24 -> uniform."""
    return re.sub(r"-?\d+(?=(-|$))", "", name, count=1)


def points(doc):
    """(kind, device, [(family, scale, speedup, name)]) of one JSON document."""
    out = []
    if "graphs" in doc and doc["graphs"] and "spindle" in doc["graphs"][0]:
        for g in doc["graphs"]:
            ours, base = g["spindle"]["ms_per_iter"], g["cusparse"]["ms_per_iter"]
            if ours > 0 and base > 0 and g["n"] > 0:
                out.append((family(g["graph"]), math.log2(g["n"]), base / ours, g["graph"]))
        return "PageRank per iteration", doc.get("device", "?"), out
    for g in doc.get("graphs", []):
        cus = [g[k]["ms"] for k in ("cusparse_default", "cusparse_csr_alg2")
               if g.get(k, {}).get("ok") and g[k]["ms"] > 0]
        pick = g.get("planner", {})
        if cus and pick.get("ok") and pick["ms"] > 0 and g["rows"] > 0:
            out.append((family(g["name"]), math.log2(g["rows"]), min(cus) / pick["ms"], g["name"]))
    return "mxv (fp32 values)", doc.get("device", "?"), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="PNG file to write")
    ap.add_argument("files", nargs="+", help="JSON files of bench pagerank / bench mxv")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_speedup.py: matplotlib is not installed")
    panels = {}
    for path in args.files:
        with open(path) as f:
            kind, device, pts = points(json.load(f))
        panels.setdefault(kind + " on " + device, []).extend(pts)
    cols = min(2, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 5 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, panel) in zip(axes.flat, sorted(panels.items())):
        for fam in sorted({p[0] for p in panel}):
            pts = sorted((p[1], p[2]) for p in panel if p[0] == fam)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=fam)
        ax.axhline(1.0, color="gray", linestyle="--", linewidth=1)
        ax.axhline(1.5, color="red", linestyle=":", linewidth=1, label="1.5x bar")
        ax.set_xlabel("log2 vertices (rows)")
        ax.set_ylabel("speedup over the best cuSPARSE (same process)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
