// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): can a launch-bound mxv call lose a level of dependent loads?
// The small real graphs run in 4.0-4.5 us against an empty launch's 3.3 us (events); the kernels
// there (subwarp_per_row, row_block's small form) walk row offsets -> column indices and values
// -> u -> y, three dependent loads. This times, on the data folder's small graphs:
//   - chain1/2/3: a kernel with one, two or three dependent loads before its store (the floor);
//   - coo:      slots of whole rows laid out at fixed offsets (column, value, row id per entry,
//               padded), so a block reads its entries at addresses known from blockIdx alone:
//               entries -> u -> y, a segmented scan in the block;
//   - staged:   the same, with all of u copied into shared memory in the same round as the
//               entries (plain loads, or cp.async): entries + u -> y, one level;
// against the library's planner pick and cuSPARSE's best in the same process, checked against the
// CPU backend (output poisoned first). Median of `reps` event-timed runs after warm-up, as the
// benchmark's time_runs.
//
// Build (from the repository root, after the CUDA build in build/test):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/small_staged.cu build/test/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o small_staged
// Run: ./small_staged DATA_DIR [reps]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/cusparse/spmv.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using I = std::int32_t;
using T = float;
using S = semiring::plus_times<T>;
namespace dc = spindle::detail::cuda;

namespace {

__global__ void chain1(const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * __ldg(x + i);
}
__global__ void chain2(const int* idx, const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * __ldg(x + __ldg(idx + i));
}
__global__ void chain3(const int* ptr, const int* idx, const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * __ldg(x + __ldg(idx + __ldg(ptr + i)));
}

struct Run {
  float v;
  int head;
};
__device__ __forceinline__ Run comb(const Run& l, const Run& r) {
  return r.head ? r : Run{l.v + r.v, l.head};
}

// kStage: 0 = gather u from global memory, 1 = u copied to shared memory with plain loads,
// 2 = copied with cp.async (16-byte pieces, 4-byte tail).
template <int BT, int kStage>
__global__ void __launch_bounds__(BT)
    slots_kernel(const int* __restrict__ col, const float* __restrict__ val,
                 const int* __restrict__ row, const float* __restrict__ u, int m,
                 float* __restrict__ y, std::uint8_t* __restrict__ present) {
  extern __shared__ float su[];
  __shared__ float wv[BT / 32];
  __shared__ int wh[BT / 32];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * (4 * BT) + 4 * tid;
  const int4 c = *reinterpret_cast<const int4*>(col + base);
  const float4 v = *reinterpret_cast<const float4*>(val + base);
  const int4 r = *reinterpret_cast<const int4*>(row + base);
  const int rprev = tid > 0 ? __ldg(row + base - 1) : -2;
  const int rnext = tid < BT - 1 ? __ldg(row + base + 4) : -2;
  if constexpr (kStage == 1) {
#pragma unroll 8
    for (int j = tid; j < m; j += BT) su[j] = __ldg(u + j);
  } else if constexpr (kStage == 2) {
    const int m4 = m >> 2;
    for (int j = tid; j < m4; j += BT) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(su + 4 * j));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(u + 4 * j));
    }
    for (int j = 4 * m4 + tid; j < m; j += BT) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(su + j));
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(u + j));
    }
    asm volatile("cp.async.wait_all;");
  }
  if constexpr (kStage != 0) __syncthreads();
  const int cc[4] = {c.x, c.y, c.z, c.w};
  const float vv[4] = {v.x, v.y, v.z, v.w};
  const int rr[6] = {rprev, r.x, r.y, r.z, r.w, rnext};
  float p[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float uj = 0.0f;
    if (cc[j] >= 0) uj = kStage == 0 ? __ldg(u + cc[j]) : su[cc[j]];
    p[j] = vv[j] * uj;
  }
  Run run{0.0f, 0};
#pragma unroll
  for (int j = 0; j < 4; ++j) run = comb(run, Run{p[j], rr[j + 1] != rr[j] ? 1 : 0});
  const int lane = tid & 31, warp = tid >> 5;
  Run inc = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const Run l{__shfl_up_sync(0xffffffffu, inc.v, off),
                __shfl_up_sync(0xffffffffu, inc.head, off)};
    if (lane >= off) inc = comb(l, inc);
  }
  Run carry{__shfl_up_sync(0xffffffffu, inc.v, 1), __shfl_up_sync(0xffffffffu, inc.head, 1)};
  if (lane == 0) carry = Run{0.0f, 0};
  if (lane == 31) {
    wv[warp] = inc.v;
    wh[warp] = inc.head;
  }
  __syncthreads();
  Run before{0.0f, 0};
  for (int w = 0; w < warp; ++w) before = comb(before, Run{wv[w], wh[w]});
  carry = comb(before, carry);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    carry = comb(carry, Run{p[j], rr[j + 1] != rr[j] ? 1 : 0});
    if (rr[j + 1] >= 0 && rr[j + 2] != rr[j + 1]) {
      const bool has = cc[j] >= 0;  // a row's single phantom entry: an empty row
      y[rr[j + 1]] = has ? carry.v : 0.0f;
      present[rr[j + 1]] = has ? 1 : 0;
    }
  }
}

// Flags in the row ids (no neighbour loads): bit 30 = a row starts at this entry, bit 29 = a row
// ends at this entry; the low 29 bits are the row. Padding is -1. kWarp: each warp owns a slot of
// 32 * PER entries (no block barrier); else the block owns 4 * BT entries (PER = 4).
constexpr int kHead = 1 << 30, kEnd = 1 << 29, kRowMask = kEnd - 1;
template <int BT, int PER, bool kWarp>
__global__ void __launch_bounds__(BT)
    flags_kernel(const int* __restrict__ col, const float* __restrict__ val,
                 const int* __restrict__ row, const float* __restrict__ u, float* __restrict__ y,
                 std::uint8_t* __restrict__ present) {
  __shared__ float wv[BT / 32];
  __shared__ int wh[BT / 32];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * (PER * BT) + PER * tid;
  int cc[PER], rr[PER];
  float vv[PER];
#pragma unroll
  for (int q = 0; q < PER; q += 4) {
    const int4 c = *reinterpret_cast<const int4*>(col + base + q);
    const float4 v = *reinterpret_cast<const float4*>(val + base + q);
    const int4 r = *reinterpret_cast<const int4*>(row + base + q);
    cc[q] = c.x;
    cc[q + 1] = c.y;
    cc[q + 2] = c.z;
    cc[q + 3] = c.w;
    vv[q] = v.x;
    vv[q + 1] = v.y;
    vv[q + 2] = v.z;
    vv[q + 3] = v.w;
    rr[q] = r.x;
    rr[q + 1] = r.y;
    rr[q + 2] = r.z;
    rr[q + 3] = r.w;
  }
  float p[PER];
#pragma unroll
  for (int j = 0; j < PER; ++j) p[j] = cc[j] >= 0 ? vv[j] * __ldg(u + cc[j]) : 0.0f;
  Run run{0.0f, 0};
#pragma unroll
  for (int j = 0; j < PER; ++j) run = comb(run, Run{p[j], rr[j] >= 0 && (rr[j] & kHead) ? 1 : 0});
  const int lane = tid & 31, warp = tid >> 5;
  Run inc = run;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const Run l{__shfl_up_sync(0xffffffffu, inc.v, off),
                __shfl_up_sync(0xffffffffu, inc.head, off)};
    if (lane >= off) inc = comb(l, inc);
  }
  Run carry{__shfl_up_sync(0xffffffffu, inc.v, 1), __shfl_up_sync(0xffffffffu, inc.head, 1)};
  if (lane == 0) carry = Run{0.0f, 0};
  if constexpr (!kWarp) {
    if (lane == 31) {
      wv[warp] = inc.v;
      wh[warp] = inc.head;
    }
    __syncthreads();
    Run before{0.0f, 0};
    for (int w = 0; w < warp; ++w) before = comb(before, Run{wv[w], wh[w]});
    carry = comb(before, carry);
  }
#pragma unroll
  for (int j = 0; j < PER; ++j) {
    carry = comb(carry, Run{p[j], rr[j] >= 0 && (rr[j] & kHead) ? 1 : 0});
    if (rr[j] >= 0 && (rr[j] & kEnd)) {
      const int i = rr[j] & kRowMask;
      const bool has = cc[j] >= 0;
      y[i] = has ? carry.v : 0.0f;
      present[i] = has ? 1 : 0;
    }
  }
}

// Whole rows packed into slots of 4 BT entries; an empty row gets one phantom entry (column -1).
struct Slots {
  std::vector<int> col, row;
  std::vector<float> val;
  int nslots = 0;
};
bool build_slots(const Graph<I, T>& A, int BT, Slots& s) {
  const int E = 4 * BT;
  const auto& rp = A.row_ptr();
  const auto& ci = A.col_idx();
  const auto& vs = A.values();
  std::vector<int> col, row;
  std::vector<float> val;
  int used = E;  // forces a first slot
  auto open = [&] {
    col.resize(col.size() + E, -1);
    row.resize(row.size() + E, -1);
    val.resize(val.size() + E, 0.0f);
    used = 0;
  };
  for (I i = 0; i < A.rows(); ++i) {
    const int len = std::max(1, static_cast<int>(rp[i + 1] - rp[i]));
    if (len > E) return false;
    if (used + len > E) open();
    const std::size_t at = col.size() - E + used;
    if (rp[i + 1] == rp[i]) {
      row[at] = i;
    } else {
      for (I k = rp[i]; k < rp[i + 1]; ++k) {
        col[at + (k - rp[i])] = ci[k];
        val[at + (k - rp[i])] = vs[k];
        row[at + (k - rp[i])] = i;
      }
    }
    used += len;
  }
  s.col = std::move(col);
  s.row = std::move(row);
  s.val = std::move(val);
  s.nslots = static_cast<int>(s.col.size() / E);
  return true;
}

template <class V>
Graph<I, T> with_random_values(const Graph<I, V>& g, std::uint64_t seed) {
  std::vector<T> vals(static_cast<std::size_t>(g.nnz()));
  std::mt19937_64 rng(seed);
  for (auto& v : vals) v = static_cast<T>(0.5 + (rng() % 1024) / 1024.0);
  return Graph<I, T>(g.rows(), g.cols(), g.row_ptr(), g.col_idx(), std::move(vals));
}

double rel_err(const std::vector<float>& y, const std::vector<std::uint8_t>& pr,
               const Vector<T>& ref) {
  double worst = 0;
  for (std::int64_t i = 0; i < ref.size(); ++i) {
    if ((pr[i] != 0) != ref.present(i)) return 1e30;
    if (!ref.present(i)) continue;
    worst = std::max(worst, std::fabs(y[i] - ref[i]) / std::max(1.0, std::fabs(double(ref[i]))));
  }
  return worst;
}

// A slot layout on the device, and an output with its presence bytes.
struct DeviceSlots {
  dc::DeviceBuffer col, row, val, y, present;
  DeviceSlots(const Slots& s, std::int64_t rows)
      : col(s.col.size() * 4, "col"),
        row(s.row.size() * 4, "row"),
        val(s.val.size() * 4, "val"),
        y(static_cast<std::size_t>(rows) * 4, "y"),
        present(static_cast<std::size_t>(rows), "present") {
    cudaMemcpy(col.get(), s.col.data(), col.bytes(), cudaMemcpyHostToDevice);
    cudaMemcpy(row.get(), s.row.data(), row.bytes(), cudaMemcpyHostToDevice);
    cudaMemcpy(val.get(), s.val.data(), val.bytes(), cudaMemcpyHostToDevice);
  }
};

// Runs `launch` once over poisoned outputs, checks them against the CPU backend, then times it.
template <class F>
void check_and_time(const Vector<T>& ref, DeviceSlots& d, int nslots, int reps, const char* tag,
                    F&& launch) {
  auto& ctx = dc::context();
  cudaMemsetAsync(d.y.get(), 0xFF, d.y.bytes(), ctx.stream);
  cudaMemsetAsync(d.present.get(), 0x7F, d.present.bytes(), ctx.stream);
  launch();
  std::vector<float> y(d.y.bytes() / 4);
  std::vector<std::uint8_t> pr(d.present.bytes());
  ctx.synchronize();
  cudaMemcpy(y.data(), d.y.get(), d.y.bytes(), cudaMemcpyDeviceToHost);
  cudaMemcpy(pr.data(), d.present.get(), d.present.bytes(), cudaMemcpyDeviceToHost);
  const cudaError_t e = cudaGetLastError();
  const double err = rel_err(y, pr, ref);
  const double us = 1000.0 * dc::median(dc::time_runs(launch, 3, reps));
  std::printf("  %-22s %7.2f us  slots %4d  err %.1e%s%s\n", tag, us, nslots, err,
              err > 1e-4 ? "  WRONG" : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
}

template <int BT, int kStage>
void time_slots(const Graph<I, T>& A, const Vector<T>& ref, const float* du, int reps,
                const char* tag) {
  Slots s;
  if (!build_slots(A, BT, s)) {
    std::printf("  %-22s -\n", tag);
    return;
  }
  auto& ctx = dc::context();
  DeviceSlots d(s, A.rows());
  const int m = static_cast<int>(A.cols());
  const std::size_t smem = kStage == 0 ? 0 : static_cast<std::size_t>(m) * 4;
  if (smem > 48 * 1024) {
    cudaFuncSetAttribute(slots_kernel<BT, kStage>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(smem));
  }
  check_and_time(ref, d, s.nslots, reps, tag, [&] {
    slots_kernel<BT, kStage><<<s.nslots, BT, smem, ctx.stream>>>(
        d.col.as<int>(), d.val.as<float>(), d.row.as<int>(), du, m, d.y.as<float>(),
        static_cast<std::uint8_t*>(d.present.get()));
  });
}

template <int BT, int PER, bool kWarp>
void time_flags(const Graph<I, T>& A, const Vector<T>& ref, const float* du, int reps,
                const char* tag) {
  Slots s;
  const int slot = kWarp ? 32 * PER : PER * BT;
  if (!build_slots(A, slot / 4, s)) {
    std::printf("  %-22s -\n", tag);
    return;
  }
  const std::vector<int> plain_rows = s.row;
  for (std::size_t k = 0; k < s.row.size(); ++k) {
    const int r = plain_rows[k];
    if (r < 0) continue;
    const bool head = k % slot == 0 || plain_rows[k - 1] != r;
    const bool end = (k + 1) % slot == 0 || plain_rows[k + 1] != r;
    s.row[k] = r | (head ? kHead : 0) | (end ? kEnd : 0);
  }
  {
    const std::size_t per_block = static_cast<std::size_t>(PER) * BT;
    const std::size_t want = (s.col.size() + per_block - 1) / per_block * per_block;
    s.col.resize(want, -1);
    s.row.resize(want, -1);
    s.val.resize(want, 0.0f);
  }
  auto& ctx = dc::context();
  DeviceSlots d(s, A.rows());
  const int blocks = static_cast<int>(s.col.size() / (PER * BT));  // padded to whole blocks
  check_and_time(ref, d, s.nslots, reps, tag, [&] {
    flags_kernel<BT, PER, kWarp><<<blocks, BT, 0, ctx.stream>>>(
        d.col.as<int>(), d.val.as<float>(), d.row.as<int>(), du, d.y.as<float>(),
        static_cast<std::uint8_t*>(d.present.get()));
  });
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: small_staged DATA_DIR [reps]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  auto& ctx = dc::context();
  {
    dc::DeviceBuffer x(1 << 20, "x"), y(1 << 20, "y"), idx(1 << 20, "idx"), ptr(1 << 20, "ptr");
    cudaMemset(idx.get(), 0, idx.bytes());
    cudaMemset(ptr.get(), 0, ptr.bytes());
    const int n = 6474, g = (n + 255) / 256;
    auto us = [&](auto f) { return 1000.0 * dc::median(dc::time_runs(f, 3, reps)); };
    std::printf("chain1 %.2f us, chain2 %.2f us, chain3 %.2f us\n",
                us([&] { chain1<<<g, 256, 0, ctx.stream>>>(x.as<float>(), y.as<float>(), n); }),
                us([&] {
                  chain2<<<g, 256, 0, ctx.stream>>>(idx.as<int>(), x.as<float>(), y.as<float>(), n);
                }),
                us([&] {
                  chain3<<<g, 256, 0, ctx.stream>>>(ptr.as<int>(), idx.as<int>(), x.as<float>(),
                                                    y.as<float>(), n);
                }));
  }
  const char* const files[] = {"1138_bus.mtx",          "bcsstk13.mtx",   "cryg2500.mtx",
                               "jagmesh7.mtx",          "as20graph.txt",  "email-Eu-core.csv",
                               "C-elegans-frontal.txt", "chesapeake.mtx", "lp_afiro.mtx"};
  for (const char* f : files) {
    const auto L = load_graph<I, Pattern>(dir + "/graphs/" + f);
    const Graph<I, T> A = with_random_values(L.graph, 99);
    Vector<T> x(A.cols());
    std::mt19937_64 rng(1234);
    for (std::int64_t j = 0; j < A.cols(); ++j)
      x[j] = static_cast<T>(0.25 + (rng() % 4096) / 4096.0);
    Vector<T> ref;
    mxv(ref, Mask{}, Accum::none(), S{}, A, x, Descriptor().on(Device::Cpu));
    ref.sync_to_host();
    std::printf("%s: %lld x %lld, %lld entries, longest row %lld\n", f,
                static_cast<long long>(A.rows()), static_cast<long long>(A.cols()),
                static_cast<long long>(A.nnz()), static_cast<long long>(A.stats().max_row));
    // The planner's pick, as the benchmark times it.
    {
      detail::MxvInfo info;
      info.value = value_kind_of<T>();
      info.matrix_value = value_kind_of<T>();
      Plan p = detail::plan_mxv_cuda(A.stats(), info, device_caps(), Descriptor{});
      p.forced = true;
      Vector<T> y(A.rows(), T(-777));
      dc::mxv<S>(p, y, Mask{}, Accum::none(), A, x, false, false);
      const double us =
          1000.0 *
          dc::median(dc::time_runs(
              [&] { dc::mxv<S>(p, y, Mask{}, Accum::none(), A, x, false, false); }, 3, reps));
      std::printf("  %-22s %7.2f us  (%s)\n", "planner", us, to_string(p.mxv));
    }
    const auto d = dc::device_csr<T>(A);
    const auto xin = dc::device_in(x);
    {
      dc::DeviceBuffer yb(static_cast<std::size_t>(A.rows()) * sizeof(T), "y");
      double best = 1e30;
      for (auto alg : {dc::CusparseAlg::Default, dc::CusparseAlg::CsrAlg2}) {
        dc::CusparseSpmv<T, I> sp(d, xin.values, yb.as<T>(), alg);
        best = std::min(best, 1000.0 * dc::median(dc::time_runs([&] { sp.run(); }, 3, reps)));
      }
      std::printf("  %-22s %7.2f us\n", "cusparse best", best);
    }
    time_slots<128, 0>(A, ref, xin.values, reps, "coo 128");
    time_slots<512, 0>(A, ref, xin.values, reps, "coo 512");
    time_flags<64, 4, false>(A, ref, xin.values, reps, "flags block 64");
    time_flags<128, 4, false>(A, ref, xin.values, reps, "flags block 128");
    time_flags<256, 4, false>(A, ref, xin.values, reps, "flags block 256");
    time_flags<512, 4, false>(A, ref, xin.values, reps, "flags block 512");
    time_flags<64, 4, true>(A, ref, xin.values, reps, "flags warp 64x4");
    time_flags<128, 4, true>(A, ref, xin.values, reps, "flags warp 128x4");
    time_flags<256, 4, true>(A, ref, xin.values, reps, "flags warp 256x4");
    time_flags<64, 8, true>(A, ref, xin.values, reps, "flags warp 64x8");
    time_flags<128, 8, true>(A, ref, xin.values, reps, "flags warp 128x8");
    time_flags<64, 16, true>(A, ref, xin.values, reps, "flags warp 64x16");
    time_flags<64, 64, true>(A, ref, xin.values, reps, "flags warp 64x64");
  }
  return 0;
}
