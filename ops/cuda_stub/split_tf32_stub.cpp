// SPDX-License-Identifier: Apache-2.0
// CPU builds: the split-TF32 GEMM (ops/cuda/gemm/split_tf32.hpp) exists so call sites and tests
// need no #ifdef; it applies nowhere and says clearly that this build cannot run it.
#include "ops/cuda/gemm/split_tf32.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

bool split_tf32_applies(int, int, int, const float*, const float*, const float*) { return false; }

void gemm_split_tf32(int, int, int, const float*, const float*, float*, CUstream_st*) {
  throw Unsupported("spindle was built without CUDA: the split-TF32 GEMM needs a CUDA build");
}

bool debug_split_tf32_gemm(DenseMatrix<float>&, const DenseMatrix<float>&,
                           const DenseMatrix<float>&) {
  throw Unsupported("spindle was built without CUDA: the split-TF32 GEMM needs a CUDA build");
}

bool split_tf32_has_wgmma() noexcept { return false; }

bool gemm_split_tf32_mlp(DenseMatrix<float>&, const DenseMatrix<float>&, const DenseMatrix<float>&,
                         const Vector<float>*, bool, const DenseMatrix<float>&) {
  return false;
}

bool split_tf32_mlp_applies(std::int64_t, std::int64_t, std::int64_t, std::int64_t) {
  return false;
}

const char* split_tf32_blocking(int, int) noexcept { return ""; }

int debug_split_tf32_blockings() noexcept { return 0; }

const char* debug_split_tf32_force(int) noexcept { return nullptr; }

}  // namespace spindle::detail::cuda
