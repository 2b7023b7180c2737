// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file aspt_tiled.cuh
/// @brief SpMM `aspt_tiled` (Adaptive Sparse Tiling for Sparse Matrix Multiplication, Hong et
/// al., §3–4) over the reordering of
/// aspt_prepare.hpp.
///
/// One block per (row panel, column tile). For each tile of up to `tile_slots` heavy columns of
/// the panel, the block stages those B rows (its column tile of them) in shared memory with
/// coalesced vector loads, then every row of the panel consumes its heavy entries whose slot
/// falls in the tile from shared memory (Adaptive Sparse Tiling, Listing 2, with the slot stored
/// per entry instead
/// of the paper's modulo mapping, so no column needs moving to avoid conflicts). The light
/// entries follow as plain CSR gathers from global memory (Listing 3), and the row is stored
/// through the epilogue. A group of G lanes covers the column tile (as in row_cache_seq) and owns
/// kAsptRowsPerGroup rows of the panel, so the panel is kAsptRowsPerGroup · 256/G rows tall.
/// Rows longer than the reordering's long_row limit run through nnz_balanced_seq on their own
/// CSR (launch below).

#include "ops/cuda/mxm/nnz_balanced_seq.cuh"

namespace spindle::detail::cuda {

constexpr int kAsptRowsPerGroup = 4;
constexpr int kAsptSmemBytes = 32 * 1024;  // staged B rows per block (6 blocks fit an SM)

/// Device view of the reordering (values nullptr for pattern graphs).
template <class I, class VV>
struct AsptArgs {
  const I* __restrict__ panel_hptr = nullptr;
  const I* __restrict__ heavy_cols = nullptr;
  const I* __restrict__ h_ptr = nullptr;
  const std::int32_t* __restrict__ h_slot = nullptr;
  const VV* __restrict__ h_val = nullptr;
  const I* __restrict__ l_ptr = nullptr;
  const I* __restrict__ l_col = nullptr;
  const VV* __restrict__ l_val = nullptr;
  std::int64_t panel_rows = 0;
  std::int64_t panels = 0;
  int tile_slots = 0;  ///< heavy B rows staged per tile
};

/// Panel height for a group width G: kAsptRowsPerGroup rows per group, 256/G groups per block.
inline std::int64_t aspt_panel_rows(int G) { return kAsptRowsPerGroup * (kSpmmBlock / G); }

/// grid.x = panels, grid.y = column tiles of G·VEC; dynamic shared memory tile_slots·G·VEC·T.
/// `a` carries the ORIGINAL row_ptr (to recognise long rows, whose parts here are empty and
/// whose output this kernel must not write), B, C and the epilogue.
template <class S, class I, class VV, class T, int VEC>
__global__ void __launch_bounds__(kSpmmBlock)
    spmm_aspt_tiled_kernel(SpmmArgs<I, VV, T> a, AsptArgs<I, VV> p, std::int64_t long_row,
                           int g_log2) {
  extern __shared__ __align__(16) unsigned char aspt_smem[];
  T* stage = reinterpret_cast<T*>(aspt_smem);
  __shared__ SeqCache<I, VV, T> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int group = static_cast<int>(threadIdx.x) >> g_log2;
  const int ngroups = kSpmmBlock >> g_log2;
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t tile_w = static_cast<std::int64_t>(G) * VEC;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.y) * tile_w + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t panel = blockIdx.x;

  std::int64_t row[kAsptRowsPerGroup];
  bool mine[kAsptRowsPerGroup];  // a row of this panel that this kernel computes
  std::int64_t hc[kAsptRowsPerGroup];
  std::int64_t he[kAsptRowsPerGroup];
  T acc[kAsptRowsPerGroup][VEC];
#pragma unroll
  for (int k = 0; k < kAsptRowsPerGroup; ++k) {
    row[k] = panel * p.panel_rows + group + static_cast<std::int64_t>(k) * ngroups;
    mine[k] = false;
    hc[k] = 0;
    he[k] = 0;
    if (row[k] < a.rows) {
      const std::int64_t len = static_cast<std::int64_t>(a.row_ptr[row[k] + 1]) -
                               static_cast<std::int64_t>(a.row_ptr[row[k]]);
      mine[k] = len <= long_row;
      hc[k] = static_cast<std::int64_t>(p.h_ptr[row[k]]);
      he[k] = static_cast<std::int64_t>(p.h_ptr[row[k] + 1]);
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) acc[k][v] = a.identity;
  }

  const std::int64_t hbase = static_cast<std::int64_t>(p.panel_hptr[panel]);
  const std::int64_t H = static_cast<std::int64_t>(p.panel_hptr[panel + 1]) - hbase;
  for (std::int64_t t0 = 0; t0 < H; t0 += p.tile_slots) {
    const int cnt = static_cast<int>(H - t0 < p.tile_slots ? H - t0 : p.tile_slots);
    for (int s = group; s < cnt; s += ngroups) {
      const std::int64_t j = static_cast<std::int64_t>(__ldg(p.heavy_cols + hbase + t0 + s));
      if (col_ok) {
        *reinterpret_cast<Frag<T, VEC>*>(stage + s * tile_w + qlane * VEC) =
            load_frag<T, VEC>(a.b + j * a.ldb + col);
      }
    }
    __syncthreads();
    const std::int64_t limit = t0 + cnt;
#pragma unroll
    for (int k = 0; k < kAsptRowsPerGroup; ++k) {
      while (hc[k] < he[k]) {
        const std::int64_t slot = __ldg(p.h_slot + hc[k]);
        if (slot >= limit) break;
        T av;
        if constexpr (is_pattern_v<VV>) {
          av = T(1);
        } else {
          av = __ldg(p.h_val + hc[k]);
        }
        if (col_ok) {
          const Frag<T, VEC> f =
              *reinterpret_cast<const Frag<T, VEC>*>(stage + (slot - t0) * tile_w + qlane * VEC);
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[k][v] = S::add(acc[k][v], S::mul(av, f.v[v]));
        }
        ++hc[k];
      }
    }
    __syncthreads();  // the next tile overwrites the stage
  }

  // Light entries: plain CSR over the reordered light part.
  SpmmArgs<I, VV, T> light = a;
  light.col_idx = p.l_col;
  light.vals = p.l_val;
#pragma unroll
  for (int k = 0; k < kAsptRowsPerGroup; ++k) {
    if (row[k] < a.rows) {  // uniform over the group
      accumulate_segment<S, I, VV, T, VEC>(light, cache, static_cast<std::int64_t>(p.l_ptr[row[k]]),
                                           static_cast<std::int64_t>(p.l_ptr[row[k] + 1]), G, qlane,
                                           slot0, gmask, col, col_ok, acc[k]);
      if (mine[k] && col_ok) store_row_frag<T, VEC>(a.epi, a.c + row[k] * a.ldc + col, col, acc[k]);
    }
  }
}

/// Heavy B rows staged per tile for a column tile of tile_w elements.
template <class T>
int aspt_tile_slots(std::int64_t tile_w) {
  return static_cast<int>(kAsptSmemBytes / (tile_w * static_cast<std::int64_t>(sizeof(T))));
}

/// Launches the panel kernel (VEC and G must be those the reordering's panel height was built
/// for: aspt_panel_rows(G) == p.panel_rows).
template <class S, class I, class VV, class T, int VEC>
void launch_spmm_aspt_panels(const SpmmArgs<I, VV, T>& a, const AsptArgs<I, VV>& p,
                             std::int64_t long_row, int G, cudaStream_t stream) {
  const std::int64_t tile_w = static_cast<std::int64_t>(G) * VEC;
  const dim3 grid(static_cast<unsigned>(p.panels),
                  static_cast<unsigned>((a.n + tile_w - 1) / tile_w));
  const std::size_t smem = static_cast<std::size_t>(p.tile_slots) * tile_w * sizeof(T);
  spmm_aspt_tiled_kernel<S, I, VV, T, VEC>
      <<<grid, kSpmmBlock, smem, stream>>>(a, p, long_row, log2_int(G));
}

}  // namespace spindle::detail::cuda
