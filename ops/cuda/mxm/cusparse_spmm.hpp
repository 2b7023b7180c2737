// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file cusparse_spmm.hpp
/// @brief The cuSPARSE baselines of SpMM and SDDMM (plus_times only): a prepared call keeps its
/// descriptors, workspace and preprocessing, so benchmarks time only cusparseSpMM / cusparseSDDMM
/// and the backend's MxmKernel::Cusparse / SddmmKernel::Cusparse reuse the same code. Plain C++
/// (the cuSPARSE types stay inside the .cpp).

#include <cstdint>
#include <memory>

#include "engine/src/cuda/graph_device.hpp"

namespace spindle::detail::cuda {

/// cusparseSpMM algorithms for CSR with row-major B and C.
enum class CusparseSpmmAlg : std::uint8_t { Default, CsrAlg1, CsrAlg2, CsrAlg3 };
inline constexpr CusparseSpmmAlg kCusparseSpmmAlgs[] = {
    CusparseSpmmAlg::Default, CusparseSpmmAlg::CsrAlg1, CusparseSpmmAlg::CsrAlg2,
    CusparseSpmmAlg::CsrAlg3};
const char* to_string(CusparseSpmmAlg alg);

/// C = A·B + beta·C (rows(A) x n, row-major) with one cuSPARSE algorithm, prepared once.
template <class I, class T>
class CusparseSpmm {
 public:
  /// Creates descriptors and workspace and runs cusparseSpMM_preprocess where it applies.
  /// supported() is false when cuSPARSE refuses this algorithm for these shapes.
  /// @throws DeviceError on any other cuSPARSE failure.
  CusparseSpmm(const DeviceCsr<I, T>& A, const T* B, std::int64_t ldb, T* C, std::int64_t ldc,
               std::int64_t n, T beta, CusparseSpmmAlg alg);
  ~CusparseSpmm();
  CusparseSpmm(const CusparseSpmm&) = delete;
  CusparseSpmm& operator=(const CusparseSpmm&) = delete;
  bool supported() const noexcept;
  /// Enqueues cusparseSpMM on the context's stream. @throws DeviceError.
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// out = S_pattern ∘ (X · Yᵀ) (the dot products, not multiplied by S's values) with
/// cusparseSDDMM, prepared once. X: rows(S) x k (ldx), Y: cols(S) x k (ldy), both row-major.
template <class I, class T>
class CusparseSddmm {
 public:
  CusparseSddmm(const DeviceCsr<I, Pattern>& S, const T* X, std::int64_t ldx, const T* Y,
                std::int64_t ldy, std::int64_t k, T* out);
  ~CusparseSddmm();
  CusparseSddmm(const CusparseSddmm&) = delete;
  CusparseSddmm& operator=(const CusparseSddmm&) = delete;
  bool supported() const noexcept;
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spindle::detail::cuda
