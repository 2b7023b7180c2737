// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file assign.hpp
/// @brief Assignment into a vector (GrB_assign).

#include <cstdint>
#include <vector>

#include "spindle/descriptor.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// w<mask>(i) = accum(w(i), s) for every i (GrB_assign with GrB_ALL).
template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, detail::type_identity_t<T> s,
            const Descriptor& desc = {});

/// w<mask>(idx[k]) = accum(w(idx[k]), s) for each k (a repeated index is assigned once).
/// Entries not in idx are kept, except that with replace every entry the mask does not select
/// is removed. Indices must be in range (IndexOutOfBounds). T: float, double, int32, int64.
/// On CUDA it runs on the device: w is never downloaded (a w whose device copy is current stays
/// there and only the list goes up; a host-made w is uploaded first, as for any CUDA op). This
/// is how an algorithm sets a source vertex in a vector that lives on the device.
template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, detail::type_identity_t<T> s,
            const std::vector<std::int64_t>& idx, const Descriptor& desc = {});

/// w<mask>(idx[k]) = u(k), or accum(w(idx[k]), u(k)) with an accumulator; u.size() ==
/// idx.size(). As in GrB_assign, an absent u(k) removes w(idx[k]) (where the mask selects it)
/// without an accumulator and leaves it unchanged with one. Duplicate indices: the last one wins,
/// present or absent (deterministically; GraphBLAS leaves duplicates undefined). Entries not in
/// idx are kept, except that with replace every entry the mask does not select is removed.
/// Indices must be in range. On CUDA it runs on the host (the duplicate rule is a stable sort
/// of the list): w and u are downloaded if their device copies are newer, w goes back up at its
/// next CUDA use.
template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const std::vector<std::int64_t>& idx, const Descriptor& desc = {});

/// w<mask> = accum(w, u) over all indices (u.size() == w.size()).
template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const Descriptor& desc = {});

}  // namespace spindle
