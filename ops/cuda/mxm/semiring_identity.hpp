// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file semiring_identity.hpp
/// @brief S::identity() evaluated by the host compiler. The built-in semirings' identities call
/// numeric_limits<T>::infinity(), a host constexpr function; instantiating them in a .cu file
/// makes nvcc warn (#20013) once per semiring, so the CUDA entries take the value from here
/// and pass it to the kernels.

namespace spindle::detail::cuda {

/// S::identity() for the built-in semirings (semiring_identity.cpp instantiates them).
template <class S>
typename S::value_type identity_of();

}  // namespace spindle::detail::cuda
