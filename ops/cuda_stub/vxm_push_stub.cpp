// SPDX-License-Identifier: Apache-2.0
// CPU builds: vxm's push entries (ops/core/vxm_push.hpp) exist so call sites need no #ifdef; the
// planner never reaches them without CUDA (push_candidate needs Device::Cuda).
#include <string>

#include "ops/core/instantiate.hpp"
#include "ops/core/vxm_push.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

template <class T, class I, class V>
PushInput vxm_push_input(const Vector<T>&, const Graph<I, V>&) {
  throw Unsupported("spindle was built without CUDA: vxm's push needs --device cpu");
}

template <class S, class I, class V>
void vxm_push(const Plan&, const PushInput&, Vector<typename S::value_type>&, const Mask&, Accum,
              const Vector<typename S::value_type>&, const Graph<I, V>&, bool) {
  throw Unsupported("spindle was built without CUDA: vxm's push needs --device cpu");
}

#define SPINDLE_STUB_PUSH_(S, I, V)                                                               \
  template void vxm_push<S, I, V>(const Plan&, const PushInput&, Vector<typename S::value_type>&, \
                                  const Mask&, Accum, const Vector<typename S::value_type>&,      \
                                  const Graph<I, V>&, bool);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_STUB_PUSH_)
#undef SPINDLE_STUB_PUSH_

#define SPINDLE_STUB_PUSH_INPUT_(T, I, V) \
  template PushInput vxm_push_input<T, I, V>(const Vector<T>&, const Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_STUB_PUSH_INPUT_)
#undef SPINDLE_STUB_PUSH_INPUT_

}  // namespace spindle::detail::cuda
