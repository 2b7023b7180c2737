// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file assign_impl.hpp
/// @brief CPU kernels of GrB_assign into a vector: a scalar or a vector, to every index or to an
/// index list. Index lists are range-checked by the caller. For an index list, entries outside
/// the list keep their value unless the mask does not select them and replace is set; on the
/// list, Z(idx) = u (GrB_assign without accumulator: where u(k) is absent, w(idx[k]) is removed
/// if the mask selects it) or Z(idx) = accum(w(idx), u) (absent u(k): w(idx[k]) unchanged).

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "spindle/debug/allocation.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/output.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

/// w<mask>(i) = accum(w(i), s) for every i.
template <class T>
void assign_scalar_all(Vector<T>& w, const Mask& mask, Accum accum, T s, bool replace) {
  if (mask.empty() && !accum.enabled) {
    T* wv = w.data();
    for_each_index_block(w.size(),
                         [&](std::int64_t i0, std::int64_t i1) { std::fill(wv + i0, wv + i1, s); });
    w.bitmap().clear();
    return;
  }
  write_indexwise(w, mask, accum, replace, [&](std::int64_t, T& t) {
    t = s;
    return true;
  });
}

/// w<mask> = accum(w, u) over all indices (u of w's size).
template <class T>
void assign_vector_all(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
                       bool replace) {
  if (mask.empty() && !accum.enabled) {
    if (&w != &u) w = u;
    return;
  }
  const T* uv = u.data();
  const std::uint8_t* up = u.bitmap_ptr();
  write_indexwise(w, mask, accum, replace, [&](std::int64_t i, T& t) {
    if (up != nullptr && up[i] == 0) return false;
    t = uv[i];
    return true;
  });
}

/// Writes t into w at distinct targets (sorted (index, value) pairs): GrB_assign's output step
/// restricted to an index list. `absent` (empty: none) marks targets whose t is absent: without
/// an accumulator a selected one removes w's entry, with one it leaves it. The mask is read for
/// every target before w changes; with replace, every unselected entry of w (on the list or
/// not) is removed.
template <class T>
void assign_targets(Vector<T>& w, const Mask& mask_in, Accum accum,
                    const std::vector<std::pair<std::int64_t, T>>& targets, bool replace,
                    const std::vector<std::uint8_t>& absent = {}) {
  const Mask mask = mask_in.resolved_on_host();  // selects() on its fast path
  std::vector<std::uint8_t> selected(targets.size(), 1);
  if (!mask.empty()) {
    for (std::size_t k = 0; k < targets.size(); ++k) {
      selected[k] = mask.selects(targets[k].first) ? 1 : 0;
    }
  }
  // Everything w's writes allocate comes before the first of them (OutOfMemory then leaves w as it
  // was): its host array, and the bitmap a removal from a full w needs.
  w.sync_to_host();
  bool removes = false;
  for (std::size_t k = 0; k < absent.size() && !removes; ++k) {
    removes = selected[k] != 0 && absent[k] != 0;
  }
  if (w.is_full() && ((removes && !accum.enabled) || (replace && !mask.empty()))) {
    w.bitmap() = workspace<std::uint8_t>(static_cast<std::size_t>(w.size()), std::uint8_t{1},
                                         "assign output bitmap");
  }
  if (!mask.empty()) {
    if (replace) {
      // Removing unselected entries reads mask(i) before writing w(i) at each i, so a mask
      // built from w itself stays valid.
      if (w.is_full()) w.bitmap().assign(static_cast<std::size_t>(w.size()), 1);
      std::uint8_t* wp = w.bitmap().data();
      for_each_index_block(w.size(), [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) {
          if (!mask.selects(i)) wp[i] = 0;
        }
      });
    }
  }
  for (std::size_t k = 0; k < targets.size(); ++k) {
    if (selected[k] == 0) continue;
    const std::int64_t i = targets[k].first;
    if (!absent.empty() && absent[k] != 0) {
      if (!accum.enabled && w.present(i)) w.remove(i);
      continue;
    }
    if (accum.enabled && w.present(i)) {
      w[i] = apply_binary(accum.op, w[i], targets[k].second);
    } else {
      w.set(i, targets[k].second);
    }
  }
  w.compact();
}

/// w<mask>(idx[k]) = accum(w(idx[k]), s); repeated indices are assigned once.
template <class T>
void assign_scalar_list(Vector<T>& w, const Mask& mask, Accum accum, T s,
                        const std::vector<std::int64_t>& idx, bool replace) {
  std::vector<std::pair<std::int64_t, T>> targets;
  targets.reserve(idx.size());
  for (std::int64_t i : idx) targets.emplace_back(i, s);
  std::sort(targets.begin(), targets.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  targets.erase(std::unique(targets.begin(), targets.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                targets.end());
  assign_targets(w, mask, accum, targets, replace);
}

/// w<mask>(idx[k]) = u(k), or accum(w(idx[k]), u(k)) with an accumulator (GrB_assign): an
/// absent u(k) removes w(idx[k]) without an accumulator and leaves it with one. For a repeated
/// index the last k wins, present or not. u is read completely before w changes, so u may alias
/// w.
template <class T>
void assign_vector_list(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
                        const std::vector<std::int64_t>& idx, bool replace) {
  struct Target {
    std::int64_t i;
    T v;
    bool present;
  };
  std::vector<Target> targets;
  targets.reserve(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const auto kk = static_cast<std::int64_t>(k);
    const bool p = u.present(kk);
    targets.push_back({idx[k], p ? u[kk] : T{}, p});
  }
  // Stable: among equal indices the list order is kept, and the last of each run is taken.
  std::stable_sort(targets.begin(), targets.end(),
                   [](const Target& a, const Target& b) { return a.i < b.i; });
  std::vector<std::pair<std::int64_t, T>> last;
  std::vector<std::uint8_t> absent;
  last.reserve(targets.size());
  absent.reserve(targets.size());
  for (std::size_t k = 0; k < targets.size(); ++k) {
    if (k + 1 < targets.size() && targets[k + 1].i == targets[k].i) continue;
    last.emplace_back(targets[k].i, targets[k].v);
    absent.push_back(targets[k].present ? 0 : 1);
  }
  assign_targets(w, mask, accum, last, replace, absent);
}

}  // namespace spindle::detail::cpu_kernels
