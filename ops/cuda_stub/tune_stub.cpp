// SPDX-License-Identifier: Apache-2.0
// Built when CUDA is off: tuning needs a GPU.
#include "ops/core/instantiate.hpp"
#include "spindle/cuda/tune.hpp"
#include "spindle/error.hpp"

namespace spindle {

template <class S, class I, class V>
TuneResult tune_mxv(const Graph<I, V>&, const TuneOptions&) {
  throw Unsupported("tune_mxv: spindle was built without CUDA");
}

template <class S, class I, class V>
TuneResult tune_vxm(const Graph<I, V>&, const TuneOptions&) {
  throw Unsupported("tune_vxm: spindle was built without CUDA");
}

template <class S, class I, class V>
std::string mxv_fingerprint(const Graph<I, V>&) {
  throw Unsupported("mxv_fingerprint: spindle was built without CUDA");
}

#define SPINDLE_TUNE_STUB_(S, I, V)                                              \
  template TuneResult tune_mxv<S, I, V>(const Graph<I, V>&, const TuneOptions&); \
  template TuneResult tune_vxm<S, I, V>(const Graph<I, V>&, const TuneOptions&); \
  template std::string mxv_fingerprint<S, I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_TUNE_STUB_)

}  // namespace spindle
