// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test helper shared by the engine and CUDA residency tests.

#include "spindle/cuda/residency.hpp"

namespace spindle::test {

/// Whether a Vector's or DenseMatrix's host array is made: the residency layer sees a null array
/// while it is deferred (spindle/detail/deferred_array.hpp).
template <class C>
bool host_array_made(const C& c) {
  return detail::ResidencyAccess::host(c).values != nullptr;
}

}  // namespace spindle::test
