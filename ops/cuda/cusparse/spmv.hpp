// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmv.hpp
/// @brief cuSPARSE SpMV (y = A x over plus_times), the baseline Spindle's kernels are measured
/// against and MxvKernel::Cusparse. Host code; no CUDA header needed by includers.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/src/cuda/graph_device.hpp"

namespace spindle::detail::cuda {

/// Which cusparseSpMV algorithm.
enum class CusparseAlg : std::uint8_t {
  Default,  ///< CUSPARSE_SPMV_ALG_DEFAULT
  CsrAlg2,  ///< CUSPARSE_SPMV_CSR_ALG2 (merge-based, deterministic)
};
const char* to_string(CusparseAlg a);

/// A prepared cusparseSpMV: descriptors created, work buffer sized with
/// cusparseSpMV_bufferSize and allocated, preprocessing done; run() enqueues only the SpMV on
/// Spindle's stream. y is written for every row (0 for empty rows). T: float or double; I: int32
/// or int64. @throws DeviceError with the cuSPARSE status, OutOfMemory.
template <class T, class I>
class CusparseSpmv {
 public:
  CusparseSpmv(const DeviceCsr<I, T>& A, const T* x, T* y, CusparseAlg alg);
  ~CusparseSpmv();
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  void run();
  std::size_t buffer_bytes() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace spindle::detail::cuda
