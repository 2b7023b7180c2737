// SPDX-License-Identifier: Apache-2.0
// cuSPARSE SpMV wrapper (see spmv.hpp).
#include "ops/cuda/cusparse/spmv.hpp"

#include <cusparse.h>

#include <mutex>
#include <type_traits>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/cusparse/handle.hpp"

namespace spindle::detail::cuda {
namespace {

cusparseSpMVAlg_t alg_of(CusparseAlg a) {
  return a == CusparseAlg::CsrAlg2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_ALG_DEFAULT;
}

}  // namespace

const char* to_string(CusparseAlg a) {
  return a == CusparseAlg::CsrAlg2 ? "cusparse_csr_alg2" : "cusparse_default";
}

template <class T, class I>
struct CusparseSpmv<T, I>::State {
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr;
  cusparseDnVecDescr_t vy = nullptr;
  cusparseSpMVAlg_t alg = CUSPARSE_SPMV_ALG_DEFAULT;
  DeviceBuffer buffer;
  T alpha = T(1);
  T beta = T(0);
};

template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(const DeviceCsr<I, T>& A, const T* x, T* y, CusparseAlg alg)
    : s_(std::make_unique<State>()) {
  constexpr cudaDataType dt = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
  constexpr cusparseIndexType_t it =
      std::is_same_v<I, std::int32_t> ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  cusparseHandle_t h = cusparse_handle();
  SPINDLE_CUSPARSE_CHECK(cusparseCreateCsr(
      &s_->mat, A.rows, A.cols, A.nnz, const_cast<I*>(A.row_ptr), const_cast<I*>(A.col_idx),
      const_cast<T*>(A.values), it, it, CUSPARSE_INDEX_BASE_ZERO, dt));
  SPINDLE_CUSPARSE_CHECK(cusparseCreateDnVec(&s_->vx, A.cols, const_cast<T*>(x), dt));
  SPINDLE_CUSPARSE_CHECK(cusparseCreateDnVec(&s_->vy, A.rows, y, dt));
  s_->alg = alg_of(alg);
  std::size_t bytes = 0;
  SPINDLE_CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &s_->alpha,
                                                 s_->mat, s_->vx, &s_->beta, s_->vy, dt, s_->alg,
                                                 &bytes));
  s_->buffer = DeviceBuffer(bytes, "cusparseSpMV buffer");
  SPINDLE_CUSPARSE_CHECK(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &s_->alpha,
                                                 s_->mat, s_->vx, &s_->beta, s_->vy, dt, s_->alg,
                                                 s_->buffer.get()));
}

template <class T, class I>
CusparseSpmv<T, I>::~CusparseSpmv() {
  if (s_->vy) cusparseDestroyDnVec(s_->vy);
  if (s_->vx) cusparseDestroyDnVec(s_->vx);
  if (s_->mat) cusparseDestroySpMat(s_->mat);
}

template <class T, class I>
void CusparseSpmv<T, I>::run() {
  constexpr cudaDataType dt = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
  cusparseHandle_t h = cusparse_handle();
  SPINDLE_CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &s_->alpha, s_->mat,
                                      s_->vx, &s_->beta, s_->vy, dt, s_->alg, s_->buffer.get()));
}

template <class T, class I>
std::size_t CusparseSpmv<T, I>::buffer_bytes() const noexcept {
  return s_->buffer.bytes();
}

template class CusparseSpmv<float, std::int32_t>;
template class CusparseSpmv<float, std::int64_t>;
template class CusparseSpmv<double, std::int32_t>;
template class CusparseSpmv<double, std::int64_t>;

}  // namespace spindle::detail::cuda
