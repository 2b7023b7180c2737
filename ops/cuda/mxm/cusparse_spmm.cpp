// SPDX-License-Identifier: Apache-2.0
// cuSPARSE SpMM / SDDMM baselines (cusparse_spmm.hpp).
#include "ops/cuda/mxm/cusparse_spmm.hpp"

#include <cusparse.h>

#include <mutex>
#include <type_traits>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/cusparse/handle.hpp"

namespace spindle::detail::cuda {
namespace {

template <class I>
constexpr cusparseIndexType_t index_type() {
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

template <class T>
constexpr cudaDataType value_type() {
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

cusparseSpMMAlg_t to_cusparse(CusparseSpmmAlg a) {
  switch (a) {
    case CusparseSpmmAlg::Default:
      return CUSPARSE_SPMM_ALG_DEFAULT;
    case CusparseSpmmAlg::CsrAlg1:
      return CUSPARSE_SPMM_CSR_ALG1;
    case CusparseSpmmAlg::CsrAlg2:
      return CUSPARSE_SPMM_CSR_ALG2;
    case CusparseSpmmAlg::CsrAlg3:
      return CUSPARSE_SPMM_CSR_ALG3;
  }
  return CUSPARSE_SPMM_ALG_DEFAULT;
}

/// True for the statuses that mean "this algorithm does not take these arguments".
bool refused(cusparseStatus_t s) {
  return s == CUSPARSE_STATUS_NOT_SUPPORTED || s == CUSPARSE_STATUS_INVALID_VALUE;
}

}  // namespace

const char* to_string(CusparseSpmmAlg alg) {
  switch (alg) {
    case CusparseSpmmAlg::Default:
      return "cusparse_default";
    case CusparseSpmmAlg::CsrAlg1:
      return "cusparse_csr_alg1";
    case CusparseSpmmAlg::CsrAlg2:
      return "cusparse_csr_alg2";
    case CusparseSpmmAlg::CsrAlg3:
      return "cusparse_csr_alg3";
  }
  return "?";
}

// ---- SpMM ------------------------------------------------------------------------------------

template <class I, class T>
struct CusparseSpmm<I, T>::Impl {
  cusparseConstSpMatDescr_t a = nullptr;
  cusparseConstDnMatDescr_t b = nullptr;
  cusparseDnMatDescr_t c = nullptr;
  DeviceBuffer work;
  T alpha = T(1);
  T beta = T(0);
  cusparseSpMMAlg_t alg = CUSPARSE_SPMM_ALG_DEFAULT;
  bool ok = false;
  ~Impl() {
    if (a) cusparseDestroySpMat(a);
    if (b) cusparseDestroyDnMat(b);
    if (c) cusparseDestroyDnMat(c);
  }
};

template <class I, class T>
CusparseSpmm<I, T>::CusparseSpmm(const DeviceCsr<I, T>& A, const T* B, std::int64_t ldb, T* C,
                                 std::int64_t ldc, std::int64_t n, T beta, CusparseSpmmAlg alg)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.beta = beta;
  m.alg = to_cusparse(alg);
  SPINDLE_CUSPARSE_CHECK(cusparseCreateConstCsr(&m.a, A.rows, A.cols, A.nnz, A.row_ptr, A.col_idx,
                                                A.values, index_type<I>(), index_type<I>(),
                                                CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
  SPINDLE_CUSPARSE_CHECK(
      cusparseCreateConstDnMat(&m.b, A.cols, n, ldb, B, value_type<T>(), CUSPARSE_ORDER_ROW));
  SPINDLE_CUSPARSE_CHECK(
      cusparseCreateDnMat(&m.c, A.rows, n, ldc, C, value_type<T>(), CUSPARSE_ORDER_ROW));
  std::size_t bytes = 0;
  cusparseStatus_t s = cusparseSpMM_bufferSize(cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &m.alpha, m.a, m.b,
                                               &m.beta, m.c, value_type<T>(), m.alg, &bytes);
  if (refused(s)) return;
  SPINDLE_CUSPARSE_CHECK(s);
  m.work = DeviceBuffer(bytes, "cuSPARSE SpMM workspace");
  if (alg == CusparseSpmmAlg::CsrAlg1 || alg == CusparseSpmmAlg::CsrAlg3) {
    s = cusparseSpMM_preprocess(cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &m.alpha, m.a, m.b, &m.beta, m.c,
                                value_type<T>(), m.alg, m.work.get());
    if (refused(s)) return;
    SPINDLE_CUSPARSE_CHECK(s);
  }
  m.ok = true;
}

template <class I, class T>
CusparseSpmm<I, T>::~CusparseSpmm() = default;

template <class I, class T>
bool CusparseSpmm<I, T>::supported() const noexcept {
  return impl_->ok;
}

template <class I, class T>
void CusparseSpmm<I, T>::run() {
  Impl& m = *impl_;
  SPINDLE_CUSPARSE_CHECK(cusparseSpMM(cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE, &m.alpha, m.a, m.b, &m.beta,
                                      m.c, value_type<T>(), m.alg, m.work.get()));
}

// ---- SDDMM -----------------------------------------------------------------------------------

template <class I, class T>
struct CusparseSddmm<I, T>::Impl {
  cusparseConstDnMatDescr_t x = nullptr;
  cusparseConstDnMatDescr_t y = nullptr;
  cusparseSpMatDescr_t s = nullptr;
  cusparseOperation_t op_b = CUSPARSE_OPERATION_NON_TRANSPOSE;
  DeviceBuffer work;
  T alpha = T(1);
  T beta = T(0);
  bool ok = false;
  ~Impl() {
    if (x) cusparseDestroyDnMat(x);
    if (y) cusparseDestroyDnMat(y);
    if (s) cusparseDestroySpMat(s);
  }
};

template <class I, class T>
CusparseSddmm<I, T>::CusparseSddmm(const DeviceCsr<I, Pattern>& S, const T* X, std::int64_t ldx,
                                   const T* Y, std::int64_t ldy, std::int64_t k, T* out)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  SPINDLE_CUSPARSE_CHECK(cusparseCreateCsr(
      &m.s, S.rows, S.cols, S.nnz, const_cast<I*>(S.row_ptr), const_cast<I*>(S.col_idx), out,
      index_type<I>(), index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
  SPINDLE_CUSPARSE_CHECK(
      cusparseCreateConstDnMat(&m.x, S.rows, k, ldx, X, value_type<T>(), CUSPARSE_ORDER_ROW));
  // Yᵀ (k x cols) is Y's memory read column-major; if cuSPARSE refuses mixed layouts, describe
  // Y itself (cols x k, row-major) and ask for op(B) = Bᵀ.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (m.y) {
      cusparseDestroyDnMat(m.y);
      m.y = nullptr;
    }
    if (attempt == 0) {
      m.op_b = CUSPARSE_OPERATION_NON_TRANSPOSE;
      SPINDLE_CUSPARSE_CHECK(
          cusparseCreateConstDnMat(&m.y, k, S.cols, ldy, Y, value_type<T>(), CUSPARSE_ORDER_COL));
    } else {
      m.op_b = CUSPARSE_OPERATION_TRANSPOSE;
      SPINDLE_CUSPARSE_CHECK(
          cusparseCreateConstDnMat(&m.y, S.cols, k, ldy, Y, value_type<T>(), CUSPARSE_ORDER_ROW));
    }
    std::size_t bytes = 0;
    cusparseStatus_t st = cusparseSDDMM_bufferSize(
        cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, m.op_b, &m.alpha, m.x, m.y, &m.beta,
        m.s, value_type<T>(), CUSPARSE_SDDMM_ALG_DEFAULT, &bytes);
    if (refused(st)) continue;
    SPINDLE_CUSPARSE_CHECK(st);
    m.work = DeviceBuffer(bytes, "cuSPARSE SDDMM workspace");
    st = cusparseSDDMM_preprocess(cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, m.op_b,
                                  &m.alpha, m.x, m.y, &m.beta, m.s, value_type<T>(),
                                  CUSPARSE_SDDMM_ALG_DEFAULT, m.work.get());
    if (refused(st)) continue;
    SPINDLE_CUSPARSE_CHECK(st);
    m.ok = true;
    return;
  }
}

template <class I, class T>
CusparseSddmm<I, T>::~CusparseSddmm() = default;

template <class I, class T>
bool CusparseSddmm<I, T>::supported() const noexcept {
  return impl_->ok;
}

template <class I, class T>
void CusparseSddmm<I, T>::run() {
  Impl& m = *impl_;
  SPINDLE_CUSPARSE_CHECK(cusparseSDDMM(cusparse_handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, m.op_b,
                                       &m.alpha, m.x, m.y, &m.beta, m.s, value_type<T>(),
                                       CUSPARSE_SDDMM_ALG_DEFAULT, m.work.get()));
}

template class CusparseSpmm<std::int32_t, float>;
template class CusparseSpmm<std::int32_t, double>;
template class CusparseSpmm<std::int64_t, float>;
template class CusparseSpmm<std::int64_t, double>;
template class CusparseSddmm<std::int32_t, float>;
template class CusparseSddmm<std::int32_t, double>;
template class CusparseSddmm<std::int64_t, float>;
template class CusparseSddmm<std::int64_t, double>;

}  // namespace spindle::detail::cuda
