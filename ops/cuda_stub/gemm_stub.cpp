// SPDX-License-Identifier: Apache-2.0
// CPU builds: the cuBLAS dense product (ops/cuda/gemm/gemm.hpp) exists so call sites need no
// #ifdef, and says clearly that this build cannot run it.
#include "ops/cuda/gemm/gemm.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

template <class T>
void gemm(DenseMatrix<T>&, const DenseMatrix<T>&, const DenseMatrix<T>&) {
  throw Unsupported("spindle was built without CUDA: gemm needs --device cpu");
}

template <class T>
std::string gemm_tuned(DenseMatrix<T>&, const DenseMatrix<T>&, const DenseMatrix<T>&) {
  throw Unsupported("spindle was built without CUDA: gemm needs --device cpu");
}

bool gemm_tf32_requested() noexcept { return false; }
bool gemm_split_tf32_allowed() noexcept { return true; }

void debug_gemm_force_lt(int) noexcept {}

template void gemm<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                          const DenseMatrix<float>&);
template void gemm<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                           const DenseMatrix<double>&);

template std::string gemm_tuned<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                                       const DenseMatrix<float>&);
template std::string gemm_tuned<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                                        const DenseMatrix<double>&);

}  // namespace spindle::detail::cuda
