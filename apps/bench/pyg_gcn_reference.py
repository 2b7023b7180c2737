#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch Geometric reference for spindle_bench_gcn.

Reads what `spindle_bench_gcn --export DIR` wrote (the graph as raw int32 CSR, the features, each
layer's weights and bias, and Spindle's output), runs the same 2-layer GCN with PyG's GCNConv on
the GPU (same weights; ReLU between layers, none after the last), compares the outputs
(relative L2 error) and times PyG's forward pass (CUDA events, median after warm-up).

Conventions matched: Spindle's A-hat = D^-1/2 (A + I) D^-1/2 with D the row sums of A + I and row
i aggregating its stored entries (i, j). PyG's adjacency argument is adj_t (row i gathers the
columns j of row i), so Spindle's CSR is passed as adj_t as it is; gcn_norm adds the remaining
self-loops and takes degrees as adj_t's row sums, which is the same D.

Usage: python3 pyg_gcn_reference.py DIR [--reps 20] [--warmup 3] [--json FILE]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch


def median_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", default="")
    args = ap.parse_args()

    import torch_geometric
    from torch_geometric.nn import GCNConv

    d = args.dir
    with open(os.path.join(d, "meta.txt")) as f:
        n, nnz, layers, spindle_ms = f.read().split()
    n, nnz, layers, spindle_ms = int(n), int(nnz), int(layers), float(spindle_ms)
    dev = torch.device("cuda")
    row_ptr = torch.from_numpy(np.fromfile(os.path.join(d, "row_ptr.i32"), dtype=np.int32).astype(np.int64))
    col_idx = torch.from_numpy(np.fromfile(os.path.join(d, "col_idx.i32"), dtype=np.int32).astype(np.int64))
    assert row_ptr.numel() == n + 1 and col_idx.numel() == nnz, "export does not match meta.txt"
    x = torch.from_numpy(np.load(os.path.join(d, "x.npy"))).to(dev)
    ours = np.load(os.path.join(d, "spindle_out.npy"))

    convs = []
    for l in range(layers):
        w = torch.from_numpy(np.load(os.path.join(d, f"w{l}.npy")))  # d_in x d_out (H W)
        b = torch.from_numpy(np.load(os.path.join(d, f"b{l}.npy")).reshape(-1))
        conv = GCNConv(w.shape[0], w.shape[1], cached=False, normalize=True, add_self_loops=True,
                       bias=True).to(dev)
        with torch.no_grad():
            conv.lin.weight.copy_(w.t().to(dev))  # PyG's Linear computes x Wᵀ
            conv.bias.copy_(b.to(dev))
        conv.eval()
        convs.append(conv)

    values = torch.ones(nnz, dtype=torch.float32)
    adj_csr = torch.sparse_csr_tensor(row_ptr, col_idx, values, size=(n, n)).to(dev)
    adjacency = "torch.sparse_csr adj_t"

    def forward(adj):
        h = x
        for l, conv in enumerate(convs):
            h = conv(h, adj)
            if l + 1 < len(convs):
                h = torch.relu(h)
        return h

    with torch.no_grad():
        try:
            out = forward(adj_csr)
            adj = adj_csr
        except Exception as e:  # older PyG: fall back to an edge_index (src = column, dst = row)
            print(f"# sparse CSR adjacency refused ({e}); using edge_index", flush=True)
            rows = torch.repeat_interleave(torch.arange(n), row_ptr[1:] - row_ptr[:-1])
            adj = torch.stack([col_idx, rows]).to(dev)
            adjacency = "edge_index (COO)"
            out = forward(adj)
        torch.cuda.synchronize()
        ms, ms_min = median_ms(lambda: forward(adj), args.warmup, args.reps)
        out = forward(adj).float().cpu().numpy()

    ref = out.astype(np.float64)
    diff = np.linalg.norm(ours.astype(np.float64) - ref) / max(np.linalg.norm(ref), 1e-300)
    maxabs = float(np.max(np.abs(ours - out)))
    name = torch.cuda.get_device_name(0)
    print(f"# PYG gcn on {name}: torch {torch.__version__}, torch_geometric "
          f"{torch_geometric.__version__}, adjacency {adjacency}: {ms:.3f} ms per forward "
          f"(median of {args.reps}, min {ms_min:.3f}); Spindle {spindle_ms:.3f} ms "
          f"({ms / spindle_ms:.2f}x faster); Spindle vs PyG rel L2 {diff:.3g}, max abs {maxabs:.3g}",
          flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name, "pyg_ms": ms, "pyg_ms_min": ms_min, "spindle_ms": spindle_ms,
                       "speedup": ms / spindle_ms, "rel_l2": diff, "max_abs": maxabs,
                       "adjacency": adjacency, "torch": torch.__version__,
                       "torch_geometric": torch_geometric.__version__}, f, indent=1)
    return 0 if diff < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
