// SPDX-License-Identifier: Apache-2.0
// Host-compiled semiring identities for the CUDA entries (semiring_identity.hpp).
#include "ops/cuda/mxm/semiring_identity.hpp"

#include "ops/core/instantiate.hpp"

namespace spindle::detail::cuda {

template <class S>
typename S::value_type identity_of() {
  return S::identity();
}

#define SPINDLE_IDENTITY_INST_(S, I, V) template S::value_type identity_of<S>();
// One (I, V) suffices: the identity depends on S alone.
SPINDLE_SEMIRINGS_FOR_(SPINDLE_IDENTITY_INST_, float, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_IDENTITY_INST_, double, std::int32_t, float)
#undef SPINDLE_IDENTITY_INST_

}  // namespace spindle::detail::cuda
