// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spgemm.hpp
/// @brief Internal pieces of the sparse x sparse mxm: the planner's input and rules, and the CPU
/// kernels' entry (ops/cpu/spgemm.cpp).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spindle/descriptor.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

namespace spindle::detail {

/// a + b, saturating at the largest int64 (product counts of impossible outputs).
inline std::int64_t spgemm_sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

/// What the planner knows about a sparse mxm C<M> = A ⊕.⊗ B (A, B after the transposes).
struct SpgemmInfo {
  SemiringKind semiring = SemiringKind::PlusTimes;
  ValueKind value = ValueKind::Float;
  IndexKind index = IndexKind::Int32;
  std::int64_t rows = 0;   ///< rows of C (and A)
  std::int64_t cols = 0;   ///< columns of C (and B)
  std::int64_t inner = 0;  ///< cols(A) = rows(B)
  std::int64_t nnz_a = 0;
  std::int64_t nnz_b = 0;
  /// Σ over A(i,k) of nnz(B(k,:)): the multiply-adds of the row-wise (Gustavson) form.
  std::int64_t flops = 0;
  std::int64_t max_row_flops = 0;
  std::int64_t nonempty_rows = 0;  ///< rows of C with at least one product
  bool masked = false;
  bool mask_complemented = false;
  std::int64_t mask_entries = 0;  ///< entries the mask selects before its complement
  /// Σ over the mask's entries (i,j) of the cost of intersecting A(i,:) with B(:,j) (the
  /// dot-product form's work; 0 without a plain mask).
  std::int64_t dot_cost = 0;
  bool transpose_b_cached = false;  ///< the dot form's B^T exists already
  Device requested = Device::Auto;
  /// Where it runs: Cuda when requested, or Auto with a CUDA device (see plan_spgemm).
  Device target = Device::Cpu;
  int threads = 1;
  /// The CUDA device's opt-in shared memory per block and global memory (target Cuda).
  std::int64_t smem_per_block = 0;
  std::int64_t device_memory = 0;
};

/// Dense accumulators (values + a marker per column) up to this many bytes per thread are
/// always worth it: they stay in a core's L2 (1-2 MB on the x86 servers we run on), so the
/// scatter costs no more than a hash probe, and no sort of the touched columns is needed.
inline constexpr std::int64_t kDenseAccumCacheBytes = std::int64_t{1} << 20;
/// Beyond the cache size, the dense accumulator still wins when a row's products fill at least
/// 1/kDenseAccumFill of it (the marker array is then reused densely; Nagasaka et al., High-
/// performance sparse matrix-matrix products on Intel KNL and multicore architectures, find
/// hash and dense accumulators close once rows are that full). A first guess, not measured here.
inline constexpr std::int64_t kDenseAccumFill = 16;
/// A dense accumulator is never made beyond this many bytes per thread (forcing it falls back to
/// the hash form): beyond it the workspace competes with the output for memory.
inline constexpr std::int64_t kDenseAccumMaxBytes = std::int64_t{1} << 30;
/// The dot-product form is chosen when its intersection cost (plus building B^T if not cached)
/// is below kDotCostRatio times the row-wise form's products. A step of a sorted intersection
/// (a compare and an unpredictable branch) costs more than a scatter into an accumulator whose
/// marker array stays in cache: on triangle counting of a symmetrized R-MAT 16 (L·L^T masked by
/// L, 2 threads, `spindle_bench_spgemm_cpu --scale 16 --no-square`), the dot form took 2.2 ns
/// per unit of its cost and masked Gustavson 1.4 ns per product, so break-even is near 0.6.
/// SuiteSparse:GraphBLAS makes the same comparison in its mxm method selection (Davis,
/// Algorithm 1000).
inline constexpr double kDotCostRatio = 0.6;

/// Device::Auto runs the sparse mxm on CUDA from this many products (Gustavson's multiply-adds)
/// when a device is present. Below it the operands' upload, the result's download and a dozen
/// launches (about 0.1-1 ms) exceed the CPU's time (about 1 ns per product per thread). A first
/// estimate from those two costs, not a measured crossover.
inline constexpr std::int64_t kCudaSpgemmMinProducts = std::int64_t{1} << 20;
/// The CUDA dot form is chosen when its intersection cost is below this times the row-wise
/// products. The row-wise form on CUDA tests the mask per product by a binary search, which
/// makes its products dearer than on the CPU; taken as 1 until measured.
inline constexpr double kCudaDotCostRatio = 1.0;

/// The CUDA row-wise form's tuning (plan.params: items_per_worker = esc_max, tile = table_max):
/// ESC for rows of at most esc_max products (0: none), shared-memory hash tables up to
/// table_max slots (0: none); rows beyond go to dense slabs of cols(C) values and bits.
struct SpgemmRowwiseConfig {
  int esc_max = 32;
  int table_max = 8192;
};
/// The largest shared-memory table of the row-wise form.
inline constexpr int kCudaSpgemmTableMax = 8192;
/// Rows of at most this many products run ESC in a warp.
inline constexpr int kCudaSpgemmEscMax = 32;
/// The dense slabs of the row-wise form take at most this share of the device's memory.
inline constexpr std::int64_t kCudaSpgemmSlabShare = 8;

/// Bytes of one dense slab: a value (numeric phase) and a bit per column of C.
inline std::int64_t spgemm_slab_bytes(std::int64_t cols, std::int64_t value_bytes, bool values) {
  return (values ? cols * value_bytes : 0) + (cols + 31) / 32 * 4;
}

/// The largest shared-memory table (slots, a power of two from 128 to kCudaSpgemmTableMax; 0:
/// none) whose numeric form (a key of `key_bytes` and a value per slot, for one row) fits
/// `smem_per_block` bytes.
inline int spgemm_table_max(std::int64_t smem_per_block, std::int64_t key_bytes,
                            std::int64_t value_bytes) {
  const int tables[] = {kCudaSpgemmTableMax, 2048, 512, 128};
  const std::int64_t groups[] = {1, 2, 4, 8};  // rows per block of each table's kernel
  for (int t = 0; t < 4; ++t) {
    if (tables[t] * groups[t] * (key_bytes + value_bytes) <= smem_per_block) return tables[t];
  }
  return 0;
}

/// The sparse mxm's plan: the forced kernel where it can run this call, else the rules above.
/// Pure: depends only on its arguments.
Plan plan_spgemm(const SpgemmInfo& info, const Descriptor& desc);

/// Why kernel k cannot run this call ("" when it can).
std::string spgemm_cannot_run(SpgemmKernel k, const SpgemmInfo& info);

/// A CSR view for the kernels: values nullptr means every stored entry is 1.
template <class I, class T>
struct CsrView {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  const I* rp = nullptr;
  const I* ci = nullptr;
  const T* v = nullptr;
  T val(std::int64_t k) const { return v != nullptr ? v[k] : T(1); }
  std::int64_t len(std::int64_t i) const {
    return static_cast<std::int64_t>(rp[i + 1]) - static_cast<std::int64_t>(rp[i]);
  }
};

/// The mask as the kernels read it (rp == nullptr: no mask).
template <class I>
struct MaskView {
  const I* rp = nullptr;
  const I* ci = nullptr;
  bool complement = false;
  bool present() const { return rp != nullptr; }
};

/// A CSR result.
template <class I, class T>
struct CsrArrays {
  std::vector<I> rp;
  std::vector<I> ci;
  std::vector<T> v;
};

/// Products per row (Gustavson's multiply-adds), saturating: flops[i] = Σ_k nnz(B(k,:)).
template <class I, class T>
std::vector<std::int64_t> row_flops(const CsrView<I, T>& A, const CsrView<I, T>& B);

/// Throws InvalidArgument when `entries` do not fit the index type, OutOfMemory when the
/// output's arrays (entries, rows + 1 offsets) exceed the host's memory. `what` says which count
/// it is (exact, or a lower bound).
template <class I, class T>
void check_spgemm_output(std::int64_t entries, std::int64_t rows, std::int64_t cols,
                         const char* what);

/// Runs plan.spgemm: T = A ⊕.⊗ B, restricted to the mask by the masked kernels (the unmasked
/// kernels compute every entry; the caller applies the mask). `flops` from row_flops.
/// Bt is needed by MaskedDot only.
template <class S, class I>
void spgemm_cpu(const Plan& plan, const CsrView<I, typename S::value_type>& A,
                const CsrView<I, typename S::value_type>& B,
                const CsrView<I, typename S::value_type>* Bt, const MaskView<I>& mask,
                const std::vector<std::int64_t>& flops, CsrArrays<I, typename S::value_type>& out);

namespace cuda {
/// Runs a CUDA plan (CudaRowwise, CudaMaskedDot) of the sparse mxm from host arrays: uploads
/// the operands, runs plan.spgemm with the operators of semiring `kind`, downloads T into `out`
/// (rows sorted). In builds without CUDA it throws Unsupported.
template <class T, class I>
void spgemm_cuda_host(const Plan& plan, SemiringKind kind, const CsrView<I, T>& A,
                      const CsrView<I, T>& B, const CsrView<I, T>* Bt, const MaskView<I>& mask,
                      CsrArrays<I, T>& out);

/// Instantiates spgemm_cuda_host for every value x index type (its definition and the stub's).
#define SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_(T, I)                                     \
  template void spgemm_cuda_host<T, I>(const Plan&, SemiringKind, const CsrView<I, T>&, \
                                       const CsrView<I, T>&, const CsrView<I, T>*,      \
                                       const MaskView<I>&, CsrArrays<I, T>&);
#define SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_ALL_             \
  SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_(float, std::int32_t)  \
  SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_(float, std::int64_t)  \
  SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_(double, std::int32_t) \
  SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_(double, std::int64_t)
}  // namespace cuda

}  // namespace spindle::detail
