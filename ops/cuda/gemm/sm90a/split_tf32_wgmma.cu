// SPDX-License-Identifier: Apache-2.0
// The split-TF32 GEMM on Hopper's warpgroup MMA (split_tf32_wgmma.hpp). Compiled for sm_90a only
// (ops/CMakeLists.txt); the device code exists only under __CUDA_ARCH_FEAT_SM90_ALL.
//
// Shape: C (m x n) = A (m x k) · B (k x n), row-major, k <= 128 and n <= N (GCN's weights). A block
// is WGS warpgroups and holds B, split once into hi and lo, in shared memory; each warpgroup walks
// 64-row tiles of C (persistent grid) and keeps its 64 x N accumulator in registers.
//
// A is wgmma's register operand: each thread copies its own fragments (two 16-byte pieces per
// 16-wide chunk of k) into shared memory by cp.async, one tile ahead, reads them back once they
// have landed, splits them in registers and passes them to wgmma. To make the fragments 16-byte
// vectors the k order inside each 16-wide chunk is permuted (a dot product does not care, as long
// as B follows the same order): for chunk c and wgmma step s in {0, 1}, thread (g, t) of a warp
// (g = lane / 4, t = lane % 4) passes
//   a0 = A(g, p), a1 = A(g + 8, p), a2 = A(g, p + 1), a3 = A(g + 8, p + 1),  p = 16c + 4t + 2s,
// where wgmma's A fragment for m64nNk8.tf32 means (row g, k t), (g + 8, t), (g, t + 4), (g + 8,
// t + 4) of the warp's 16 rows. So the step's logical k index kl maps to the physical column
//   kl < 4: 16c + 4 kl + 2s,   kl >= 4: 16c + 4 (kl - 4) + 2s + 1,
// and the float4 A(g, 16c + 4t .. 16c + 4t + 3) serves both steps of the chunk.
//
// B in shared memory: K-major, no swizzle. For each step q = 2c + s, each group of 8 columns and
// each half of the step's 8 k values, one 128-byte core matrix (8 columns x 4 k values, 16 bytes
// per column): core matrix (q, column group, half) at ((q * N / 8 + group) * 2 + half) * 128
// bytes. The descriptor's leading byte offset (next core matrix along k) is 128 B, its stride
// byte offset (next 8 columns) 256 B; step q starts at q * N / 8 * 256 bytes.
//
// Per 16-wide chunk each warpgroup splits its fragments, starts the copy of the next tile's, and
// issues 6 wgmma (lo·hi, hi·lo, hi·hi for both steps: small terms first) as one commit group; it
// then waits until at most one group is pending, so the tensor cores run one chunk while the
// threads split the next.
#include "ops/cuda/gemm/split_tf32_wgmma.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "ops/cuda/gemm/split_tf32_common.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SPINDLE_WGMMA_DEVICE 1
#endif

namespace spindle::detail::cuda {
namespace {

#ifdef SPINDLE_WGMMA_DEVICE
using tf32split::split;

/// Descriptor of a K-major, unswizzled shared-memory operand at byte address `addr` (see above).
__device__ __forceinline__ std::uint64_t b_desc(std::uint32_t addr) {
  return static_cast<std::uint64_t>((addr & 0x3FFFFu) >> 4) |
         (static_cast<std::uint64_t>(128 >> 4) << 16) |
         (static_cast<std::uint64_t>(256 >> 4) << 32);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}
/// Keeps the compiler from moving accesses of `x` across the preceding wait.
__device__ __forceinline__ void fence_operand(float& x) { asm volatile("" : "+f"(x)::"memory"); }
/// Named barrier `id` of 256 threads (two warpgroups): wait there / count this warp in and go on.
__device__ __forceinline__ void named_sync(int id) {
  asm volatile("bar.sync %0, 256;" ::"r"(id) : "memory");
}
__device__ __forceinline__ void named_arrive(int id) {
  asm volatile("bar.arrive %0, 256;" ::"r"(id) : "memory");
}

#define SPINDLE_F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define SPINDLE_F16(d, i) \
  SPINDLE_F4(d, i), SPINDLE_F4(d, i + 4), SPINDLE_F4(d, i + 8), SPINDLE_F4(d, i + 12)

/// d (64 x N, the warpgroup's accumulator fragments) += A (64 x 8, registers) · B (8 x N, desc).
template <int N>
struct Wgmma;

template <>
struct Wgmma<32> {
  static __device__ __forceinline__ void run(float (&d)[16], const std::uint32_t (&a)[4],
                                             std::uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, "
        "1;\n}\n"
        : SPINDLE_F16(d, 0)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
};

template <>
struct Wgmma<64> {
  static __device__ __forceinline__ void run(float (&d)[32], const std::uint32_t (&a)[4],
                                             std::uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"
        "%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1;\n}\n"
        : SPINDLE_F16(d, 0), SPINDLE_F16(d, 16)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
};

template <>
struct Wgmma<128> {
  static __device__ __forceinline__ void run(float (&d)[64], const std::uint32_t (&a)[4],
                                             std::uint64_t b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"
        "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"
        "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
        "{%64,%65,%66,%67}, %68, p, 1, 1;\n}\n"
        : SPINDLE_F16(d, 0), SPINDLE_F16(d, 16), SPINDLE_F16(d, 32), SPINDLE_F16(d, 48)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
};
#undef SPINDLE_F16
#undef SPINDLE_F4
#endif  // SPINDLE_WGMMA_DEVICE

constexpr int kChunks = kWgmmaMaxK / 16;

#ifdef SPINDLE_WGMMA_DEVICE
/// Splits B (rows x n, row-major; zeros past `rows` and n up to kp x N) into hi and lo parts in
/// the K-major core-matrix order described above, with physical k row p of a 16-wide chunk at the
/// position the A fragments' permutation gives it. `step_pos(p, q, pos)` gives row p's step q and
/// logical k index pos (0..7) in it.
template <int N, class StepPos>
__device__ __forceinline__ void split_b(const float* __restrict__ B, int rows, int n, int kp,
                                        float* Wh, float* Wl, int threads, StepPos step_pos) {
  constexpr int kGroups = N / 8;
  for (int e = threadIdx.x; e < kp * N; e += threads) {
    const int p = e / N;
    const int col = e % N;
    std::uint32_t h = 0, l = 0;
    if (p < rows && col < n) split(B[static_cast<std::size_t>(p) * n + col], h, l);
    int q = 0, pos = 0;
    step_pos(p, q, pos);
    const int off = ((q * kGroups + col / 8) * 2 + pos / 4) * 32 + (col % 8) * 4 + pos % 4;
    Wh[off] = __uint_as_float(h);
    Wl[off] = __uint_as_float(l);
  }
}

/// The first operand's order: row p of chunk c at step 2c + s, logical index 4·half + t for
/// p = 16c + 4t + 2s + half (see the file comment).
struct ChunkOrder {
  __device__ __forceinline__ void operator()(int p, int& q, int& pos) const {
    const int rem = p % 16;
    q = 2 * (p / 16) + (rem % 4) / 2;
    pos = (rem % 2) * 4 + rem / 4;
  }
};

/// The body of both kernels: each warpgroup walks its 64-row tiles of A (m x k) · B, B split in
/// shared memory at Wh / Wl (ChunkOrder, built for N columns and KC chunks), A's fragments through
/// the slots at `slots`, and hands each finished tile's accumulator to `fin(tile, acc)`.
///
/// With TURNS (two warpgroups) the warpgroups take turns at issuing their tiles' products, as
/// CUTLASS's ping-pong schedule does: warpgroup w waits at named barrier 1 + w for its turn,
/// issues its chunks, and opens the other's barrier as soon as its last chunk is issued, so one
/// warpgroup's `fin` (the GEMM pair's second product) runs while the other keeps the tensor cores
/// busy, instead of both reaching their epilogues together. Both run warpgroup 0's number of
/// turns; warpgroup 1's extra turn, if it has one tile fewer, computes nothing, and its last turn
/// opens nothing, so that every arrive meets a sync. (The GEMM pair: 1.47 -> 1.39 ms, H200.)
template <int N, int KC, int WGS, bool TURNS, class Fin>
__device__ __forceinline__ void wgmma_tiles(int m, int k, const float* __restrict__ A,
                                            std::uint32_t wh, std::uint32_t wl, float4* slots,
                                            Fin&& fin) {
  constexpr int kGroups = N / 8;
  constexpr int kAcc = N / 2;
  // Warp-uniform by construction (a shuffle from lane 0), so that ptxas sees the tile loop below
  // as uniform per warpgroup; with threadIdx.x / 128 it serializes the wgmma of the loop.
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
  const int warp = (threadIdx.x % 128) / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int tiles = (m + 63) / 64;
  const int stride = WGS * static_cast<int>(gridDim.x);

  // A's fragments travel through shared memory by cp.async, each thread copying exactly the two
  // 16-byte pieces it later reads (so its own cp.async.wait_group is all the synchronization
  // needed): slot c holds chunk c of the tile being computed until the thread has read it, then
  // chunk c of its next tile, a whole tile (about 3000 cycles of tensor work at N = 128) ahead.
  // (A first version loaded straight into registers, one tile ahead: 255 registers against 140;
  // its only timing was taken while the persisting set-aside slowed every kernel,
  // so the two forms were never compared fairly.)
  //   As[wg][c][h][thread]: A(row g + 8h of the warp's 16, columns 16c + 4t .. + 3).
  float4* As = slots + wg * KC * 2 * 128;
  const int wt = static_cast<int>(threadIdx.x) % 128;
  auto load_chunk = [&](int c, int tile) {
    const long long r0 = static_cast<long long>(tile) * 64 + warp * 16 + g;
    const int col = 16 * c + 4 * t;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long r = r0 + 8 * h;
      const bool in = tile < tiles && col < k && r < m;
      const auto dst =
          static_cast<std::uint32_t>(__cvta_generic_to_shared(As + (c * 2 + h) * 128 + wt));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
                   "l"(in ? A + r * k + col : A), "r"(in ? 16 : 0));
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  static_assert(!TURNS || WGS == 2, "turns between two warpgroups");
  int tile = static_cast<int>(blockIdx.x) * WGS + wg;
#pragma unroll
  for (int c = 0; c < KC; ++c) load_chunk(c, tile);

  const int first = static_cast<int>(blockIdx.x) * WGS;  // warpgroup 0's first tile
  const int turns = TURNS && first < tiles ? (tiles - 1 - first) / stride + 1 : 0;
  for (int turn = 0; TURNS ? turn < turns : tile < tiles; ++turn, tile += stride) {
    if (TURNS && (wg == 1 || turn > 0)) named_sync(1 + wg);
    const bool live = !TURNS || tile < tiles;  // uniform per warpgroup
    float acc[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0.0f;
    if (live) {
      const int next = tile + stride;
#pragma unroll
      for (int c = 0; c < KC; ++c) {
        // KC groups are in flight (chunks c.. of this tile, ..c - 1 of the next): the oldest,
        // chunk c, has landed once at most KC - 1 remain.
        asm volatile("cp.async.wait_group %0;" ::"n"(KC - 1) : "memory");
        const float4 r0 = As[(c * 2) * 128 + wt];
        const float4 r1 = As[(c * 2 + 1) * 128 + wt];
        std::uint32_t ah[2][4], al[2][4];
        const float v0[4] = {r0.x, r0.y, r0.z, r0.w};
        const float v1[4] = {r1.x, r1.y, r1.z, r1.w};
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          split(v0[2 * s], ah[s][0], al[s][0]);
          split(v1[2 * s], ah[s][1], al[s][1]);
          split(v0[2 * s + 1], ah[s][2], al[s][2]);
          split(v1[2 * s + 1], ah[s][3], al[s][3]);
        }
        load_chunk(c, next);  // the slot has been read (its values split): refill it
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          const std::uint32_t off = static_cast<std::uint32_t>((2 * c + s) * kGroups * 256);
          const std::uint64_t bh = b_desc(wh + off);
          const std::uint64_t bl = b_desc(wl + off);
          Wgmma<N>::run(acc, al[s], bh);
          Wgmma<N>::run(acc, ah[s], bl);
          Wgmma<N>::run(acc, ah[s], bh);
        }
        wgmma_commit();
        wgmma_wait<1>();
      }
    }
    if (TURNS && !(wg == 1 && turn == turns - 1)) named_arrive(2 - wg);
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < kAcc; ++i) fence_operand(acc[i]);
    if (live) fin(tile, acc, warp, g, t);
  }
}

/// Stores a 64 x N accumulator's rows below m, columns below n, into C (row-major, ld n):
/// acc[4j + 2h + e] is row g + 8h, column 8j + 2t + e of the warp's 16 x N.
template <int N>
__device__ __forceinline__ void store_tile(const float (&acc)[N / 2], int tile, int warp, int g,
                                           int t, int m, int n, float* __restrict__ C) {
  const long long r0 = static_cast<long long>(tile) * 64 + warp * 16 + g;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const long long r = r0 + 8 * h;
    if (r >= m) continue;
    float* crow = C + r * n;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      const int col = 8 * j + 2 * t;
      if (col < n) {
        *reinterpret_cast<float2*>(crow + col) =
            make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
      }
    }
  }
}
#endif  // SPINDLE_WGMMA_DEVICE

template <int N, int KC, int WGS>
__global__ void __launch_bounds__(WGS * 128, 1)
    split_tf32_wgmma(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C) {
#ifdef SPINDLE_WGMMA_DEVICE
  static_assert(N == 32 || N == 64 || N == 128, "wgmma widths built");
  static_assert(KC >= 1 && KC <= kChunks, "16-wide chunks of k");
  constexpr int kp = KC * 16;  // k rounded up to whole chunks (zeros beyond k)
  extern __shared__ float4 smem4[];
  float* Wh = reinterpret_cast<float*>(smem4);  // [kp * N] hi parts, core-matrix order
  float* Wl = Wh + kp * N;                      // [kp * N] lo parts; then A's slots
  split_b<N>(B, k, n, kp, Wh, Wl, WGS * 128, ChunkOrder{});
  // Generic-proxy writes to shared memory, read next by wgmma through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  wgmma_tiles<N, KC, WGS, false>(m, k, A, static_cast<std::uint32_t>(__cvta_generic_to_shared(Wh)),
                                 static_cast<std::uint32_t>(__cvta_generic_to_shared(Wl)),
                                 reinterpret_cast<float4*>(Wl + kp * N),
                                 [&](int tile, const float(&acc)[N / 2], int warp, int g, int t) {
                                   store_tile<N>(acc, tile, warp, g, t, m, n, C);
                                 });
#else
  (void)m, (void)n, (void)k, (void)A, (void)B, (void)C;
  __trap();  // split_tf32_wgmma_kernel's callers check the image (cc 9.0 only)
#endif
}

/// The two-layer form (split_tf32_wgmma_mlp): T = act(A · W1 + b1) · W2 with W1 (k x n1, n1 <=
/// 128) and W2 (n1 x n2, n2 <= 32) both split in shared memory. A tile's first product stays in
/// registers: bias and ReLU are applied there, and the accumulator is the second product's A
/// operand directly. For its step j (k8 block j of the 128 hidden columns), thread (g, t) holds
/// H(g, 8j + 2t + e) and H(g + 8, 8j + 2t + e), e in {0, 1}, and passes them as logical k
/// indices t (e = 0) and t + 4 (e = 1): W2's row 8j + 2t + e is stored at that index.
///
/// The two warpgroups take turns at their first products (wgmma_tiles' TURNS), so that one's
/// second product overlaps the other's first. The bias is copied into shared memory once per
/// block: read through the read-only cache in the epilogue, each value's load stood between the
/// accumulator and its split (the kernel has registers for few loads in flight), which cost 4%.
template <int KC>
__global__ void __launch_bounds__(256, 1)
    split_tf32_wgmma_mlp(int m, int n1, int n2, int k, const float* __restrict__ A,
                         const float* __restrict__ W1, const float* __restrict__ b1, int relu,
                         const float* __restrict__ W2, float* __restrict__ T) {
#ifdef SPINDLE_WGMMA_DEVICE
  constexpr int N1 = 128, N2 = 32, WGS = 2;
  constexpr int kp = KC * 16;
  extern __shared__ float4 smem4[];
  float* Wh = reinterpret_cast<float*>(smem4);                       // [kp * N1]
  float* Wl = Wh + kp * N1;                                          // [kp * N1]
  float4* slots = reinterpret_cast<float4*>(Wl + kp * N1);           // [WGS * KC * 2 * 128]
  float* Vh = reinterpret_cast<float*>(slots + WGS * KC * 2 * 128);  // [N1 * N2]
  float* Vl = Vh + N1 * N2;                                          // [N1 * N2]
  float* bias = Vl + N1 * N2;                                        // [N1], zeros past n1
  split_b<N1>(W1, k, n1, kp, Wh, Wl, WGS * 128, ChunkOrder{});
  split_b<N2>(W2, n1, n2, N1, Vh, Vl, WGS * 128, [](int p, int& q, int& pos) {
    q = p / 8;
    pos = (p % 2) * 4 + (p % 8) / 2;
  });
  for (int c = static_cast<int>(threadIdx.x); c < N1; c += WGS * 128) {
    bias[c] = b1 != nullptr && c < n1 ? b1[c] : 0.0f;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const std::uint32_t vh = static_cast<std::uint32_t>(__cvta_generic_to_shared(Vh));
  const std::uint32_t vl = static_cast<std::uint32_t>(__cvta_generic_to_shared(Vl));
  wgmma_tiles<N1, KC, WGS, true>(
      m, k, A, static_cast<std::uint32_t>(__cvta_generic_to_shared(Wh)),
      static_cast<std::uint32_t>(__cvta_generic_to_shared(Wl)), slots,
      [&](int tile, float(&acc)[N1 / 2], int warp, int g, int t) {
        float acc2[N2 / 2];
#pragma unroll
        for (int i = 0; i < N2 / 2; ++i) acc2[i] = 0.0f;
#pragma unroll
        for (int j = 0; j < N1 / 8; ++j) {
          const float2 b = *reinterpret_cast<const float2*>(bias + 8 * j + 2 * t);
          float hv[4];  // (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1) of block j
#pragma unroll
          for (int e = 0; e < 2; ++e) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              float v = acc[4 * j + 2 * h + e] + (e == 0 ? b.x : b.y);
              if (relu != 0) v = v > 0.0f ? v : 0.0f;  // UnaryOp::Relu (a NaN becomes 0)
              hv[2 * h + e] = v;
            }
          }
          std::uint32_t ah[4], al[4];
          split(hv[0], ah[0], al[0]);  // (g, index t)
          split(hv[2], ah[1], al[1]);  // (g + 8, t)
          split(hv[1], ah[2], al[2]);  // (g, t + 4)
          split(hv[3], ah[3], al[3]);  // (g + 8, t + 4)
          wgmma_fence();               // the fragments were written by ordinary instructions
          const std::uint32_t off = static_cast<std::uint32_t>(j * (N2 / 8) * 256);
          Wgmma<N2>::run(acc2, al, b_desc(vh + off));
          Wgmma<N2>::run(acc2, ah, b_desc(vl + off));
          Wgmma<N2>::run(acc2, ah, b_desc(vh + off));
        }
        wgmma_commit();
        wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < N2 / 2; ++i) fence_operand(acc2[i]);
        store_tile<N2>(acc2, tile, warp, g, t, m, n2, T);
      });
#else
  (void)m, (void)n1, (void)n2, (void)k, (void)A, (void)W1, (void)b1, (void)relu, (void)W2, (void)T;
  __trap();  // split_tf32_wgmma_mlp's callers check the image (cc 9.0 only)
#endif
}

}  // namespace

namespace {
template <int N, int WGS>
SplitKernel by_chunks(int k) noexcept {
  switch (split_tf32_wgmma_built_k(k)) {
    case 16:
      return &split_tf32_wgmma<N, 1, WGS>;
    case 32:
      return &split_tf32_wgmma<N, 2, WGS>;
    case 64:
      return &split_tf32_wgmma<N, 4, WGS>;
    default:
      return &split_tf32_wgmma<N, 8, WGS>;
  }
}
template <int WGS>
SplitKernel by_width(int width, int k) noexcept {
  switch (width) {
    case 32:
      return by_chunks<32, WGS>(k);
    case 64:
      return by_chunks<64, WGS>(k);
    case 128:
      return by_chunks<128, WGS>(k);
    default:
      return nullptr;
  }
}
}  // namespace

MlpKernel split_tf32_wgmma_mlp_kernel(int k) noexcept {
  switch (split_tf32_wgmma_built_k(k)) {
    case 16:
      return &split_tf32_wgmma_mlp<1>;
    case 32:
      return &split_tf32_wgmma_mlp<2>;
    case 64:
      return &split_tf32_wgmma_mlp<4>;
    default:
      return k >= 0 && k <= kWgmmaMaxK ? &split_tf32_wgmma_mlp<8> : nullptr;
  }
}

SplitKernel split_tf32_wgmma_kernel(int width, int k, int warpgroups) noexcept {
  if (k < 0 || k > kWgmmaMaxK) return nullptr;
  if (warpgroups == 2) return by_width<2>(width, k);
  if (warpgroups == 3) return by_width<3>(width, k);
  return nullptr;
}

}  // namespace spindle::detail::cuda
