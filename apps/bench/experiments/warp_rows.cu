// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): where the warp form's time
// above its row-less floor goes, and what cuts it.
//
// floor.cu put the warp form (ops/cuda/mxv/row_block_warp.cuh) 0.09-0.11 ms above a kernel that
// gathers the same entries without rows, on R-MAT 22. Kernels here (plain path, fp32, int32, 40 K
// hot columns in shared memory, cold gathers through L1, one 1024-thread block per SM):
//   mode 0: a copy of the library's warp form (row_block's tasks: rows over 64 entries alone;
//           lane-group reduction reading two row offsets per group after the products);
//   mode 1: its tasks without rows: one warp sum per task (a bound, wrong y);
//   mode 2: mode 0 with the task's row offsets loaded with its columns (two registers per lane);
//   mode 3: mode 2 with a segmented scan instead of lane groups (row_block's tasks);
//   mode 4: full chunks of 256 entries across row boundaries (carries between chunks through
//           carry_fixup.cuh), ends marked from row offsets, segmented scan;
//   mode 5: full chunks without rows (a bound);
//   mode 6: full chunks with the ends, the nonempty rows and the carries precomputed per chunk;
//   mode 7: mode 6 with lanes owning 8 consecutive entries from 16-byte loads, ballot flags;
//   mode 8: mode 7 with the next chunk's gathers issued before this chunk's rows;
//   mode 9: runs of whole rows up to 256 entries whatever the rows' lengths (fuller tasks than
//           row_block's), reduced by the segmented scan: what the library now runs on plain calls.
// H200, ms, medians of 20 (R-MAT 22 values / A^T pattern; cuSPARSE's best 0.49 / 0.49):
//   library 0.3662 / 0.3138, mode 1 0.3230 / 0.2768, mode 2 0.3648 / 0.3136, mode 5 0.2582 /
//   0.2297, mode 6 0.3539 / 0.3294, mode 7 0.3549 / 0.3319, mode 8 0.4830 / 0.3637 (spills),
//   mode 9 0.3432 / 0.2963. R-MAT 21: library 0.1768 / 0.1584, mode 9 0.1620 / 0.1429.
// ops/cuda/mxv/NOTES.md ("Where the warp form's time goes") has the reading.
// Every result (modes 0, 2, 3, 4, 6-9) is checked against a double host product with y poisoned
// first.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     --expt-relaxed-constexpr apps/bench/experiments/warp_rows.cu build/test/libspindle.a
//     -lcusparse -lcublas -lcublasLt -o warp_rows
// Run: ./warp_rows [scale] [--reps N]; environment: ONLY9=1 (the library's kernels only),
// ONLY4=1 (stop after the full-chunk modes), NOLIB=1 (skip the library's old form).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/bench/experiments/harness.cuh"
#include "ops/cuda/mxv/carry_fixup.cuh"
#include "ops/cuda/mxv/mxv_entry.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;
using namespace spindle::detail::cuda;

using harness::time_ms;
using harness::upload;

constexpr std::int64_t kHot = 40960;
constexpr int kHeadWords = kRowBlockWarpEntries / 32;  // 8 words of head bits per warp

// Task loads with the run's row offsets: o0 = row_ptr[r0 + lane], o1 = row_ptr[r0 + 32 + lane]
// (where those rows exist, runs of rows only).
template <class VV, bool kOffsets>
struct Loads {
  static constexpr int P = kRowBlockWarpEntries / 32;
  RowBlockDesc d;
  int c[P];
  float m[P];
  int o0, o1;
  __device__ __forceinline__ void load(const MxvArgs<float, int, VV>& a, const RowBlockDesc* desc,
                                       std::int64_t task, int lane) {
    d = desc[task];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int t = j * 32 + lane;
      const bool in = t < d.nk;
      c[j] = in ? ld_stream<kRowBlockStreamHints>(a.A.col_idx + d.k0 + t) : 0;
      m[j] = in ? matrix_value<float, VV, kRowBlockStreamHints>(a.A.values, d.k0 + t) : 1.f;
    }
    if constexpr (kOffsets) {
      const bool rows = d.kind == kRowBlockRows && d.rows < 64;
      o0 = rows && lane <= d.rows ? __ldg(a.A.row_ptr + d.r0 + lane) : 0;
      o1 = rows && lane + 32 <= d.rows ? __ldg(a.A.row_ptr + d.r0 + 32 + lane) : 0;
    } else {
      o0 = o1 = 0;
    }
  }
};

// The position of the n-th (0-based) set bit of m (n < popc(m)).
__device__ __forceinline__ int select_bit(unsigned m, int n) {
  int pos = 0;
#pragma unroll
  for (int w = 16; w > 0; w >>= 1) {
    const int c = __popc(m & ((1u << w) - 1u));
    if (n >= c) {
      n -= c;
      m >>= w;
      pos += w;
    }
  }
  return pos;
}

// Lane groups over offsets held in registers (mode 2).
template <class S, class VV>
__device__ __forceinline__ void reduce_groups_reg(const MxvArgs<float, int, VV>& a,
                                                  const RowBlockDesc& d, const float* prod, int o0,
                                                  int o1, int lane) {
  const int lg = d.slot;
  const int lanes = 1 << lg;
  const int groups = 32 >> lg;
  const int g = lane >> lg;
  const int gl = lane & (lanes - 1);
  for (int base = 0; base < d.rows; base += groups) {
    const int rr = base + g;
    // offsets rr and rr + 1 (rr + 1 <= rows <= 63)
    const int src0 = rr & 31, src1 = (rr + 1) & 31;
    const int x0 = __shfl_sync(0xffffffffu, o0, src0), y0 = __shfl_sync(0xffffffffu, o1, src0);
    const int x1 = __shfl_sync(0xffffffffu, o0, src1), y1 = __shfl_sync(0xffffffffu, o1, src1);
    float s = a.identity;
    int b = 0, e = 0;
    if (rr < d.rows) {
      b = (rr < 32 ? x0 : y0) - static_cast<int>(d.k0);
      e = (rr + 1 < 32 ? x1 : y1) - static_cast<int>(d.k0);
      for (int t = b + gl; t < e; t += lanes) s = S::add(s, prod[t]);
    }
    for (int off = lanes >> 1; off > 0; off >>= 1)
      s = S::add(s, __shfl_down_sync(0xffffffffu, s, off, lanes));
    if (gl == 0 && rr < d.rows) write_result<false>(a.out, d.r0 + rr, s, e > b);
  }
}

// Segmented scan over the staged products (mode 3): rows <= 63, offsets in o0 / o1.
template <class S, class VV>
__device__ __forceinline__ void reduce_scan(const MxvArgs<float, int, VV>& a, const RowBlockDesc& d,
                                            const float* prod, unsigned* heads, int o0, int o1,
                                            int lane) {
  const unsigned full = 0xffffffffu;
  const int k0 = static_cast<int>(d.k0);
  // Row lane and row lane + 32: [b, e) within the run.
  const int n0 = __shfl_sync(full, o0, (lane + 1) & 31);
  const int n1 = __shfl_sync(full, o1, (lane + 1) & 31);
  const int b0 = o0 - k0, e0 = (lane < 31 ? n0 : n1) - k0;
  const int b1 = o1 - k0, e1 = n1 - k0;  // lane 31's row 63 never exists (rows <= 63)
  const bool in0 = lane < d.rows, in1 = lane + 32 < d.rows;
  const bool ne0 = in0 && e0 > b0, ne1 = in1 && e1 > b1;
  if (lane < kHeadWords) heads[lane] = 0u;
  __syncwarp();
  if (ne0) atomicOr(heads + (b0 >> 5), 1u << (b0 & 31));
  if (ne1) atomicOr(heads + (b1 >> 5), 1u << (b1 & 31));
  if (lane == 0 && d.nk < kRowBlockWarpEntries) atomicOr(heads + (d.nk >> 5), 1u << (d.nk & 31));
  if (in0 && !ne0) a.out.w[d.r0 + lane] = a.identity;
  if (in1 && !ne1) a.out.w[d.r0 + 32 + lane] = a.identity;
  const unsigned NE0 = __ballot_sync(full, ne0), NE1 = __ballot_sync(full, ne1);
  const int nne0 = __popc(NE0), nne = nne0 + __popc(NE1);
  __syncwarp();
  // This lane's 8 products and head bits.
  const float4 xa = reinterpret_cast<const float4*>(prod)[2 * lane];
  const float4 xb = reinterpret_cast<const float4*>(prod)[2 * lane + 1];
  const float x[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
  const unsigned hm = (heads[lane >> 2] >> ((lane & 3) * 8)) & 0xffu;
  // Heads before this lane: exclusive scan of the lanes' counts.
  const int cnt = __popc(hm);
  int inc = cnt;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int t = __shfl_up_sync(full, inc, off);
    if (lane >= off) inc += t;
  }
  const int hb = inc - cnt;
  auto row_of = [&](int rank) {
    return rank < nne0 ? select_bit(NE0, rank) : 32 + select_bit(NE1, rank - nne0);
  };
  float acc = a.identity, pre = a.identity;
  int rank = hb - 1;
  bool opened = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if ((hm >> i) & 1u) {
      if (opened) {
        a.out.w[d.r0 + row_of(rank)] = acc;  // rank < nne: a later head closes it
      } else {
        pre = acc;
      }
      acc = a.identity;
      ++rank;
      opened = true;
    }
    acc = S::add(acc, x[i]);
  }
  if (!opened) pre = acc;
  // Segmented inclusive scan of the open tails (a head in a lane cuts what is left of it).
  float v = acc;
  bool f = opened;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const float vu = __shfl_up_sync(full, v, off);
    const bool fu = __shfl_up_sync(full, f ? 1 : 0, off) != 0;
    if (lane >= off) {
      if (!f) v = S::add(vu, v);
      f = f || fu;
    }
  }
  float carry = __shfl_up_sync(full, v, 1);
  if (lane == 0) carry = a.identity;
  if (opened && hb >= 1) a.out.w[d.r0 + row_of(hb - 1)] = S::add(carry, pre);
  // The run's last row when no head follows it (nk == 256).
  if (lane == 31 && rank < nne && rank >= 0) a.out.w[d.r0 + row_of(rank)] = v;
}

template <class S, int kMode, class VV>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    warp_kernel(const MxvArgs<float, int, VV> a, const RowBlockDesc* __restrict__ desc,
                std::int64_t tasks, float* __restrict__ partial,
                std::uint8_t* __restrict__ partial_has, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr int P = NB / 32;
  constexpr bool kOffsets = kMode >= 2;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(smem_raw);
  unsigned* const heads_all = reinterpret_cast<unsigned*>(stage_all + kRowBlockWarpWarps * NB);
  float* const sx =
      reinterpret_cast<float*>(heads_all + (kMode == 3 ? kRowBlockWarpWarps * kHeadWords : 0));
  for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const stage = stage_all + warp * NB;
  unsigned* const heads = heads_all + warp * kHeadWords;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t task = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  Loads<VV, kOffsets> cur;
  if (task < tasks) cur.load(a, desc, task, lane);
  while (task < tasks) {
    float v[P];
    bool p[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int col = cur.c[j];
      p[j] = j * 32 + lane < cur.d.nk;
      float x = 0.f;
      const float hot = sx[col < hs ? col : 0];
      if (p[j] && col >= hs) x = ld_hinted<true, true>(a.u + col);
      x = col < hs ? hot : x;
      v[j] = p[j] ? S::mul(cur.m[j], x) : a.identity;
    }
    const RowBlockDesc d = cur.d;
    const int o0 = cur.o0, o1 = cur.o1;
    const std::int64_t next = task + stride;
    if (next < tasks) cur.load(a, desc, next, lane);
    if (d.kind != kRowBlockRows || kMode == 1) {
      float s = a.identity;
#pragma unroll
      for (int j = 0; j < P; ++j) s = S::add(s, v[j]);
      for (int off = 16; off > 0; off >>= 1) s = S::add(s, __shfl_down_sync(0xffffffffu, s, off));
      if (lane == 0) {
        if (d.kind == kRowBlockSingle || (kMode == 1 && d.kind == kRowBlockRows)) {
          a.out.w[d.r0] = s;
        } else {
          partial[d.slot] = s;
          partial_has[d.slot] = 1;
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < P; ++j) stage[j * 32 + lane] = v[j];
      __syncwarp();
      if (kMode == 0 || d.rows >= 64) {
        row_block_reduce_rows<S, false>(a, d, stage, nullptr, 32, lane);
      } else if constexpr (kMode == 2) {
        reduce_groups_reg<S>(a, d, stage, o0, o1, lane);
      } else {
        reduce_scan<S>(a, d, stage, heads, o0, o1, lane);
      }
      __syncwarp();
    }
    task = next;
  }
}

// ---- Full chunks (modes 4 and 5): every warp task is 256 consecutive entries, whatever the rows.
// chunk_row[t] = the row holding entry 256 t (chunk_row[T] = n). Chunk t finalizes the rows
// [R0, R1) = [chunk_row[t], chunk_row[t + 1]) (all end inside it; empty ones included); R0 is a
// head partial when it started in an earlier chunk, the row open at the chunk's end a tail
// partial; carry_fixup.cuh adds them in order (deterministic).
struct ChunkLoads {
  static constexpr int P = kRowBlockWarpEntries / 32;
  int c[P];
  float m[P];
  int R0, R1, o0, o1;  // o0 / o1: row_ptr[R0 + lane] / row_ptr[R0 + 32 + lane] (up to R1)
  template <class VV>
  __device__ __forceinline__ void load(const MxvArgs<float, int, VV>& a, const int* chunk_row,
                                       std::int64_t t, int lane) {
    const int k0 = static_cast<int>(t * kRowBlockWarpEntries);
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int k = k0 + j * 32 + lane;
      const bool in = k < a.A.nnz;
      c[j] = in ? ld_stream<kRowBlockStreamHints>(a.A.col_idx + k) : 0;
      m[j] = in ? matrix_value<float, VV, kRowBlockStreamHints>(a.A.values, k) : 1.f;
    }
    const int rr = __ldg(chunk_row + t + (lane & 1));
    R0 = __shfl_sync(0xffffffffu, rr, 0);
    R1 = __shfl_sync(0xffffffffu, rr, 1);
    const int nr = R1 - R0;
    o0 = lane <= nr ? __ldg(a.A.row_ptr + R0 + lane) : 0;
    o1 = lane + 32 <= nr ? __ldg(a.A.row_ptr + R0 + 32 + lane) : 0;
  }
};

template <class S, int kMode, class VV>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    chunk_kernel(const MxvArgs<float, int, VV> a, const int* __restrict__ chunk_row,
                 std::int64_t chunks, ChunkPartials<float> part, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr int P = NB / 32;
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(smem_raw);
  unsigned* const ends_all = reinterpret_cast<unsigned*>(stage_all + kRowBlockWarpWarps * NB);
  float* const sx = reinterpret_cast<float*>(ends_all + kRowBlockWarpWarps * kHeadWords);
  for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const stage = stage_all + warp * NB;
  int* const stage_row = reinterpret_cast<int*>(stage);
  unsigned* const ends = ends_all + warp * kHeadWords;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  ChunkLoads cur;
  if (t < chunks) cur.load(a, chunk_row, t, lane);
  while (t < chunks) {
    float v[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int col = cur.c[j];
      float x = 0.f;
      const float hot = sx[col < hs ? col : 0];
      if (col >= hs) x = ld_hinted<true, true>(a.u + col);
      x = col < hs ? hot : x;
      v[j] = S::mul(cur.m[j], x);
    }
    const int R0 = cur.R0, R1 = cur.R1, o0 = cur.o0, o1 = cur.o1;
    const int k0 = static_cast<int>(t * NB);
    const std::int64_t next = t + stride;
    if (next < chunks) cur.load(a, chunk_row, next, lane);
    if constexpr (kMode == 5) {
      float s = a.identity;
#pragma unroll
      for (int j = 0; j < P; ++j) s = S::add(s, v[j]);
      for (int off = 16; off > 0; off >>= 1) s = S::add(s, __shfl_down_sync(full, s, off));
      if (lane == 0) a.out.w[R0] = s;
    } else {
      const int nk = a.A.nnz - k0 < NB ? static_cast<int>(a.A.nnz - k0) : NB;
#pragma unroll
      for (int j = 0; j < P; ++j) stage[j * 32 + lane] = j * 32 + lane < nk ? v[j] : a.identity;
      __syncwarp();
      const float4 xa = reinterpret_cast<const float4*>(stage)[2 * lane];
      const float4 xb = reinterpret_cast<const float4*>(stage)[2 * lane + 1];
      const float x[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
      if (lane < kHeadWords) ends[lane] = 0u;
      __syncwarp();
      const int nr = R1 - R0;
      // row_ptr[R0 + i]: from the prefetched registers below 64, else a load.
      auto offset = [&](int i) {
        const int r0v = __shfl_sync(full, o0, i & 31), r1v = __shfl_sync(full, o1, i & 31);
        return i < 32 ? r0v : i < 64 ? r1v : 0;
      };
      const int r0_begin = __shfl_sync(full, o0, 0);
      const bool r0_head = r0_begin < k0;
      // Mark each finished row's last entry and leave its row id there (the products are in
      // registers now); empty rows are written here.
      for (int base = 0; base < nr; base += 32) {
        const int rr = base + lane;
        int b = offset(rr), e = offset(rr + 1);
        if (rr < nr) {
          if (rr >= 64) b = __ldg(a.A.row_ptr + R0 + rr);
          if (rr + 1 >= 64) e = __ldg(a.A.row_ptr + R0 + rr + 1);
          if (e > b) {
            const int q = e - 1 - k0;
            atomicOr(ends + (q >> 5), 1u << (q & 31));
            stage_row[q] = R0 + rr;
          } else {
            a.out.w[R0 + rr] = a.identity;
          }
        }
      }
      const int r1_begin_reg = offset(nr);
      const int r1_begin =
          nr >= 64 ? (R1 < a.A.rows ? __ldg(a.A.row_ptr + R1) : a.A.nnz) : r1_begin_reg;
      __syncwarp();
      const unsigned em = (ends[lane >> 2] >> ((lane & 3) * 8)) & 0xffu;
      // Whether any row ends in this chunk (a ballot here, where the warp is converged: an
      // __any_sync after the divergent stores below came out false on the H200 unless a printf
      // sat beside it).
      const bool any_end = __ballot_sync(full, em != 0) != 0;
      float acc = a.identity, pre = a.identity;
      bool closed = false;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        acc = S::add(acc, x[i]);
        if ((em >> i) & 1u) {
          if (closed) {
            a.out.w[stage_row[8 * lane + i]] = acc;  // a row wholly inside this lane
          } else {
            pre = acc;
          }
          acc = a.identity;
          closed = true;
        }
      }
      float sv = acc;
      bool f = closed;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const float vu = __shfl_up_sync(full, sv, off);
        const bool fu = __shfl_up_sync(full, f ? 1 : 0, off) != 0;
        if (lane >= off) {
          if (!f) sv = S::add(vu, sv);
          f = f || fu;
        }
      }
      float carry = __shfl_up_sync(full, sv, 1);
      if (lane == 0) carry = a.identity;
      if (closed) {
        const int row = stage_row[8 * lane + (__ffs(em) - 1)];
        const float first = S::add(carry, pre);
        if (row == R0 && r0_head) {
          part.head_row[t] = R0;
          part.head_val[t] = first;
          part.head_has[t] = 1;
        } else {
          a.out.w[row] = first;
        }
      }
      if (lane == 31) {
        if (!r0_head) part.head_row[t] = -1;
        if (!any_end && r0_head) {
          // R0 covers the whole chunk and began earlier: all of it is a head.
          part.head_row[t] = R0;
          part.head_val[t] = sv;
          part.head_has[t] = 1;
          part.tail_row[t] = -1;
        } else if (R1 < a.A.rows && r1_begin < k0 + NB && k0 + NB < a.A.nnz) {
          part.tail_row[t] = R1;  // begins after the last end and goes on past this chunk
          part.tail_val[t] = sv;
          part.tail_has[t] = 1;
        } else {
          part.tail_row[t] = -1;
        }
      }
      __syncwarp();
    }
    t = next;
  }
}

// ---- Mode 6: full chunks with the row structure precomputed per chunk: a 256-bit mask of the
// entries that end a row (byte L: lane L's 8 entries), C0 = nonempty rows finished before the
// chunk (their ranks), a flag when the chunk's first row began earlier, and the list z of nonempty
// rows. No row offsets in the kernel; empty rows get the identity from a fill before.
struct Chunk6 {
  int c0;    // nonempty rows that end before this chunk
  int head;  // 1: the row holding the first entry began in an earlier chunk
};
struct Loads6 {
  static constexpr int P = kRowBlockWarpEntries / 32;
  int c[P];
  float m[P];
  unsigned em;  // this lane's 8 end bits
  int C0, ne, head, z0, z1;
  template <class VV>
  __device__ __forceinline__ void load(const MxvArgs<float, int, VV>& a, const Chunk6* ch,
                                       const unsigned char* masks, const int* z, int nz,
                                       std::int64_t t, int lane) {
    const int k0 = static_cast<int>(t * kRowBlockWarpEntries);
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int k = k0 + j * 32 + lane;
      const bool in = k < a.A.nnz;
      c[j] = in ? ld_stream<kRowBlockStreamHints>(a.A.col_idx + k) : 0;
      m[j] = in ? matrix_value<float, VV, kRowBlockStreamHints>(a.A.values, k) : 1.f;
    }
    em = ld_stream<kRowBlockStreamHints>(masks + t * 32 + lane);
    const int2 cc = __ldg(reinterpret_cast<const int2*>(ch) + t + (lane & 1));
    C0 = __shfl_sync(0xffffffffu, cc.x, 0);
    head = __shfl_sync(0xffffffffu, cc.y, 0);
    ne = __shfl_sync(0xffffffffu, cc.x, 1) - C0;
    z0 = C0 + lane < nz && lane <= ne ? __ldg(z + C0 + lane) : -1;
    z1 = C0 + 32 + lane < nz && lane + 32 <= ne ? __ldg(z + C0 + 32 + lane) : -1;
  }
};

__global__ void fill_kernel(float* y, long long n, float v) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x) y[i] = v;
}

template <class S, class VV>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    chunk6_kernel(const MxvArgs<float, int, VV> a, const Chunk6* __restrict__ ch,
                  const unsigned char* __restrict__ masks, const int* __restrict__ z, int nz,
                  std::int64_t chunks, ChunkPartials<float> part, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr int P = NB / 32;
  constexpr unsigned full = 0xffffffffu;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(smem_raw);
  float* const sx = stage_all + kRowBlockWarpWarps * NB;
  for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const stage = stage_all + warp * NB;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  Loads6 cur;
  if (t < chunks) cur.load(a, ch, masks, z, nz, t, lane);
  while (t < chunks) {
    float v[P];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int col = cur.c[j];
      float x = 0.f;
      const float hot = sx[col < hs ? col : 0];
      if (col >= hs) x = ld_hinted<true, true>(a.u + col);
      x = col < hs ? hot : x;
      v[j] = S::mul(cur.m[j], x);
    }
    const unsigned em = cur.em;
    const int C0 = cur.C0, ne = cur.ne, head = cur.head, z0 = cur.z0, z1 = cur.z1;
    const int k0 = static_cast<int>(t * NB);
    const std::int64_t next = t + stride;
    if (next < chunks) cur.load(a, ch, masks, z, nz, next, lane);
    const int nk = a.A.nnz - k0 < NB ? static_cast<int>(a.A.nnz - k0) : NB;
#pragma unroll
    for (int j = 0; j < P; ++j) stage[j * 32 + lane] = j * 32 + lane < nk ? v[j] : a.identity;
    __syncwarp();
    const float4 xa = reinterpret_cast<const float4*>(stage)[2 * lane];
    const float4 xb = reinterpret_cast<const float4*>(stage)[2 * lane + 1];
    const float x[8] = {xa.x, xa.y, xa.z, xa.w, xb.x, xb.y, xb.z, xb.w};
    // Ranks of this lane's ends: the ends before it (a scan of the lanes' counts).
    const int cnt = __popc(em);
    int inc = cnt;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int q = __shfl_up_sync(full, inc, off);
      if (lane >= off) inc += q;
    }
    const int eb = inc - cnt;
    __syncwarp();  // every lane has its products: the stage now takes the finished rows by rank
    float acc = a.identity, pre = a.identity;
    int rank = eb;
    bool closed = false;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      acc = S::add(acc, x[i]);
      if ((em >> i) & 1u) {
        if (closed) {
          stage[rank] = acc;
        } else {
          pre = acc;
        }
        ++rank;
        acc = a.identity;
        closed = true;
      }
    }
    float sv = acc;
    bool f = closed;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const float vu = __shfl_up_sync(full, sv, off);
      const bool fu = __shfl_up_sync(full, f ? 1 : 0, off) != 0;
      if (lane >= off) {
        if (!f) sv = S::add(vu, sv);
        f = f || fu;
      }
    }
    float carry = __shfl_up_sync(full, sv, 1);
    if (lane == 0) carry = a.identity;
    if (closed) stage[eb] = S::add(carry, pre);
    // The row after the last end (z[C0 + ne]) when it has entries here and goes on.
    const int zn0 = __shfl_sync(full, z0, ne & 31), zn1 = __shfl_sync(full, z1, ne & 31);
    const int zfirst = __shfl_sync(full, z0, 0);
    __syncwarp();
    // Rank 0 is the head partial when the chunk's first row began earlier.
    if (lane < ne) {
      const float r = stage[lane];
      if (lane == 0 && head) {
        part.head_row[t] = z0;
        part.head_val[t] = r;
        part.head_has[t] = 1;
      } else {
        a.out.w[z0] = r;
      }
    }
    if (lane + 32 < ne) a.out.w[z1] = stage[lane + 32];
    for (int q = lane + 64; q < ne; q += 32) a.out.w[__ldg(z + C0 + q)] = stage[q];
    if (lane == 31) {
      const bool open_tail = !((em >> 7) & 1u) && k0 + NB < a.A.nnz;
      if (ne == 0 && head) {
        part.head_row[t] = zfirst;
        part.head_val[t] = sv;
        part.head_has[t] = 1;
        part.tail_row[t] = -1;
      } else if (open_tail) {
        part.tail_row[t] = ne < 32 ? zn0 : ne < 64 ? zn1 : __ldg(z + C0 + ne);
        part.tail_val[t] = sv;
        part.tail_has[t] = 1;
      } else {
        part.tail_row[t] = -1;
      }
      if (!head) part.head_row[t] = -1;
    }
    __syncwarp();
    t = next;
  }
}

// ---- Mode 7: mode 6 with each lane owning 8 consecutive entries straight from the loads (two
// 16-byte loads per stream, no staging of the products), its end count before it computed from
// the whole 32-byte mask (broadcast loads, no shuffle scan), and the segmented scan's flags taken
// from one ballot (5 shuffles instead of 10). Fewer shared-memory / shuffle instructions per chunk.
struct Desc7 {
  int c0, head, c0_next, pad;
};
struct Loads7 {
  int c[8];
  float m[8];
  unsigned em;
  int eb, C0, ne, head, z0, z1;
  template <class VV>
  __device__ __forceinline__ void load(const MxvArgs<float, int, VV>& a, const Desc7* ds,
                                       const uint4* masks, const int* z, int nz, std::int64_t t,
                                       int lane) {
    const std::int64_t k0 = t * kRowBlockWarpEntries;
    if (k0 + kRowBlockWarpEntries <= a.A.nnz) {
      const int4* cp = reinterpret_cast<const int4*>(a.A.col_idx + k0) + 2 * lane;
      const int4 ca = __ldcs(cp), cb = __ldcs(cp + 1);
      c[0] = ca.x;
      c[1] = ca.y;
      c[2] = ca.z;
      c[3] = ca.w;
      c[4] = cb.x;
      c[5] = cb.y;
      c[6] = cb.z;
      c[7] = cb.w;
      if constexpr (!is_pattern_v<VV>) {
        const float4* vp = reinterpret_cast<const float4*>(a.A.values + k0) + 2 * lane;
        const float4 va = __ldcs(vp), vb = __ldcs(vp + 1);
        m[0] = va.x;
        m[1] = va.y;
        m[2] = va.z;
        m[3] = va.w;
        m[4] = vb.x;
        m[5] = vb.y;
        m[6] = vb.z;
        m[7] = vb.w;
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i) m[i] = 1.f;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const std::int64_t k = k0 + 8 * lane + i;
        c[i] = k < a.A.nnz ? __ldg(a.A.col_idx + k) : 0;
        m[i] = k < a.A.nnz ? matrix_value<float, VV, 0>(a.A.values, k) : 1.f;
      }
    }
    const uint4 wa = __ldg(masks + 2 * t), wb = __ldg(masks + 2 * t + 1);
    const unsigned w[8] = {wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w};
    const int wi = lane >> 2, sh = (lane & 3) * 8;
    int before = 0;
    unsigned mine = 0;
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      before += q < wi ? __popc(w[q]) : 0;
      mine = q == wi ? w[q] : mine;
    }
    em = (mine >> sh) & 0xffu;
    eb = before + __popc(mine & ((1u << sh) - 1u));
    const int4 d = __ldg(reinterpret_cast<const int4*>(ds) + t);
    C0 = d.x;
    head = d.y;
    ne = d.z - d.x;
    z0 = C0 + lane < nz && lane <= ne ? __ldg(z + C0 + lane) : -1;
    z1 = C0 + 32 + lane < nz && lane + 32 <= ne ? __ldg(z + C0 + 32 + lane) : -1;
  }
};

// The row work of modes 7 and 8 (one chunk's products in x, its row structure in D).
struct Rows8 {
  unsigned em;
  int eb, C0, ne, head, z0, z1;
};
__device__ __forceinline__ Rows8 rows_of(const Loads7& L) {
  return Rows8{L.em, L.eb, L.C0, L.ne, L.head, L.z0, L.z1};
}

template <class S, class VV>
__device__ __forceinline__ void row_work8(const MxvArgs<float, int, VV>& a, const float (&x)[8],
                                          const Rows8& D, std::int64_t t, float* stage,
                                          const int* z, const ChunkPartials<float>& part,
                                          int lane) {
  constexpr int NB = kRowBlockWarpEntries;
  constexpr unsigned full = 0xffffffffu;
  const std::int64_t k0 = t * NB;
  float acc = a.identity, pre = a.identity;
  int rank = D.eb;
  bool closed = false;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    acc = S::add(acc, x[i]);
    if ((D.em >> i) & 1u) {
      if (closed) {
        stage[rank] = acc;
      } else {
        pre = acc;
      }
      ++rank;
      acc = a.identity;
      closed = true;
    }
  }
  const unsigned B = __ballot_sync(full, D.em != 0);
  float sv = acc;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const float vu = __shfl_up_sync(full, sv, off);
    if (lane >= off && ((B >> (lane - off + 1)) & ((1u << off) - 1u)) == 0u) sv = S::add(vu, sv);
  }
  float carry = __shfl_up_sync(full, sv, 1);
  if (lane == 0) carry = a.identity;
  if (closed) stage[D.eb] = S::add(carry, pre);
  const int zn0 = __shfl_sync(full, D.z0, D.ne & 31), zn1 = __shfl_sync(full, D.z1, D.ne & 31);
  const int zfirst = __shfl_sync(full, D.z0, 0);
  __syncwarp();
  if (lane < D.ne) {
    const float r = stage[lane];
    if (lane == 0 && D.head) {
      part.head_row[t] = D.z0;
      part.head_val[t] = r;
      part.head_has[t] = 1;
    } else {
      a.out.w[D.z0] = r;
    }
  }
  if (lane + 32 < D.ne) a.out.w[D.z1] = stage[lane + 32];
  for (int q = lane + 64; q < D.ne; q += 32) a.out.w[__ldg(z + D.C0 + q)] = stage[q];
  if (lane == 31) {
    const bool open_tail = !((D.em >> 7) & 1u) && k0 + NB < a.A.nnz;
    if (D.ne == 0 && D.head) {
      part.head_row[t] = zfirst;
      part.head_val[t] = sv;
      part.head_has[t] = 1;
      part.tail_row[t] = -1;
    } else if (open_tail) {
      part.tail_row[t] = D.ne < 32 ? zn0 : D.ne < 64 ? zn1 : __ldg(z + D.C0 + D.ne);
      part.tail_val[t] = sv;
      part.tail_has[t] = 1;
    } else {
      part.tail_row[t] = -1;
    }
    if (!D.head) part.head_row[t] = -1;
  }
  __syncwarp();
}

template <class S, class VV>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    chunk7_kernel(const MxvArgs<float, int, VV> a, const Desc7* __restrict__ ds,
                  const uint4* __restrict__ masks, const int* __restrict__ z, int nz,
                  std::int64_t chunks, ChunkPartials<float> part, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(smem_raw);
  float* const sx = stage_all + kRowBlockWarpWarps * NB;
  for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const stage = stage_all + warp * NB;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  Loads7 cur;
  if (t < chunks) cur.load(a, ds, masks, z, nz, t, lane);
  while (t < chunks) {
    const std::int64_t k0 = t * NB;
    const int valid = static_cast<int>(min(static_cast<std::int64_t>(NB), a.A.nnz - k0)) - 8 * lane;
    float x[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int col = cur.c[i];
      float u = 0.f;
      const float hot = sx[col < hs ? col : 0];
      if (col >= hs) u = ld_hinted<true, true>(a.u + col);
      u = col < hs ? hot : u;
      x[i] = i < valid ? S::mul(cur.m[i], u) : a.identity;
    }
    const Rows8 D = rows_of(cur);
    const std::int64_t next = t + stride;
    if (next < chunks) cur.load(a, ds, masks, z, nz, next, lane);
    row_work8<S>(a, x, D, t, stage, z, part, lane);
    t = next;
  }
}

// ---- Mode 8: mode 7 with the gathers of the next chunk in flight while this chunk's rows are
// reduced (and the indices of the one after next), so a warp's row work overlaps its own
// gathers instead of only other warps' (32 warps per SM is all the registers allow).
template <class S, class VV>
__global__ void __launch_bounds__(kRowBlockWarpWarps * 32, 1)
    chunk8_kernel(const MxvArgs<float, int, VV> a, const Desc7* __restrict__ ds,
                  const uint4* __restrict__ masks, const int* __restrict__ z, int nz,
                  std::int64_t chunks, ChunkPartials<float> part, std::int64_t hs) {
  constexpr int NB = kRowBlockWarpEntries;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* const stage_all = reinterpret_cast<float*>(smem_raw);
  float* const sx = stage_all + kRowBlockWarpWarps * NB;
  for (std::int64_t j = threadIdx.x; j < hs; j += blockDim.x) sx[j] = __ldg(a.u + j);
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
  float* const stage = stage_all + warp * NB;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kRowBlockWarpWarps;
  std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kRowBlockWarpWarps + warp;
  if (t >= chunks) return;
  auto gather = [&](const Loads7& L, float(&u)[8]) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int col = L.c[i];
      float g = 0.f;
      const float hot = sx[col < hs ? col : 0];
      if (col >= hs) g = ld_hinted<true, true>(a.u + col);
      u[i] = col < hs ? hot : g;
    }
  };
  auto products = [&](const Loads7& L, const float(&u)[8], std::int64_t tt, float(&x)[8]) {
    const int valid =
        static_cast<int>(min(static_cast<std::int64_t>(NB), a.A.nnz - tt * NB)) - 8 * lane;
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] = i < valid ? S::mul(L.m[i], u[i]) : a.identity;
  };
  Loads7 A;
  A.load(a, ds, masks, z, nz, t, lane);
  float x[8];
  {
    float u[8];
    gather(A, u);
    products(A, u, t, x);
  }
  Rows8 D = rows_of(A);
  std::int64_t tn = t + stride;
  if (tn < chunks) A.load(a, ds, masks, z, nz, tn, lane);
  while (t < chunks) {
    float un[8];
    float mn[8];
    Rows8 Dn{};
    if (tn < chunks) {
      gather(A, un);
      Dn = rows_of(A);
#pragma unroll
      for (int i = 0; i < 8; ++i) mn[i] = A.m[i];
    }
    const std::int64_t t2 = tn + stride;
    if (t2 < chunks) A.load(a, ds, masks, z, nz, t2, lane);
    row_work8<S>(a, x, D, t, stage, z, part, lane);
    if (tn < chunks) {
      const int valid =
          static_cast<int>(min(static_cast<std::int64_t>(NB), a.A.nnz - tn * NB)) - 8 * lane;
#pragma unroll
      for (int i = 0; i < 8; ++i) x[i] = i < valid ? S::mul(mn[i], un[i]) : a.identity;
      D = Dn;
    }
    t = tn;
    tn = t2;
  }
}

// ---- Mode 9: runs of whole rows up to 256 entries whatever the rows' lengths (row_block's tasks
// put every row longer than 64 entries in a task of its own), reduced by a segmented scan: the
// library's simple-path warp form now (row_block_warp.cuh's mxv_row_block_warp_runs_kernel over
// build_row_block_warp_runs), launched here through launch_row_block_warp_runs itself.

template <class VV>
void run_case(const std::string& name, const Graph<std::int32_t, Pattern>& G, int sms,
              std::int64_t optin) {
  using S = semiring::plus_times<float>;
  const int n = static_cast<int>(G.rows());
  const long long nnz = G.nnz();
  const std::vector<int> rp(G.row_ptr().begin(), G.row_ptr().end());
  RowBlocks rb = build_row_block_warps(rp.data(), n);
  const std::int64_t tasks = static_cast<std::int64_t>(rb.desc.size());
  // How the runs look: rows per run, lanes per row, entries in runs of >= 64 rows.
  long long runs = 0, rows_total = 0, big = 0, big_nk = 0, run_nk = 0, empty = 0;
  long long by_lg[6] = {0, 0, 0, 0, 0, 0};
  for (const RowBlockDesc& d : rb.desc) {
    if (d.kind != kRowBlockRows) continue;
    ++runs;
    rows_total += d.rows;
    run_nk += d.nk;
    by_lg[d.slot]++;
    if (d.rows >= 64) {
      ++big;
      big_nk += d.nk;
    }
  }
  for (int i = 0; i < n; ++i) empty += rp[i + 1] == rp[i];
  printf("\n## %s: n %d nnz %lld (empty rows %lld), %lld warp tasks, %zu long rows\n", name.c_str(),
         n, nnz, empty, (long long)tasks, rb.longs.size());
  printf(
      "runs of rows %lld: %.1f rows / run, %.1f entries / run; >= 64 rows: %lld runs, %.1f%% of "
      "their entries; lanes per row 1/2/4/8/16/32: %lld %lld %lld %lld %lld %lld\n",
      runs, double(rows_total) / runs, double(run_nk) / runs, big,
      100.0 * double(big_nk) / std::max(1LL, run_nk), by_lg[0], by_lg[1], by_lg[2], by_lg[3],
      by_lg[4], by_lg[5]);

  const harness::Case<!std::is_same_v<VV, Pattern>> c(G, 44, true);
  const double best = c.best;
  float* const d_y = c.d_y;
  int* const d_rp = c.d_rp;
  auto worst = [&] { return c.worst(); };
  RowBlockDesc* d_desc = upload(rb.desc);
  RowBlockLong* d_longs = upload(rb.longs);
  void* d_ws;
  CK(cudaMalloc(&d_ws, (rb.pieces + 1) * (sizeof(float) + 1) + 64));
  const MxvArgs<float, int, VV> a = c.template args<VV>();
  const std::int64_t hot = std::min<std::int64_t>(kHot, n);
  auto report = [&](const char* label, auto&& call, bool check) {
    harness::poison(d_y, n);
    call();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const double err = check ? worst() : 0.0;
    const double t = time_ms(call);
    printf("%-44s %8.4f ms  cus/this %.3f (+15 us gather %.3f)  err %s%.1e\n", label, t, best / t,
           best / (t + 0.015), check ? "" : "(not checked) ", err);
    fflush(stdout);
  };
  if (!getenv("NOLIB"))
    report(
        "library launch_row_block_warp (40 K, cold 1)",
        [&] {
          launch_row_block_warp<S, false, float, int, VV, 1>(
              a, tasks, d_desc, static_cast<std::int64_t>(rb.longs.size()), d_longs, rb.pieces,
              d_ws, hot, sms, optin, 0);
        },
        true);
  auto mode = [&](auto km, const char* label) {
    constexpr int kMode = decltype(km)::value;
    const std::int64_t bytes = std::int64_t{kRowBlockWarpWarps} * kRowBlockWarpEntries * 4 +
                               (kMode == 3 ? kRowBlockWarpWarps * kHeadWords * 4 : 0) + kHot * 4;
    auto kern = warp_kernel<S, kMode, VV>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (tasks + 31) / 32);
    report(
        label,
        [&] {
          kern<<<unsigned(blocks), kRowBlockWarpWarps * 32, size_t(bytes)>>>(
              a, d_desc, tasks, static_cast<float*>(d_ws),
              reinterpret_cast<std::uint8_t*>(static_cast<float*>(d_ws) + rb.pieces), hot);
          if (!rb.longs.empty()) {
            mxv_row_block_long_kernel<S, false><<<unsigned((rb.longs.size() + 127) / 128), 128>>>(
                d_longs, std::int64_t(rb.longs.size()), static_cast<float*>(d_ws),
                reinterpret_cast<std::uint8_t*>(static_cast<float*>(d_ws) + rb.pieces), a.out);
          }
        },
        kMode != 1);
  };

  // Full chunks: chunk_row on the host.
  const std::int64_t chunks = (nnz + kRowBlockWarpEntries - 1) / kRowBlockWarpEntries;
  std::vector<int> chunk_row(chunks + 1);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const long long key = c * kRowBlockWarpEntries;
    chunk_row[c] = int(std::upper_bound(rp.begin(), rp.end() - 1, int(key)) - rp.begin()) - 1;
  }
  chunk_row[0] = 0;  // leading empty rows belong to the first chunk
  chunk_row[chunks] = n;
  {
    long long many = 0;
    for (std::int64_t c = 0; c < chunks; ++c) many += chunk_row[c + 1] - chunk_row[c] > 64;
    printf("full chunks %lld, with more than 64 rows to finish: %lld\n", (long long)chunks, many);
  }
  int* d_chunk_row = upload(chunk_row);
  void* d_cws;
  CK(cudaMalloc(&d_cws, ChunkPartials<float>::bytes(chunks)));
  const ChunkPartials<float> cpart = ChunkPartials<float>::carve(d_cws, chunks);
  auto chunk_mode = [&](auto km, const char* label) {
    constexpr int kMode = decltype(km)::value;
    const std::int64_t bytes = std::int64_t{kRowBlockWarpWarps} * kRowBlockWarpEntries * 4 +
                               kRowBlockWarpWarps * kHeadWords * 4 + kHot * 4;
    auto kern = chunk_kernel<S, kMode, VV>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (chunks + 31) / 32);
    report(
        label,
        [&] {
          kern<<<unsigned(blocks), kRowBlockWarpWarps * 32, size_t(bytes)>>>(a, d_chunk_row, chunks,
                                                                             cpart, hot);
          if (kMode == 4) launch_carry_fixup<S, false>(cpart, chunks, a.out, 0);
        },
        kMode == 4);
  };

  // Mode 6's per-chunk row structure.
  std::vector<int> zl;
  for (int i = 0; i < n; ++i)
    if (rp[i + 1] > rp[i]) zl.push_back(i);
  std::vector<Chunk6> ch6(chunks + 1);
  std::vector<unsigned char> masks(chunks * 32, 0);
  {
    long long done = 0;  // nonempty rows ending at or before the current chunk start
    std::size_t zi = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const long long k0 = c * kRowBlockWarpEntries;
      while (zi < zl.size() && rp[zl[zi] + 1] <= k0) ++zi;
      ch6[c].c0 = int(zi);
      ch6[c].head = zi < zl.size() && rp[zl[zi]] < k0 ? 1 : 0;
    }
    ch6[chunks].c0 = int(zl.size());
    ch6[chunks].head = 0;
    for (int zz : zl) {
      const long long e = rp[zz + 1] - 1;  // last entry
      masks[e / 8] |= (unsigned char)(1u << (e % 8));
    }
    (void)done;
  }
  Chunk6* d_ch6 = upload(ch6);
  unsigned char* d_masks = upload(masks);
  int* d_z = upload(zl);
  auto mode6 = [&](const char* label) {
    const std::int64_t bytes =
        std::int64_t{kRowBlockWarpWarps} * kRowBlockWarpEntries * 4 + kHot * 4;
    auto kern = chunk6_kernel<S, VV>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (chunks + 31) / 32);
    report(
        label,
        [&] {
          fill_kernel<<<1024, 256>>>(d_y, n, 0.f);
          kern<<<unsigned(blocks), kRowBlockWarpWarps * 32, size_t(bytes)>>>(
              a, d_ch6, d_masks, d_z, int(zl.size()), chunks, cpart, hot);
          launch_carry_fixup<S, false>(cpart, chunks, a.out, 0);
        },
        true);
  };

  std::vector<Desc7> d7(chunks);
  for (std::int64_t c = 0; c < chunks; ++c) d7[c] = {ch6[c].c0, ch6[c].head, ch6[c + 1].c0, 0};
  Desc7* d_d7 = upload(d7);
  auto mode7 = [&](const char* label) {
    const std::int64_t bytes =
        std::int64_t{kRowBlockWarpWarps} * kRowBlockWarpEntries * 4 + kHot * 4;
    auto kern = chunk7_kernel<S, VV>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (chunks + 31) / 32);
    report(
        label,
        [&] {
          fill_kernel<<<1024, 256>>>(d_y, n, 0.f);
          kern<<<unsigned(blocks), kRowBlockWarpWarps * 32, size_t(bytes)>>>(
              a, d_d7, reinterpret_cast<const uint4*>(d_masks), d_z, int(zl.size()), chunks, cpart,
              hot);
          launch_carry_fixup<S, false>(cpart, chunks, a.out, 0);
        },
        true);
  };

  auto mode8 = [&](const char* label) {
    const std::int64_t bytes =
        std::int64_t{kRowBlockWarpWarps} * kRowBlockWarpEntries * 4 + kHot * 4;
    auto kern = chunk8_kernel<S, VV>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    const std::int64_t blocks = std::min<std::int64_t>(sms, (chunks + 31) / 32);
    report(
        label,
        [&] {
          fill_kernel<<<1024, 256>>>(d_y, n, 0.f);
          kern<<<unsigned(blocks), kRowBlockWarpWarps * 32, size_t(bytes)>>>(
              a, d_d7, reinterpret_cast<const uint4*>(d_masks), d_z, int(zl.size()), chunks, cpart,
              hot);
          launch_carry_fixup<S, false>(cpart, chunks, a.out, 0);
        },
        true);
  };

  // Mode 9: the library's runs.
  const RowBlocks pk = build_row_block_warp_runs(rp.data(), n);
  {
    long long runs = 0, runk = 0;
    for (const RowBlockDesc& d : pk.desc) {
      runs += d.kind == kRowBlockRows;
      runk += d.kind == kRowBlockRows ? d.nk : 0;
    }
    printf(
        "runs partition: %zu tasks (runs %lld, %.1f entries each; pieces %lld), %.1f entries / "
        "task\n",
        pk.desc.size(), runs, double(runk) / runs, (long long)pk.pieces,
        double(nnz) / pk.desc.size());
  }
  RowBlockDesc* d_pk = upload(pk.desc);
  RowBlockLong* d_plong = upload(pk.longs);
  void* d_pws;
  CK(cudaMalloc(&d_pws, (pk.pieces + 1) * (sizeof(float) + 1) + 64));
  std::uint8_t* d_present;  // the library writes y's presence where rows may be empty
  CK(cudaMalloc(&d_present, n));
  std::vector<std::uint8_t> row_has(n);  // as row_presence_bytes: the graph's cached presence
  for (int i = 0; i < n; ++i) row_has[i] = rp[i + 1] > rp[i] ? 1 : 0;
  std::uint8_t* d_row_has = upload(row_has);
  auto mode9 = [&](const char* label, bool presence) {
    report(
        label,
        [&] {
          // As mxv_entry.cuh: y's presence copied from the graph's cached bytes.
          if (presence) CK(cudaMemcpyAsync(d_present, d_row_has, n, cudaMemcpyDeviceToDevice, 0));
          launch_row_block_warp_runs<S, float, int, VV, 1>(a, std::int64_t(pk.desc.size()), d_pk,
                                                           std::int64_t(pk.longs.size()), d_plong,
                                                           pk.pieces, d_pws, hot, sms, optin, 0);
        },
        true);
  };
  for (int rep = 0; rep < 2; ++rep) {
    mode9("mode 9: library runs kernel (whole-row runs, scan)", false);
    mode9("mode 9: the same + presence copy (as the library)", true);
    if (getenv("ONLY9")) break;
    mode8("mode 8: mode 7, next gathers during the rows");
    mode7("mode 7: mode 6, lanes own 8 entries, fewer shfl");
    mode6("mode 6: full chunks, precomputed ends + rows");
    chunk_mode(std::integral_constant<int, 4>{}, "mode 4: full chunks of 256, scan + carries");
    if (getenv("ONLY4")) break;
    chunk_mode(std::integral_constant<int, 5>{}, "mode 5: full chunks, no rows (bound)");
    mode(std::integral_constant<int, 0>{}, "mode 0: copy of the library's reduction");
    mode(std::integral_constant<int, 1>{}, "mode 1: no rows (bound)");
    mode(std::integral_constant<int, 2>{}, "mode 2: offsets prefetched, lane groups");
    mode(std::integral_constant<int, 3>{}, "mode 3: offsets prefetched, segmented scan");
  }
  for (void* p : {(void*)d_desc, (void*)d_longs, d_ws, (void*)d_chunk_row, d_cws, (void*)d_ch6,
                  (void*)d_masks, (void*)d_z, (void*)d_d7, (void*)d_pk, (void*)d_plong, d_pws,
                  (void*)d_present, (void*)d_row_has})
    CK(cudaFree(p));
}

int main(int argc, char** argv) {
  return harness::rmat_main(
      argc, argv,
      [](auto values, const std::string& name, const auto& G, int sms, std::int64_t optin) {
        run_case<std::conditional_t<decltype(values)::value, float, Pattern>>(name, G, sms, optin);
      });
}
