// SPDX-License-Identifier: Apache-2.0
/// @file gemm.cpp
/// @brief C = A·B for dense row-major matrices: BLAS when the build found one, else a
/// cache-blocked OpenMP loop. A dense helper for GCN, not a sparse kernel.

#include "spindle/ops/gemm.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ops/cuda/gemm/gemm.hpp"
#include "ops/cuda/gemm/split_tf32.hpp"
#include "ops/cuda/mxm/mxm_project.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/checks.hpp"

#if defined(SPINDLE_HAS_BLAS)
// The Fortran entry points exist in every BLAS (reference, OpenBLAS, MKL, BLIS), unlike cblas.h,
// so we declare them ourselves. LP64 integers; the hidden string lengths follow gfortran's ABI.
extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, std::size_t, std::size_t);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t, std::size_t);
}
#endif

namespace spindle {
namespace {

// Blocks sized so a K-panel of B (kBlockK x kBlockN) stays in L2 while rows of A stream by.
constexpr std::int64_t kBlockK = 128;
constexpr std::int64_t kBlockN = 512;

template <class T>
void gemm_blocked(T* c, const T* a, const T* b, std::int64_t m, std::int64_t n, std::int64_t k) {
  std::fill(c, c + m * n, T(0));
  for (std::int64_t j0 = 0; j0 < n; j0 += kBlockN) {
    const std::int64_t j1 = std::min(n, j0 + kBlockN);
    for (std::int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const std::int64_t k1 = std::min(k, k0 + kBlockK);
      // Each row of C is owned by one thread and summed over k in increasing order: the result
      // does not depend on the thread count.
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < m; ++i) {
        T* ci = c + i * n;
        const T* ai = a + i * k;
        for (std::int64_t kk = k0; kk < k1; ++kk) {
          const T aik = ai[kk];
          const T* bk = b + kk * n;
          for (std::int64_t j = j0; j < j1; ++j) ci[j] += aik * bk[j];
        }
      }
    }
  }
}

#if defined(SPINDLE_HAS_BLAS)
inline bool fits_int(std::int64_t v) { return v <= INT_MAX; }

// Row-major C = A B is column-major Cᵀ = Bᵀ Aᵀ: call gemm with the operands swapped.
inline void blas_gemm(float* c, const float* a, const float* b, int m, int n, int k) {
  const float one = 1.0f, zero = 0.0f;
  sgemm_("N", "N", &n, &m, &k, &one, b, &n, a, &k, &zero, c, &n, 1, 1);
}
inline void blas_gemm(double* c, const double* a, const double* b, int m, int n, int k) {
  const double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &n, &m, &k, &one, b, &n, a, &k, &zero, c, &n, 1, 1);
}
#endif

template <class T>
void check_inner(const DenseMatrix<T>& A, const DenseMatrix<T>& B) {
  if (A.cols() != B.rows()) {
    throw DimensionMismatch("gemm: A is " + std::to_string(A.rows()) + " x " +
                            std::to_string(A.cols()) + " but B is " + std::to_string(B.rows()) +
                            " x " + std::to_string(B.cols()));
  }
}

}  // namespace

bool gemm_uses_blas() noexcept {
#if defined(SPINDLE_HAS_BLAS)
  return true;
#else
  return false;
#endif
}

template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B, Device device) {
  check_inner(A, B);
  const bool cuda = resolve_device(device) == Device::Cuda;
  const std::int64_t m = A.rows(), n = B.cols(), k = A.cols();
  if (!cuda) detail::host_inputs(A, B);  // before C changes: a failed allocation changes nothing
  // C itself when it has the shape (its storage reused), else a replacement moved in at the end.
  detail::OutputStage<DenseMatrix<T>> out =
      detail::prepare_dense_output("gemm", C, m, n, Accum::none(), !cuda);
  if (cuda) {
    // cuBLAS (ops/cuda/gemm); the result stays on the device. CPU builds: a stub that throws.
    detail::cuda::gemm(out.get(), A, B);
    out.commit();
    return;
  }
  if (m > 0 && n > 0) {
    T* c = out.get().data();  // in place: C's host array is made before anything is written
    if (k == 0) {
      std::fill(c, c + m * n, T(0));
#if defined(SPINDLE_HAS_BLAS)
    } else if (fits_int(m) && fits_int(n) && fits_int(k)) {
      blas_gemm(c, A.data(), B.data(), static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k));
#endif
    } else {
      gemm_blocked(c, A.data(), B.data(), m, n, k);
    }
  }
  out.commit();
}

template <class T>
std::string gemm_tuned(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
                       Device device) {
  if (resolve_device(device) != Device::Cuda) {
    gemm(C, A, B, device);
    return {};
  }
  check_inner(A, B);
  detail::OutputStage<DenseMatrix<T>> out =
      detail::prepare_dense_output("gemm", C, A.rows(), B.cols(), Accum::none(), false);
  std::string summary = detail::cuda::gemm_tuned(out.get(), A, B);
  out.commit();
  return summary;
}

template void gemm<float>(DenseMatrix<float>&, const DenseMatrix<float>&, const DenseMatrix<float>&,
                          Device);
template void gemm<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                           const DenseMatrix<double>&, Device);

template std::string gemm_tuned<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                                       const DenseMatrix<float>&, Device);
template std::string gemm_tuned<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                                        const DenseMatrix<double>&, Device);

}  // namespace spindle

// ---- the fused forms (GCN): the CUDA kernels where they apply ---------------------------------

namespace spindle {

template <class T>
bool gemm_relu_gemm_applies(std::int64_t m, std::int64_t k, std::int64_t n1, std::int64_t n2,
                            const Descriptor& desc) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    return resolve_device(desc.device) == Device::Cuda &&
           detail::cuda::split_tf32_mlp_applies(m, k, n1, n2);
  }
}

template <class T>
bool gemm_relu_gemm(DenseMatrix<T>& Tout, const DenseMatrix<T>& A, const DenseMatrix<T>& W1,
                    const Vector<T>* b1, bool relu, const DenseMatrix<T>& W2,
                    const Descriptor& desc) {
  check_inner(A, W1);
  check_inner(W1, W2);
  if (b1 != nullptr && b1->size() != W1.cols()) {
    throw DimensionMismatch("gemm_relu_gemm: the bias has " + std::to_string(b1->size()) +
                            " entries for " + std::to_string(W1.cols()) + " hidden columns");
  }
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    if (resolve_device(desc.device) != Device::Cuda) return false;
    return detail::cuda::gemm_split_tf32_mlp(Tout, A, W1, b1, relu, W2);
  }
}

template <class T, class I>
bool mxm_relu_project(DenseMatrix<T>& Z, const Graph<I, T>& A, const DenseMatrix<T>& B,
                      const Vector<T>& bias, const DenseMatrix<T>& W, const Descriptor& desc) {
  if (resolve_device(desc.device) != Device::Cuda) return false;
  return detail::cuda::mxm_relu_project(Z, A, B, bias, W, desc);
}

#define SPINDLE_FUSED_(T)                                                                         \
  template bool gemm_relu_gemm_applies<T>(std::int64_t, std::int64_t, std::int64_t, std::int64_t, \
                                          const Descriptor&);                                     \
  template bool gemm_relu_gemm<T>(DenseMatrix<T>&, const DenseMatrix<T>&, const DenseMatrix<T>&,  \
                                  const Vector<T>*, bool, const DenseMatrix<T>&,                  \
                                  const Descriptor&);                                             \
  template bool mxm_relu_project<T, std::int32_t>(DenseMatrix<T>&, const Graph<std::int32_t, T>&, \
                                                  const DenseMatrix<T>&, const Vector<T>&,        \
                                                  const DenseMatrix<T>&, const Descriptor&);      \
  template bool mxm_relu_project<T, std::int64_t>(DenseMatrix<T>&, const Graph<std::int64_t, T>&, \
                                                  const DenseMatrix<T>&, const Vector<T>&,        \
                                                  const DenseMatrix<T>&, const Descriptor&);
SPINDLE_FUSED_(float)
SPINDLE_FUSED_(double)
#undef SPINDLE_FUSED_

}  // namespace spindle
