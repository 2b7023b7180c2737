// SPDX-License-Identifier: Apache-2.0
// CPU builds: the CUDA backend's fused-epilogue SpMM (ops/cuda/mxm/mxm_fused.hpp) exists so call
// sites need no #ifdef, and says clearly that this build cannot run it.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

template <class S, class I, class V>
void mxm_fused(const Plan&, DenseMatrix<typename S::value_type>&, Accum, const Graph<I, V>&,
               const DenseMatrix<typename S::value_type>&, const Vector<typename S::value_type>*,
               Unary<typename S::value_type>, bool, bool) {
  throw Unsupported("spindle was built without CUDA: mxm needs --device cpu");
}

#define SPINDLE_INSTANTIATE_FUSED_STUB_(S, I, V)                                             \
  template void mxm_fused<S, I, V>(const Plan&, DenseMatrix<S::value_type>&, Accum,          \
                                   const Graph<I, V>&, const DenseMatrix<S::value_type>&,    \
                                   const Vector<S::value_type>*, Unary<S::value_type>, bool, \
                                   bool);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_FUSED_STUB_)

}  // namespace spindle::detail::cuda

namespace spindle {

template <class S, class I, class V>
TuneResult tune_mxm(const Graph<I, V>&, std::int64_t, const TuneOptions&) {
  throw Unsupported("spindle was built without CUDA: tune_mxm times CUDA kernels");
}

template <class Sr, class I, class V>
TuneResult tune_sddmm(const Graph<I, V>&, std::int64_t, const TuneOptions&) {
  throw Unsupported("spindle was built without CUDA: tune_sddmm times CUDA kernels");
}

#define SPINDLE_INSTANTIATE_TUNE_STUB_(S, I, V)                                                \
  template TuneResult tune_mxm<S, I, V>(const Graph<I, V>&, std::int64_t, const TuneOptions&); \
  template TuneResult tune_sddmm<S, I, V>(const Graph<I, V>&, std::int64_t, const TuneOptions&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_TUNE_STUB_)

}  // namespace spindle
