// SPDX-License-Identifier: Apache-2.0
// FP32 GEMM by TF32 operand splitting on mma.sync (split_tf32.hpp).
//
// Three forms: the tiled kernel below (any k and n), the resident one for k, n <= 128 (GCN's
// weights; see split_tf32_resident_kernel), and on Hopper the wgmma one for the same shapes
// (sm90a/split_tf32_wgmma.cu: warpgroup MMAs, A's fragments split in registers, about 2.5x the
// resident form on GCN's 4.2 M x 128 x 128 product), which pick() prefers where it is built and
// the device is compute capability 9.0. Tiled blocking: a block computes a BM x BN tile of C
// from BK = 32 wide slabs of A and B staged in shared memory by cp.async, STAGES slabs in flight.
// Its warps form a WM x WN grid; a warp owns (BM / WM) x (BN / WN) of the tile as MT x NT mma tiles
// of 16 x 8. Per 8-wide step of k a warp loads B's fragments for its NT columns tiles once, splits
// them, then for each of its MT row tiles loads and splits A's fragment and issues 3 mma per (row
// tile, column tile): lo·hi and hi·lo first, hi·hi last, so the small terms are accumulated before
// the large one.
//
// Shared layouts (row padding makes the fragment loads conflict-free):
//   As[BM][BK + 4]: a fragment reads rows g (8 of them) at columns t (4): banks 4g + t.
//   Bs[BK][BN + 8]: a fragment reads rows t at columns g: banks 8t + g.
// (g = lane / 4, t = lane % 4, the mma's group and thread-in-group.)
#include "ops/cuda/gemm/split_tf32.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "ops/cuda/gemm/gemm.hpp"
#include "ops/cuda/gemm/split_tf32_common.cuh"
#include "ops/cuda/gemm/split_tf32_wgmma.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle::detail::cuda {
namespace {

constexpr int kBK = 32;
constexpr int kPadA = 4;
constexpr int kPadB = 8;

using tf32split::split;

__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                         const std::uint32_t (&b)[2]) {
  // Not volatile: the scheduler may interleave independent mma (the three of one output tile form a
  // dependent chain).
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// 16 bytes global -> shared, asynchronously; src_bytes = 0 fills zeros (src is not read).
__device__ __forceinline__ void cp_async16(float* dst, const float* src, int src_bytes) {
  const auto d = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

/// Starts the copy of a ROWS x COLS window at (r0, c0) of a row-major rows x cols matrix into
/// shared memory (row stride LD), 16 bytes per cp.async, zeros outside the matrix (cols % 4 == 0,
/// so a vector is all in or all out).
template <int ROWS, int COLS, int THREADS, int LD>
__device__ __forceinline__ void copy_window(float* dst, const float* src, int rows, int cols,
                                            int r0, int c0) {
  static_assert((ROWS * COLS / 4) % THREADS == 0, "every thread copies the same number of vectors");
#pragma unroll
  for (int i = 0; i < ROWS * COLS / 4 / THREADS; ++i) {
    const int v = threadIdx.x + i * THREADS;  // vector index in the window, row-major
    const int r = v / (COLS / 4);
    const int c = (v % (COLS / 4)) * 4;
    const bool in = r0 + r < rows && c0 + c < cols;
    const float* from = in ? src + static_cast<std::size_t>(r0 + r) * cols + c0 + c : src;
    cp_async16(dst + r * LD + c, from, in ? 16 : 0);
  }
}

template <int MT, int NT>
__device__ __forceinline__ void zero_tile(float (&acc)[MT][NT][4]) {
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
}

/// One 8-wide k step of a warp's MT x NT mma tiles, B's fragments already split: for each row
/// tile, A's fragment is loaded from the staged slab (`as`: the warp's first row at column kk)
/// and split, then the three products are issued small terms first, each pass over j being NT
/// independent mma.
template <int MT, int NT, int LDA>
__device__ __forceinline__ void warp_step(float (&acc)[MT][NT][4], const float* as, int g, int t,
                                          const std::uint32_t (&bh)[NT][2],
                                          const std::uint32_t (&bl)[NT][2]) {
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    const float* ar = as + (i * 16 + g) * LDA + t;
    std::uint32_t ah[4], al[4];
    split(ar[0], ah[0], al[0]);
    split(ar[8 * LDA], ah[1], al[1]);
    split(ar[4], ah[2], al[2]);
    split(ar[8 * LDA + 4], ah[3], al[3]);
#pragma unroll
    for (int j = 0; j < NT; ++j) mma_tf32(acc[i][j], al, bh[j]);
#pragma unroll
    for (int j = 0; j < NT; ++j) mma_tf32(acc[i][j], ah, bl[j]);
#pragma unroll
    for (int j = 0; j < NT; ++j) mma_tf32(acc[i][j], ah, bh[j]);
  }
}

/// Stores a warp's accumulators: rows row0 + i * 16 + g (+ 8), columns col0 + j * 8 + 2t (+ 1),
/// as float2 (col0 and n are even, so a pair is all in or all out).
template <int MT, int NT>
__device__ __forceinline__ void store_warp_tile(const float (&acc)[MT][NT][4], float* C, int m,
                                                int n, int row0, int col0, int g, int t) {
#pragma unroll
  for (int i = 0; i < MT; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row0 + i * 16 + g + 8 * h;
      if (r >= m) continue;
      float* crow = C + static_cast<std::size_t>(r) * n;
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const int c = col0 + j * 8 + 2 * t;
        if (c < n) {
          *reinterpret_cast<float2*>(crow + c) =
              make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        }
      }
    }
  }
}

template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__(WM* WN * 32, MINB)
    split_tf32_kernel(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ B,
                      float* __restrict__ C) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kThreads = WM * WN * 32;
  constexpr int kLdA = kBK + kPadA;
  constexpr int kLdB = BN + kPadB;
  constexpr int MT = BM / WM / 16;
  constexpr int NT = BN / WN / 8;
  static_assert(BM % (WM * 16) == 0 && BN % (WN * 8) == 0, "warp tiles of whole mma tiles");

  extern __shared__ float4 smem4[];
  float* As = reinterpret_cast<float*>(smem4);  // [STAGES][BM][kLdA]
  float* Bs = As + STAGES * BM * kLdA;          // [STAGES][kBK][kLdB]

  const int row0 = blockIdx.x * BM;  // blockIdx.x: row tiles (up to 2^31 - 1 of them)
  const int col0 = blockIdx.y * BN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int wr = (warp / WN) * (BM / WM);  // the warp's rows and columns within the tile
  const int wc = (warp % WN) * (BN / WN);
  const int ktiles = (k + kBK - 1) / kBK;

  auto load_stage = [&](int slot, int kt) {
    copy_window<BM, kBK, kThreads, kLdA>(As + slot * BM * kLdA, A, m, k, row0, kt * kBK);
    copy_window<kBK, BN, kThreads, kLdB>(Bs + slot * kBK * kLdB, B, k, n, kt * kBK, col0);
  };

  float acc[MT][NT][4];
  zero_tile(acc);

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load_stage(s, s);
    cp_async_commit();  // empty groups keep the count that wait_group relies on
  }

  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // slab kt has landed (for this thread's copies) ...
    __syncthreads();              // ... and for everyone's; slot (kt - 1) % STAGES is free
    const int next = kt + STAGES - 1;
    if (next < ktiles) load_stage(next % STAGES, next);
    cp_async_commit();

    const float* as = As + (kt % STAGES) * BM * kLdA + wr * kLdA;
    const float* bs = Bs + (kt % STAGES) * kBK * kLdB + wc;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 8) {
      std::uint32_t bh[NT][2], bl[NT][2];
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        split(bs[(kk + t) * kLdB + j * 8 + g], bh[j][0], bl[j][0]);
        split(bs[(kk + t + 4) * kLdB + j * 8 + g], bh[j][1], bl[j][1]);
      }
      warp_step<MT, NT, kLdA>(acc, as + kk, g, t, bh, bl);
    }
  }
  cp_async_wait<0>();  // no copies outstanding at exit (the trailing groups are empty)
  store_warp_tile<MT, NT>(acc, C, m, n, row0 + wr, col0 + wc, g, t);
#else
  (void)m, (void)n, (void)k, (void)A, (void)B, (void)C;
  __trap();  // split_tf32_applies() keeps this build's pre-sm_80 images from being launched
#endif
}

/// The resident form, for GCN's shapes (k and n at most 128, m in the millions): B (k x n, the
/// layer's weights) is loaded and split once per block into shared memory as (hi, lo) pairs, and
/// the grid is persistent: each block walks row tiles blockIdx.x, + gridDim.x, ..., with one
/// cp.async pipeline over the flattened sequence of (row tile, k slab) so that the next tile's A
/// streams in while this one finishes. Against the tiled form this drops B's per-tile loads
/// from L2 and every B split from the inner loop (one LDS.64 per B register pair instead of an
/// LDS and five ALU instructions).
///   W[kt * BK + r][c] = (hi, lo) of B(r, c), zero outside k x n; rows padded to BN + 4 pairs,
///   so a fragment's 16-lane half (rows t, columns g < 4) covers 32 distinct banks.
template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
__global__ void __launch_bounds__(WM* WN * 32, MINB)
    split_tf32_resident_kernel(int m, int n, int k, const float* __restrict__ A,
                               const float* __restrict__ B, float* __restrict__ C) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int kThreads = WM * WN * 32;
  constexpr int kLdA = kBK + kPadA;
  constexpr int kLdW = BN + 4;
  constexpr int MT = BM / WM / 16;
  constexpr int NT = BN / WN / 8;
  static_assert(BM % (WM * 16) == 0 && BN % (WN * 8) == 0, "warp tiles of whole mma tiles");

  const int ktiles = (k + kBK - 1) / kBK;
  extern __shared__ float4 smem4[];
  uint2* W = reinterpret_cast<uint2*>(smem4);                     // [ktiles * kBK][kLdW]
  float* As = reinterpret_cast<float*>(W + ktiles * kBK * kLdW);  // [STAGES][BM][kLdA]

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int wr = (warp / WN) * (BM / WM);
  const int wc = (warp % WN) * (BN / WN);
  const int tiles = (m + BM - 1) / BM;
  const int my_tiles =
      blockIdx.x < tiles ? (tiles - static_cast<int>(blockIdx.x) + gridDim.x - 1) / gridDim.x : 0;
  const int slabs = my_tiles * ktiles;

  auto load_slab = [&](int slot, int sidx) {
    const int row0 = (static_cast<int>(blockIdx.x) + (sidx / ktiles) * gridDim.x) * BM;
    copy_window<BM, kBK, kThreads, kLdA>(As + slot * BM * kLdA, A, m, k, row0,
                                         (sidx % ktiles) * kBK);
  };

  // Start A's pipeline first, then split B into shared memory while those copies fly.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slabs) load_slab(s, s);
    cp_async_commit();
  }
  for (int e = threadIdx.x; e < ktiles * kBK * BN; e += kThreads) {
    const int r = e / BN;
    const int c = e % BN;
    std::uint32_t h = 0, l = 0;
    if (r < k && c < n) split(B[static_cast<std::size_t>(r) * n + c], h, l);
    W[r * kLdW + c] = make_uint2(h, l);
  }

  float acc[MT][NT][4];
  for (int sidx = 0; sidx < slabs; ++sidx) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // slab sidx landed for all; W written (first pass); the old slot is free
    const int next = sidx + STAGES - 1;
    if (next < slabs) load_slab(next % STAGES, next);
    cp_async_commit();

    const int kt = sidx % ktiles;
    if (kt == 0) zero_tile(acc);
    const float* as = As + (sidx % STAGES) * BM * kLdA + wr * kLdA;
    const uint2* w = W + kt * kBK * kLdW + wc;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 8) {
      std::uint32_t bh[NT][2], bl[NT][2];
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const uint2 v0 = w[(kk + t) * kLdW + j * 8 + g];
        const uint2 v1 = w[(kk + t + 4) * kLdW + j * 8 + g];
        bh[j][0] = v0.x;
        bl[j][0] = v0.y;
        bh[j][1] = v1.x;
        bl[j][1] = v1.y;
      }
      warp_step<MT, NT, kLdA>(acc, as + kk, g, t, bh, bl);
    }
    if (kt == ktiles - 1) {
      const int row0 = (static_cast<int>(blockIdx.x) + (sidx / ktiles) * gridDim.x) * BM;
      store_warp_tile<MT, NT>(acc, C, m, n, row0 + wr, wc, g, t);
    }
  }
  cp_async_wait<0>();
  if (k == 0) {  // no slabs: C = 0 (the loop above never stores)
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      for (int e = threadIdx.x; e < BM * n; e += kThreads) {
        const int r = tile * BM + e / n;
        if (r < m) C[static_cast<std::size_t>(r) * n + e % n] = 0.0f;
      }
    }
  }
#else
  (void)m, (void)n, (void)k, (void)A, (void)B, (void)C;
  __trap();
#endif
}

/// One blocking of a kernel (MINB: the blocks per SM its registers are bounded for). The resident
/// and wgmma ones take k <= kResidentK and n <= bn; the tiled ones any k and n. The wgmma ones
/// (sm90a/split_tf32_wgmma.cu, Hopper only) have their kernel looked up by k at run time.
struct Blocking {
  const char* name;
  SplitKernel kernel;  // nullptr for the wgmma ones
  int bm, bn, threads;
  bool resident;
  int stages;
  bool wgmma = false;
  /// Dynamic shared memory for inner dimension k.
  std::size_t smem(int k) const {
    if (wgmma) return split_tf32_wgmma_smem(k, bn, threads / 128);
    const std::size_t a = sizeof(float) * stages * bm * (kBK + kPadA);
    if (!resident) return a + sizeof(float) * stages * kBK * (bn + kPadB);
    const std::size_t kp = static_cast<std::size_t>((k + kBK - 1) / kBK) * kBK;
    return a + sizeof(uint2) * kp * (bn + 4);
  }
  /// The kernel to launch for inner dimension k (nullptr: none in this build).
  SplitKernel kernel_for(int k) const {
    return wgmma ? split_tf32_wgmma_kernel(bn, k, threads / 128) : kernel;
  }
};
constexpr int kResidentK = 128;
static_assert(kWgmmaMaxK == kResidentK, "the wgmma form takes the resident form's shapes");

template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
constexpr Blocking tiled(const char* name) {
  return {name,  &split_tf32_kernel<BM, BN, WM, WN, STAGES, MINB>, BM, BN, WM * WN * 32, false,
          STAGES};
}
template <int BM, int BN, int WM, int WN, int STAGES, int MINB>
constexpr Blocking resident(const char* name) {
  return {
      name,  &split_tf32_resident_kernel<BM, BN, WM, WN, STAGES, MINB>, BM, BN, WM * WN * 32, true,
      STAGES};
}
template <int BN, int WGS>
constexpr Blocking wgmma(const char* name) {
  return {name, nullptr, 64 * WGS, BN, 128 * WGS, true, 1, true};
}

// Rows x columns per block, warp grid, stages, blocks per SM. The defaults (kDefault*) were
// picked from `spindle bench gcn`'s sweep of all of them (docs/design/gemm.md).
constexpr Blocking kBlockings[] = {
    tiled<128, 128, 2, 4, 4, 1>("tiled 128x128 w2x4 s4 b1"),
    tiled<128, 128, 4, 2, 4, 1>("tiled 128x128 w4x2 s4 b1"),
    tiled<64, 128, 2, 4, 3, 2>("tiled 64x128 w2x4 s3 b2"),
    tiled<128, 64, 4, 2, 3, 2>("tiled 128x64 w4x2 s3 b2"),
    tiled<128, 32, 4, 1, 3, 3>("tiled 128x32 w4x1 s3 b3"),
    tiled<64, 32, 2, 1, 4, 4>("tiled 64x32 w2x1 s4 b4"),
    resident<128, 128, 4, 2, 3, 1>("resident 128x128 w4x2 s3"),
    resident<64, 128, 2, 2, 3, 1>("resident 64x128 w2x2 s3"),
    resident<128, 32, 4, 1, 3, 2>("resident 128x32 w4x1 s3"),
    resident<256, 32, 8, 1, 3, 1>("resident 256x32 w8x1 s3"),
    wgmma<128, 2>("wgmma 2x64x128"),
    wgmma<64, 2>("wgmma 2x64x64"),
    wgmma<32, 2>("wgmma 2x64x32"),
    wgmma<128, 3>("wgmma 3x64x128"),
    wgmma<64, 3>("wgmma 3x64x64"),
    wgmma<32, 3>("wgmma 3x64x32"),
};
constexpr int kBlockingCount = static_cast<int>(sizeof kBlockings / sizeof kBlockings[0]);
constexpr int kDefaultWideResident = 7;  // n > 32, k and n <= 128: resident 64x128 w2x2 s3
constexpr int kDefaultWide = 1;          // other n > 32: tiled 128x128 w4x2 s4 b1
constexpr int kDefaultNarrow = 5;        // n <= 32: tiled 64x32 w2x1 s4 b4
constexpr int kWgmma128 = 10;            // Hopper, k <= 128, 64 < n <= 128: wgmma 2x64x128
constexpr int kWgmma64 = 11;             // Hopper, k <= 128, n <= 64: wgmma 2x64x64
// The defaults are indices into the table above: these keep them on the blockings meant.
static_assert(kBlockings[kDefaultWideResident].resident &&
                  kBlockings[kDefaultWideResident].bm == 64 &&
                  kBlockings[kDefaultWideResident].bn == 128 &&
                  kBlockings[kDefaultWideResident].threads == 128,
              "kDefaultWideResident: resident 64x128 w2x2");
static_assert(!kBlockings[kDefaultWide].resident && kBlockings[kDefaultWide].bm == 128 &&
                  kBlockings[kDefaultWide].bn == 128 && kBlockings[kDefaultWide].stages == 4,
              "kDefaultWide: tiled 128x128 s4");
static_assert(!kBlockings[kDefaultNarrow].resident && kBlockings[kDefaultNarrow].bm == 64 &&
                  kBlockings[kDefaultNarrow].bn == 32,
              "kDefaultNarrow: tiled 64x32");
static_assert(kBlockings[kWgmma128].wgmma && kBlockings[kWgmma128].bn == 128 &&
                  kBlockings[kWgmma128].threads == 256 && kBlockings[kWgmma64].wgmma &&
                  kBlockings[kWgmma64].bn == 64 && kBlockings[kWgmma64].threads == 256,
              "kWgmma*: the two-warpgroup wgmma blockings by width");

std::atomic<int> g_forced{-1};

bool takes(const Blocking& b, int n, int k) {
  return !b.resident || (k <= kResidentK && n <= b.bn);
}

/// The kernels a blocking launches: one, or for the wgmma ones one per built k rounding (the
/// kernel for k = 16, 32, 64, 128).
constexpr int kMaxVariants = 4;
int variants(const Blocking& b) { return b.wgmma ? kMaxVariants : 1; }
/// v with 16 << v = split_tf32_wgmma_built_k(k): which of a wgmma kernel's builds runs k.
int built_k_index(int k) {
  int v = 0;
  while ((16 << v) < split_tf32_wgmma_built_k(k)) ++v;
  return v;
}
int variant_of(const Blocking& b, int k) { return b.wgmma ? built_k_index(k) : 0; }
int variant_k(const Blocking& b, int v) { return b.wgmma ? 16 << v : kResidentK; }

/// Whether this build has an image of each of blocking i's kernels for the current device (sm_80+
/// for the mma.sync forms; the wgmma ones are sm_90a code, which only a compute capability 9.0
/// device loads), with the dynamic shared memory it needs (at k = kResidentK for the resident
/// ones) allowed; computed once per blocking.
bool ready(int i) {
  static std::once_flag once[kBlockingCount];
  static bool ok[kBlockingCount];
  std::call_once(once[i], [i] {
    const Blocking& b = kBlockings[i];
    bool all = true;
    for (int v = 0; v < variants(b) && all; ++v) {
      const int k = variant_k(b, v);
      const SplitKernel kernel = b.kernel_for(k);
      cudaFuncAttributes attr{};
      all = kernel != nullptr && cudaFuncGetAttributes(&attr, kernel) == cudaSuccess &&
            attr.binaryVersion >= (b.wgmma ? 90 : 80) &&
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(b.smem(k))) == cudaSuccess;
    }
    if (!all) cudaGetLastError();
    ok[i] = all;
  });
  return ok[i];
}

int pick(int n, int k) {
  const int forced = g_forced.load();
  if (forced >= 0 && takes(kBlockings[forced], n, k) && ready(forced)) return forced;
  // Hopper: the wgmma form, 64 wide for n <= 64 (on GCN's 4.2 M x 128 x 32 product 0.76 ms
  // against 0.87 for the 32-wide one, H200, docs/design/gemm.md), else 128 wide.
  for (const int w : {kWgmma64, kWgmma128}) {
    if (takes(kBlockings[w], n, k) && ready(w)) return w;
  }
  if (n <= 32) return kDefaultNarrow;
  // The resident form needs 159 KB of shared memory at k = n = 128: where a block may have less
  // (sm_86 and sm_89 allow 99 KB), the tiled form runs instead.
  return takes(kBlockings[kDefaultWideResident], n, k) && ready(kDefaultWideResident)
             ? kDefaultWideResident
             : kDefaultWide;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

bool split_tf32_applies(int m, int n, int k, const float* a, const float* b, const float* c) {
  if (m <= 0 || n <= 0 || k < 0 || k % 4 != 0 || n % 4 != 0) return false;
  if (!aligned16(a) || !aligned16(b) || !aligned16(c)) return false;
  if ((n + 31) / 32 > 65535) return false;  // column tiles go in gridDim.y
  const DeviceCaps& caps = device_caps();
  if (!caps.available || caps.cc_major < 8) return false;
  return ready(pick(n, k));
}

void gemm_split_tf32(int m, int n, int k, const float* a, const float* b, float* c,
                     CUstream_st* stream) {
  const Blocking& bl = kBlockings[pick(n, k)];
  const SplitKernel kernel = bl.kernel_for(k);
  const std::size_t smem = bl.smem(k);
  unsigned rows = static_cast<unsigned>((m + bl.bm - 1) / bl.bm);
  if (bl.resident) {  // persistent: as many blocks as fit on the device at once
    static std::once_flag once[kBlockingCount][kMaxVariants];
    static int per_sm[kBlockingCount][kMaxVariants];
    const int i = static_cast<int>(&bl - kBlockings);
    const int v = variant_of(bl, k);
    std::call_once(once[i][v], [&] {  // at the variant's largest k: the largest footprint
      const int kmax = variant_k(bl, v);
      int& blocks = per_sm[i][v];
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bl.kernel_for(kmax), bl.threads,
                                                        bl.smem(kmax)) != cudaSuccess) {
        cudaGetLastError();
        blocks = 1;
      }
      blocks = blocks < 1 ? 1 : blocks;
    });
    const unsigned cap = static_cast<unsigned>(per_sm[i][v] * device_caps().sm_count);
    rows = rows < cap ? rows : cap;
  }
  const dim3 grid(rows, bl.resident ? 1u : static_cast<unsigned>((n + bl.bn - 1) / bl.bn));
  kernel<<<grid, bl.threads, smem, stream>>>(m, n, k, a, b, c);
  SPINDLE_CUDA_CHECK_LAUNCH("split_tf32_kernel");
}

bool debug_split_tf32_gemm(DenseMatrix<float>& C, const DenseMatrix<float>& A,
                           const DenseMatrix<float>& B) {
  if (A.cols() != B.rows() || C.rows() != A.rows() || C.cols() != B.cols()) {
    throw DimensionMismatch("debug_split_tf32_gemm: C (m x n) = A (m x k) · B (k x n)");
  }
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const auto m = static_cast<int>(A.rows());
  const auto n = static_cast<int>(B.cols());
  const auto k = static_cast<int>(A.cols());
  const float* a = device_in(A);
  const float* b = device_in(B);
  float* c = device_out(C, false);
  if (!split_tf32_applies(m, n, k, a, b, c)) return false;
  gemm_split_tf32(m, n, k, a, b, c, ctx.stream);
  mark_written(C);
  return true;
}

namespace {

/// The two-layer kernel for inner dimension k where it can run on this device (its image loaded
/// and its shared memory allowed, checked once per built k), else nullptr.
MlpKernel mlp_kernel(std::int64_t m, std::int64_t k, std::int64_t n1, std::int64_t n2) {
  if (m <= 0 || m > std::numeric_limits<int>::max() - 64 || k < 0 || k > kWgmmaMaxK || k % 4 != 0 ||
      n1 > 128 || n2 > 32 || n2 % 4 != 0 || n2 == 0) {
    return nullptr;
  }
  // The GEMM switches (gemm.hpp) hold here too: SPINDLE_GEMM_SPLIT_TF32=0 keeps the dense
  // products on cuBLAS, SPINDLE_GEMM_TF32=1 asks for cuBLAS's plain TF32.
  if (!gemm_split_tf32_allowed() || gemm_tf32_requested()) return nullptr;
  const DeviceCaps& caps = device_caps();
  if (!caps.available || caps.cc_major != 9 || caps.cc_minor != 0) return nullptr;
  const MlpKernel kernel = split_tf32_wgmma_mlp_kernel(static_cast<int>(k));
  if (kernel == nullptr) return nullptr;
  static std::once_flag once[kMaxVariants];
  static bool ok[kMaxVariants];
  const int v = built_k_index(static_cast<int>(k));
  std::call_once(once[v], [&] {
    cudaFuncAttributes attr{};
    ok[v] =
        cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.binaryVersion >= 90 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(split_tf32_wgmma_mlp_smem(16 << v))) == cudaSuccess;
    if (!ok[v]) cudaGetLastError();
  });
  return ok[v] ? kernel : nullptr;
}

}  // namespace

bool split_tf32_mlp_applies(std::int64_t m, std::int64_t k, std::int64_t n1, std::int64_t n2) {
  return mlp_kernel(m, k, n1, n2) != nullptr;
}

bool gemm_split_tf32_mlp(DenseMatrix<float>& T, const DenseMatrix<float>& A,
                         const DenseMatrix<float>& W1, const Vector<float>* b1, bool relu,
                         const DenseMatrix<float>& W2) {
  if (W1.rows() != A.cols() || W2.rows() != W1.cols() ||
      (b1 != nullptr && b1->size() != W1.cols())) {
    throw DimensionMismatch(
        "gemm_split_tf32_mlp: T = act(A · W1 + b1) · W2 needs W1 with A's columns as rows, W2 "
        "with W1's columns as rows and b1 with W1's columns as entries");
  }
  const std::int64_t m = A.rows();
  const std::int64_t k = A.cols();
  const std::int64_t n1 = W1.cols();
  const std::int64_t n2 = W2.cols();
  const MlpKernel kernel = mlp_kernel(m, k, n1, n2);
  if (kernel == nullptr || &T == &A || &T == &W1 || &T == &W2 ||
      (b1 != nullptr && !b1->is_full())) {
    return false;
  }
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const float* a = device_in(A);
  const float* w1 = device_in(W1);
  const float* w2 = device_in(W2);
  const float* bias = b1 != nullptr ? device_in(*b1).values : nullptr;
  if (!aligned16(a)) return false;
  // A new shape goes to a replacement (made through the allocation hook, as every operation's
  // output), moved in once the kernel is queued: a failed allocation or the alignment decline
  // leaves T as it was.
  OutputStage<DenseMatrix<float>> t_out =
      prepare_dense_output("mlp_split_tf32", T, m, n2, Accum::none(), false);
  float* t = device_out(t_out.get(), false);
  if (!aligned16(t)) return false;
  // Persistent: one block (two warpgroups, 224.5 KB of shared memory at k = 128) per SM.
  const std::int64_t tiles = (m + 63) / 64;
  const std::int64_t sms = device_caps().sm_count > 0 ? device_caps().sm_count : 132;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((tiles + 1) / 2, sms));
  kernel<<<blocks, 256, split_tf32_wgmma_mlp_smem(static_cast<int>(k)), ctx.stream>>>(
      static_cast<int>(m), static_cast<int>(n1), static_cast<int>(n2), static_cast<int>(k), a, w1,
      bias, relu ? 1 : 0, w2, t);
  SPINDLE_CUDA_CHECK_LAUNCH("split_tf32_wgmma_mlp");
  mark_written(t_out.get());
  t_out.commit();
  return true;
}

#if !SPINDLE_HAS_SM90A
// This build targets no sm_90: the wgmma form does not exist (ops/CMakeLists.txt).
SplitKernel split_tf32_wgmma_kernel(int, int, int) noexcept { return nullptr; }
MlpKernel split_tf32_wgmma_mlp_kernel(int) noexcept { return nullptr; }
bool split_tf32_has_wgmma() noexcept { return false; }
#else
bool split_tf32_has_wgmma() noexcept { return true; }
#endif

const char* split_tf32_blocking(int n, int k) noexcept { return kBlockings[pick(n, k)].name; }

int debug_split_tf32_blockings() noexcept { return kBlockingCount; }

const char* debug_split_tf32_force(int index) noexcept {
  if (index < 0 || index >= kBlockingCount) {
    g_forced.store(-1);
    return nullptr;
  }
  g_forced.store(index);
  return kBlockings[index].name;
}

}  // namespace spindle::detail::cuda
