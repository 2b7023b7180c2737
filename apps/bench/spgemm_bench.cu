// SPDX-License-Identifier: Apache-2.0
/// @file spgemm_bench.cu
/// @brief Sparse x sparse mxm and triangle counting on CUDA against cuSPARSE SpGEMM, in the same
/// process on the same device arrays (issue 48).
///
/// For each graph:
///   - A·A (plus_times, fp32): Spindle's row-wise form (the planner's bins) against
///     cusparseSpGEMM (CUSPARSE_SPGEMM_DEFAULT: work estimation, compute, copy; where DEFAULT
///     fails, ALG3 then ALG2, named in the check column). Both times
///     include their workspaces' and C's allocation; the results are compared (row offsets and
///     columns exactly, values to 1e-4 relative).
///   - triangles: L = the strictly lower triangle of the undirected simple graph after
///     relabelling by degree (as triangles() does on skewed graphs). Spindle: C<L> = L plus.pair
///     L^T by the masked dot form, then the sum of C. cuSPARSE: C = L·L by SpGEMM, then an
///     element-wise mask with L and the sum (one kernel of this file). Both counts must equal the
///     CPU's triangles().
///     Where the whole L·L fails (DEFAULT, ALG3 and ALG2 tried in turn), cuSPARSE runs over
///     blocks of L's rows of at most --chunk-products products each (default 2^28), which is
///     how a user would fit it; the check column says so.
///   - triangles() end to end on CUDA (host preparation and transfers included) for reference.
/// Times: median of --runs runs after one warm-up, host clock around a synchronized call.
///
/// Usage: spindle_bench_spgemm [--graphs rmat18,rmat20,FILE,...] [--edge-factor E] [--runs R]
///                             [--no-square] [--no-triangles] [--chunk-products P]
///                             [--e2e-runs N (default R; 0 skips triangles() end to end)]
///                             [--json FILE]
/// `rmatS` is `spindle generate rmat --scale S` with edge factor E (default 16); A·A runs on the
/// directed graph, triangles on its symmetrization.

#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/spgemm/spgemm_device.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"

namespace {

using I = std::int32_t;
using Clock = std::chrono::steady_clock;
namespace sc = spindle::detail::cuda;

#define CK(x)                                                                                 \
  do {                                                                                        \
    const cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
#define CS(x)                                                                        \
  do {                                                                               \
    const cusparseStatus_t s_ = (x);                                                 \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                             \
      std::fprintf(stderr, "%s:%d %s: cuSPARSE status %d\n", __FILE__, __LINE__, #x, \
                   static_cast<int>(s_));                                            \
      throw std::runtime_error("cusparse");                                          \
    }                                                                                \
  } while (0)

template <class X>
X* dev_copy(const std::vector<X>& v) {
  X* p = nullptr;
  CK(cudaMalloc(&p, std::max<std::size_t>(v.size(), 1) * sizeof(X)));
  if (!v.empty()) CK(cudaMemcpy(p, v.data(), v.size() * sizeof(X), cudaMemcpyHostToDevice));
  return p;
}

struct DevCsr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  I* rp = nullptr;
  I* ci = nullptr;
  float* v = nullptr;
  void release() {
    cudaFree(rp);
    cudaFree(ci);
    cudaFree(v);
    rp = ci = nullptr;
    v = nullptr;
  }
};

template <class V>
DevCsr upload(const spindle::Graph<I, V>& g) {
  DevCsr d;
  d.rows = g.rows();
  d.cols = g.cols();
  d.nnz = g.nnz();
  d.rp = dev_copy(g.row_ptr());
  d.ci = dev_copy(g.col_idx());
  std::vector<float> v(static_cast<std::size_t>(g.nnz()), 1.0f);
  if constexpr (!spindle::is_pattern_v<V>) {
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(g.values()[k]);
  }
  d.v = dev_copy(v);
  return d;
}

sc::DeviceCsr<I, float> operand(const DevCsr& d, bool values = true) {
  return {d.rows, d.cols, d.nnz, d.rp, d.ci, values ? d.v : nullptr};
}

template <class F>
double median_ms(int runs, F&& f) {
  f();  // warm-up
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    f();
    CK(cudaDeviceSynchronize());
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

const char* alg_name(cusparseSpGEMMAlg_t alg) {
  return alg == CUSPARSE_SPGEMM_ALG3 ? "ALG3" : alg == CUSPARSE_SPGEMM_ALG2 ? "ALG2" : "DEFAULT";
}

/// cudaMalloc that throws (naming the buffer and its bytes) instead of ending the process, so
/// that the caller can try the next cuSPARSE algorithm or row blocks.
void device_alloc(void** p, std::size_t bytes, const char* what) {
  if (cudaMalloc(p, std::max<std::size_t>(bytes, 1)) != cudaSuccess) {
    cudaGetLastError();
    *p = nullptr;
    std::fprintf(stderr, "cuSPARSE SpGEMM: its %s of %zu bytes does not fit\n", what, bytes);
    throw std::runtime_error("cusparse oom");
  }
}

/// C = A·B by cusparseSpGEMM with `alg` (DEFAULT, or ALG2/ALG3, which size the compute buffer
/// by cusparseSpGEMM_estimateMemory: ALG3 in chunks of `chunk` of the products), C's arrays
/// allocated here.
DevCsr cusparse_spgemm(cusparseHandle_t h, const DevCsr& A, const DevCsr& B,
                       cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT, float chunk = 0.2f) {
  cusparseSpMatDescr_t ma, mb, mc;
  CS(cusparseCreateCsr(&ma, A.rows, A.cols, A.nnz, A.rp, A.ci, A.v, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CS(cusparseCreateCsr(&mb, B.rows, B.cols, B.nnz, B.rp, B.ci, B.v, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CS(cusparseCreateCsr(&mc, A.rows, B.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseSpGEMMDescr_t sd;
  CS(cusparseSpGEMM_createDescr(&sd));
  const float alpha = 1.0f, beta = 0.0f;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::size_t b1 = 0, b2 = 0, b3 = 0;
  void* w1 = nullptr;
  void* w2 = nullptr;
  void* w3 = nullptr;
  auto cleanup = [&] {
    cudaFree(w1);
    cudaFree(w2);
    cudaFree(w3);
    cusparseSpGEMM_destroyDescr(sd);
    cusparseDestroySpMat(ma);
    cusparseDestroySpMat(mb);
    cusparseDestroySpMat(mc);
  };
  try {
    CS(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd, &b1,
                                     nullptr));
    device_alloc(&w1, b1, "work estimation buffer");
    CS(cusparseSpGEMM_workEstimation(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd, &b1,
                                     w1));
    if (alg == CUSPARSE_SPGEMM_DEFAULT) {
      CS(cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd, &b2,
                                nullptr));
    } else {
      CS(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd,
                                       chunk, &b3, nullptr, nullptr));
      device_alloc(&w3, b3, "memory estimation buffer");
      CS(cusparseSpGEMM_estimateMemory(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd,
                                       chunk, &b3, w3, &b2));
      cudaFree(w3);
      w3 = nullptr;
    }
    if (cudaMalloc(&w2, std::max<std::size_t>(b2, 1)) != cudaSuccess) {
      cudaGetLastError();
      std::fprintf(stderr, "cuSPARSE SpGEMM %s: its compute buffer of %zu bytes does not fit\n",
                   alg_name(alg), b2);
      throw std::runtime_error("cusparse oom");
    }
    CS(cusparseSpGEMM_compute(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd, &b2, w2));
    std::int64_t r = 0, c = 0, nnz = 0;
    CS(cusparseSpMatGetSize(mc, &r, &c, &nnz));
    DevCsr C;
    C.rows = r;
    C.cols = c;
    C.nnz = nnz;
    device_alloc(reinterpret_cast<void**>(&C.rp), (r + 1) * sizeof(I), "C offsets");
    if (cudaMalloc(&C.ci, std::max<std::int64_t>(nnz, 1) * sizeof(I)) != cudaSuccess ||
        cudaMalloc(&C.v, std::max<std::int64_t>(nnz, 1) * sizeof(float)) != cudaSuccess) {
      cudaGetLastError();
      C.release();
      std::fprintf(stderr, "cuSPARSE SpGEMM %s: C (%lld entries) does not fit\n", alg_name(alg),
                   static_cast<long long>(nnz));
      throw std::runtime_error("cusparse oom (C)");
    }
    CS(cusparseCsrSetPointers(mc, C.rp, C.ci, C.v));
    CS(cusparseSpGEMM_copy(h, op, op, &alpha, ma, mb, &beta, mc, CUDA_R_32F, alg, sd));
    CK(cudaDeviceSynchronize());
    cleanup();
    return C;
  } catch (...) {
    cleanup();
    throw;
  }
}

/// cusparse_spgemm with DEFAULT, and where that fails, ALG3 (chunked products, less memory)
/// and then ALG2. `used` is set to the algorithm that ran (kept for the next calls).
DevCsr cusparse_spgemm_any(cusparseHandle_t h, const DevCsr& A, const DevCsr& B,
                           cusparseSpGEMMAlg_t& used) {
  const cusparseSpGEMMAlg_t order[] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG3,
                                       CUSPARSE_SPGEMM_ALG2};
  bool started = false;
  for (const cusparseSpGEMMAlg_t alg : order) {
    if (!started && alg != used) continue;  // resume from the one that ran last time
    started = true;
    try {
      DevCsr C = cusparse_spgemm(h, A, B, alg);
      used = alg;
      return C;
    } catch (const std::exception& e) {
      if (alg == CUSPARSE_SPGEMM_ALG2) throw;
      std::fprintf(stderr, "cuSPARSE SpGEMM %s failed (%s); trying the next algorithm\n",
                   alg_name(alg), e.what());
      CK(cudaDeviceSynchronize());
    }
  }
  throw std::runtime_error("cusparse: no algorithm ran");
}

/// Σ C(i,j) over the entries of C that L also has (a warp per row, binary search in L's row).
__global__ void masked_sum_kernel(std::int64_t rows, const I* crp, const I* cci, const float* cv,
                                  const I* lrp, const I* lci, unsigned long long* total) {
  const std::int64_t r = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (r >= rows) return;
  unsigned long long s = 0;
  for (I k = crp[r] + lane; k < crp[r + 1]; k += 32) {
    const I j = cci[k];
    I lo = lrp[r], hi = lrp[r + 1];
    while (lo < hi) {
      const I mid = (lo + hi) / 2;
      if (lci[mid] < j) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo < lrp[r + 1] && lci[lo] == j) s += static_cast<unsigned long long>(cv[k] + 0.5f);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0 && s != 0) atomicAdd(total, s);
}

/// out[0..rows] = rp[0..rows] - rp[0] (a block of rows as a CSR of its own).
__global__ void rebase_kernel(const I* rp, std::int64_t rows, I* out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k <= rows) out[k] = rp[k] - rp[0];
}

/// Blocks of consecutive rows of L whose products in L·L are at most `budget` each (a row over
/// the budget is a block of its own).
std::vector<std::pair<std::int64_t, std::int64_t>> row_blocks(
    const spindle::Graph<I, spindle::Pattern>& L, std::int64_t budget) {
  std::vector<std::pair<std::int64_t, std::int64_t>> b;
  const auto& rp = L.row_ptr();
  const auto& ci = L.col_idx();
  std::int64_t r0 = 0, sum = 0;
  for (std::int64_t i = 0; i < L.rows(); ++i) {
    std::int64_t p = 0;
    for (I k = rp[i]; k < rp[i + 1]; ++k) p += rp[ci[k] + 1] - rp[ci[k]];
    if (i > r0 && sum + p > budget) {
      b.emplace_back(r0, i);
      r0 = i;
      sum = 0;
    }
    sum += p;
  }
  if (L.rows() > r0) b.emplace_back(r0, L.rows());
  return b;
}

template <class T>
std::vector<T> down(const void* p, std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  if (n > 0) CK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

/// The strictly lower triangle of the undirected simple graph of G after relabelling by
/// increasing degree (ties by id).
spindle::Graph<I, spindle::Pattern> ordered_lower(const spindle::Graph<I, spindle::Pattern>& G) {
  const std::int64_t n = G.rows();
  std::vector<std::pair<I, I>> e;
  for (I i = 0; i < n; ++i) {
    for (I k = G.row_ptr()[i]; k < G.row_ptr()[i + 1]; ++k) {
      const I j = G.col_idx()[k];
      if (i != j) {
        e.emplace_back(i, j);
        e.emplace_back(j, i);
      }
    }
  }
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  std::vector<std::int64_t> deg(static_cast<std::size_t>(n), 0);
  for (const auto& [a, b] : e) ++deg[a];
  std::vector<I> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](I a, I b) { return deg[a] < deg[b]; });
  std::vector<I> rank(static_cast<std::size_t>(n));
  for (I r = 0; r < n; ++r) rank[order[r]] = r;
  std::vector<std::pair<I, I>> l;
  for (const auto& [a, b] : e) {
    if (rank[a] > rank[b]) l.emplace_back(rank[a], rank[b]);
  }
  std::sort(l.begin(), l.end());
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0);
  std::vector<I> ci;
  ci.reserve(l.size());
  for (const auto& [a, b] : l) {
    ++rp[a + 1];
    ci.push_back(b);
  }
  for (std::int64_t i = 0; i < n; ++i) rp[i + 1] += rp[i];
  return spindle::Graph<I, spindle::Pattern>(static_cast<I>(n), static_cast<I>(n), std::move(rp),
                                             std::move(ci));
}

}  // namespace

int main(int argc, char** argv) {
  std::string graphs = "rmat18,rmat19,rmat20";
  std::int64_t edge_factor = 16;
  int runs = 5;
  std::int64_t chunk_products = std::int64_t{1} << 28;
  int e2e_runs = -1;  // default: --runs
  bool square = true, tri = true;
  std::string json;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--graphs") {
      graphs = next();
    } else if (a == "--edge-factor") {
      edge_factor = std::atoll(next().c_str());
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--no-square") {
      square = false;
    } else if (a == "--no-triangles") {
      tri = false;
    } else if (a == "--e2e-runs") {
      e2e_runs = std::max(0, std::atoi(next().c_str()));
    } else if (a == "--chunk-products") {
      chunk_products = std::atoll(next().c_str());
    } else if (a == "--json") {
      json = next();
    } else {
      std::fprintf(stderr, "unknown argument %s (see the file comment)\n", a.c_str());
      return 2;
    }
  }
  if (e2e_runs < 0) e2e_runs = runs;
  if (!spindle::cuda_available()) {
    std::fprintf(stderr, "spindle_bench_spgemm: no CUDA device\n");
    return 2;
  }
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  // The library's stream: its workspaces are allocated and freed in that stream's order.
  const cudaStream_t st = spindle::detail::cuda::context().stream;
  CS(cusparseSetStream(h, st));
  const spindle::DeviceCaps& caps = spindle::device_caps();
  spindle::detail::SpgemmRowwiseConfig cfg;
  cfg.esc_max = spindle::detail::kCudaSpgemmEscMax;
  cfg.table_max = spindle::detail::spgemm_table_max(caps.smem_per_block_optin, 4, 4);
  std::FILE* jf = json.empty() ? nullptr : std::fopen(json.c_str(), "w");
  if (jf) std::fprintf(jf, "[\n");
  bool first = true;
  std::printf("device %s; median of %d runs; ms (ratio = cuSPARSE / Spindle)\n", caps.name.c_str(),
              runs);
  std::printf("%-24s %-10s %12s %12s %10s %10s %8s %14s %s\n", "graph", "op", "rows", "nnz(A)",
              "spindle", "cusparse", "ratio", "result", "check");
  std::size_t pos = 0;
  while (pos <= graphs.size()) {
    const std::size_t comma = std::min(graphs.find(',', pos), graphs.size());
    const std::string name = graphs.substr(pos, comma - pos);
    pos = comma + 1;
    if (name.empty()) continue;
    spindle::Graph<I, spindle::Pattern> G;
    if (name.rfind("rmat", 0) == 0 && name.find('/') == std::string::npos) {
      const int scale = std::atoi(name.c_str() + 4);
      spindle::BuildOptions bo;
      bo.self_loops = spindle::SelfLoopPolicy::Drop;
      G = spindle::build_graph<I, spindle::Pattern>(
          spindle::generate_rmat<I>(scale, edge_factor, 1), bo);
    } else {
      G = spindle::load_graph<I, spindle::Pattern>(name).graph;
    }
    const std::string label = name.substr(name.find_last_of('/') + 1);
    auto row = [&](const char* op, double s_ms, double c_ms, long long result, const char* check) {
      std::printf("%-24s %-10s %12lld %12lld %10.3f %10.3f %8.2f %14lld %s\n", label.c_str(), op,
                  static_cast<long long>(G.rows()), static_cast<long long>(G.nnz()), s_ms, c_ms,
                  c_ms > 0 && s_ms > 0 ? c_ms / s_ms : 0.0, result, check);
      std::fflush(stdout);
      if (jf) {
        std::fprintf(jf,
                     "%s  {\"graph\": \"%s\", \"op\": \"%s\", \"rows\": %lld, \"nnz\": %lld, "
                     "\"spindle_ms\": %.4f, \"cusparse_ms\": %.4f, \"result\": %lld, "
                     "\"check\": \"%s\"}",
                     first ? "" : ",\n", label.c_str(), op, static_cast<long long>(G.rows()),
                     static_cast<long long>(G.nnz()), s_ms, c_ms, result, check);
        first = false;
      }
    };
    if (square && G.rows() == G.cols()) {
      // A·A with values 1 + (i + j) % 7 / 4 (not all ones: sums exercise the values).
      std::vector<float> vals(static_cast<std::size_t>(G.nnz()));
      for (I i = 0; i < G.rows(); ++i) {
        for (I k = G.row_ptr()[i]; k < G.row_ptr()[i + 1]; ++k) {
          vals[k] = 1.0f + static_cast<float>((i + G.col_idx()[k]) % 7) / 4.0f;
        }
      }
      const spindle::Graph<I, float> A(G.rows(), G.cols(), G.row_ptr(), G.col_idx(), vals);
      DevCsr dA = upload(A);
      const spindle::RuntimeSemiring<float> s =
          spindle::runtime_semiring<float>(spindle::SemiringKind::PlusTimes);
      sc::SpgemmDeviceResult mine;
      double s_ms = -1, c_ms = -1;
      std::string check = "ok";
      try {
        s_ms = median_ms(runs, [&] {
          mine = sc::SpgemmDeviceResult{};
          sc::spgemm_device<float, I>(spindle::SpgemmKernel::CudaRowwise, cfg, s, 0.0f, operand(dA),
                                      operand(dA), nullptr, {}, mine, st);
        });
      } catch (const std::exception& e) {
        check = std::string("spindle: ") + e.what();
      }
      if (s_ms >= 0 && mine.nnz > std::int64_t{2147483647}) {
        check = "cuSPARSE not run (nnz over int32)";
      } else {
        try {
          DevCsr theirs;
          cusparseSpGEMMAlg_t used = CUSPARSE_SPGEMM_DEFAULT;
          c_ms = median_ms(runs, [&] {
            theirs.release();
            theirs = cusparse_spgemm_any(h, dA, dA, used);
          });
          if (used != CUSPARSE_SPGEMM_DEFAULT)
            check += std::string(" (cuSPARSE ") + alg_name(used) + ")";
          if (s_ms >= 0) {
            if (theirs.nnz != mine.nnz ||
                down<I>(theirs.rp, theirs.rows + 1) != down<I>(mine.rp.get(), mine.rows + 1) ||
                down<I>(theirs.ci, theirs.nnz) != down<I>(mine.ci.get(), mine.nnz)) {
              check = "STRUCTURE DIFFERS";
            } else {
              const auto a = down<float>(theirs.v, theirs.nnz);
              const auto b = down<float>(mine.v.get(), mine.nnz);
              for (std::size_t k = 0; k < a.size(); ++k) {
                if (std::fabs(a[k] - b[k]) > 1e-4f * std::fabs(a[k]) + 1e-6f) {
                  check = "VALUES DIFFER";
                  break;
                }
              }
            }
          }
          theirs.release();
        } catch (const std::exception& e) {
          check += std::string("; cuSPARSE failed (") + e.what() + ")";
        }
      }
      row("A*A", s_ms, c_ms, static_cast<long long>(mine.nnz), check.c_str());
      mine = sc::SpgemmDeviceResult{};
      mine = sc::SpgemmDeviceResult{};
      dA.release();
    }
    if (tri && G.rows() == G.cols()) {
      const auto L = ordered_lower(G);
      DevCsr dL = upload(L);
      // CPU reference.
      spindle::TriangleOptions o;
      o.device = spindle::Device::Cpu;
      const long long want = spindle::triangles(G, o).total;
      const spindle::RuntimeSemiring<float> pp =
          spindle::runtime_semiring<float>(spindle::SemiringKind::PlusPair);
      const spindle::detail::MaskView<I> mask{dL.rp, dL.ci, false};
      long long got = -1;
      const double s_ms = median_ms(runs, [&] {
        sc::SpgemmDeviceResult c;
        const auto l = operand(dL, false);
        sc::spgemm_device<float, I>(spindle::SpgemmKernel::CudaMaskedDot, cfg, pp, 0.0f, l, l, &l,
                                    mask, c, st);
        const float* v = c.v.as<const float>();
        got = c.nnz == 0 ? 0
                         : static_cast<long long>(thrust::reduce(
                               thrust::cuda::par.on(st), thrust::device_ptr<const float>(v),
                               thrust::device_ptr<const float>(v) + c.nnz, 0.0));
      });
      long long theirs_count = -1;
      double c_ms = -1;
      std::string check = got == want ? "ok" : "SPINDLE COUNT WRONG";
      // cuSPARSE: L·L, then mask and sum; over blocks of L's rows when the whole product does
      // not run (each block: rows [r0, r1) of L with rebased offsets, times all of L).
      const std::vector<std::pair<std::int64_t, std::int64_t>> whole{{0, L.rows()}};
      const auto blocks = row_blocks(L, chunk_products);
      unsigned long long* total = nullptr;
      I* block_rp = nullptr;
      CK(cudaMalloc(&total, sizeof *total));
      CK(cudaMalloc(&block_rp, (L.rows() + 1) * sizeof(I)));
      cusparseSpGEMMAlg_t used = CUSPARSE_SPGEMM_DEFAULT;
      for (const auto* plan : {&whole, &blocks}) {
        if (plan == &blocks && (blocks.size() < 2 || c_ms >= 0)) break;
        try {
          c_ms = median_ms(runs, [&] {
            CK(cudaMemsetAsync(total, 0, sizeof *total, st));
            for (const auto& [r0, r1] : *plan) {
              DevCsr blk;  // aliases dL's arrays, except the rebased offsets
              blk.rows = r1 - r0;
              blk.cols = dL.cols;
              blk.nnz = L.row_ptr()[r1] - L.row_ptr()[r0];
              blk.rp = block_rp;
              blk.ci = dL.ci + L.row_ptr()[r0];
              blk.v = dL.v + L.row_ptr()[r0];
              rebase_kernel<<<static_cast<unsigned>((blk.rows + 256) / 256), 256, 0, st>>>(
                  dL.rp + r0, blk.rows, block_rp);
              CK(cudaGetLastError());
              DevCsr c = cusparse_spgemm_any(h, blk, dL, used);
              masked_sum_kernel<<<static_cast<unsigned>((c.rows * 32 + 255) / 256), 256, 0, st>>>(
                  c.rows, c.rp, c.ci, c.v, dL.rp + r0, dL.ci, total);
              CK(cudaGetLastError());
              c.release();
            }
            unsigned long long t = 0;
            CK(cudaMemcpyAsync(&t, total, sizeof t, cudaMemcpyDeviceToHost, st));
            CK(cudaStreamSynchronize(st));
            theirs_count = static_cast<long long>(t);
          });
          if (used != CUSPARSE_SPGEMM_DEFAULT) check += std::string("; cuSPARSE ") + alg_name(used);
          if (plan == &blocks)
            check += "; cuSPARSE in " + std::to_string(blocks.size()) + " row blocks";
          if (theirs_count != want) check += "; cuSPARSE count differs";
        } catch (const std::exception& e) {
          c_ms = -1;
          CK(cudaDeviceSynchronize());
          check += std::string("; cuSPARSE ") + (plan == &whole ? "whole" : "blocked") +
                   " failed (" + e.what() + ")";
        }
      }
      cudaFree(total);
      cudaFree(block_rp);
      row("triangles", s_ms, c_ms, got, check.c_str());
      if (e2e_runs > 0) {
        spindle::TriangleOptions g;
        g.device = spindle::Device::Cuda;
        long long e2e = -1;
        const double e_ms = median_ms(e2e_runs, [&] { e2e = spindle::triangles(G, g).total; });
        row("tri e2e", e_ms, -1, e2e, e2e == want ? "ok (triangles(), Device::Cuda)" : "WRONG");
      }
      dL.release();
    }
  }
  if (jf) {
    std::fprintf(jf, "\n]\n");
    std::fclose(jf);
  }
  cusparseDestroy(h);
  return 0;
}
