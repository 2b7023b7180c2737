// SPDX-License-Identifier: Apache-2.0
// cuBLAS GEMM for row-major dense matrices (gemm.hpp). cuBLAS is column-major: a row-major
// m x n matrix is its column-major n x m transpose, so C = A·B is computed as Cᵀ = Bᵀ·Aᵀ with
// no data movement.
#include "ops/cuda/gemm/gemm.hpp"

#include <cublas_v2.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {

/// One handle per process on the context's stream (never destroyed: see cusparse_spmm.cpp).
// One handle per process, bound to the context's stream; created on first use and destroyed by
// release_device_resources() (recreated by the next call). Callers hold context().mutex.
cublasHandle_t g_handle = nullptr;
void destroy_handle() noexcept {
  if (g_handle != nullptr) cublasDestroy(g_handle);
  g_handle = nullptr;
}
cublasHandle_t handle() {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  if (g_handle == nullptr) {
    cublasHandle_t x = nullptr;
    SPINDLE_CUBLAS_CHECK(cublasCreate(&x));
    if (cublasSetStream(x, context().stream) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(x);
      SPINDLE_CUBLAS_CHECK(CUBLAS_STATUS_INTERNAL_ERROR);
    }
    g_handle = x;
    on_release(&destroy_handle);
  }
  return g_handle;
}

/// SPINDLE_GEMM_TF32=1 lets float GEMMs use TF32 tensor cores (about 4x faster on Hopper, inputs
/// rounded to 10-bit mantissas: relative errors near 1e-3 instead of float rounding). Off by
/// default so results match a CPU BLAS; read on every call so a program can compare both.
bool tf32_requested() {
  const char* v = std::getenv("SPINDLE_GEMM_TF32");
  return v != nullptr && v[0] != '\0' && v[0] != '0';
}

int checked_int(std::int64_t v, const char* what) {
  if (v > INT_MAX) {
    throw Unsupported(std::string("gemm: ") + what + " = " + std::to_string(v) +
                      " exceeds cuBLAS's 32-bit dimensions");
  }
  return static_cast<int>(v);
}

}  // namespace

template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const int m = checked_int(A.rows(), "rows of A");
  const int n = checked_int(B.cols(), "columns of B");
  const int k = checked_int(A.cols(), "inner dimension");
  const T* a = device_in(A);
  const T* b = device_in(B);
  T* c = device_out(C, false);
  if (m > 0 && n > 0) {
    if (k == 0) {
      SPINDLE_CUDA_CHECK(
          cudaMemsetAsync(c, 0, sizeof(T) * static_cast<std::size_t>(m) * n, ctx.stream));
    } else {
      const T one = T(1);
      const T zero = T(0);
      if constexpr (std::is_same_v<T, float>) {
        SPINDLE_CUBLAS_CHECK(cublasSetMathMode(
            handle(), tf32_requested() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
        SPINDLE_CUBLAS_CHECK(cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a,
                                         k, &zero, c, n));
      } else {
        SPINDLE_CUBLAS_CHECK(cublasDgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a,
                                         k, &zero, c, n));
      }
    }
  }
  mark_written(C);
}

template void gemm<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                          const DenseMatrix<float>&);
template void gemm<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                           const DenseMatrix<double>&);

}  // namespace spindle::detail::cuda
