// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file output.hpp
/// @brief The GraphBLAS output step for vectors, shared by every CPU kernel with a vector result:
/// given the computed t(i) (present or absent), w<mask> = accum(w, t) with the replace flag.
///
/// Per index i:
///   - the mask does not select i: w(i) is kept, or removed with replace;
///   - selected, no accumulator: w(i) = t(i), or removed when t(i) is absent;
///   - selected, accumulator: w(i) = accum(w(i), t(i)) where both exist, t(i) where only t(i)
///     exists, unchanged where t(i) is absent.
/// Each index is read (mask, inputs) before it is written, so w may alias an input vector or the
/// mask's vector as long as t(i) depends only on index i of that vector.

#include <cstdint>

#include "spindle/debug/allocation.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

template <class T>
class VectorOutput {
 public:
  /// Switches w to bitmap storage for the duration (finish() drops the bitmap again when every
  /// entry ended up present). A full w gets an all-present bitmap, so a mask or input aliasing w
  /// still reads the values it had on entry.
  VectorOutput(Vector<T>& w, const Mask& mask, Accum accum, bool replace)
      : w_(w),
        mask_(mask.resolved_on_host()),
        accum_(accum),
        replace_(replace),
        all_selected_(mask.empty()) {
    if (w.is_full()) {
      host_allocation(static_cast<std::uint64_t>(w.size()), "output bitmap",
                      [&] { w.bitmap().assign(static_cast<std::size_t>(w.size()), 1); });
    }
    wv_ = w.data();
    wp_ = w.bitmap().data();
  }

  /// Handles index i: if the mask selects it, t_at(T& t) -> bool computes t(i) and says whether
  /// it is present; t_at is not called for unselected indices.
  template <class F>
  void visit(std::int64_t i, F&& t_at) const {
    if (!all_selected_ && !mask_.selects(i)) {
      if (replace_) wp_[i] = 0;
      return;
    }
    T t{};
    const bool present = t_at(t);
    put(i, t, present);
  }

  /// Writes t(i) at a selected index i.
  void put(std::int64_t i, T t, bool present) const {
    if (accum_.enabled) {
      if (!present) return;
      if (wp_[i] != 0) {
        wv_[i] = apply_binary(accum_.op, wv_[i], t);
      } else {
        wv_[i] = t;
        wp_[i] = 1;
      }
    } else if (present) {
      wv_[i] = t;
      wp_[i] = 1;
    } else {
      wp_[i] = 0;
    }
  }

  /// Returns w to full storage when every entry is present.
  void finish() { w_.compact(); }

 private:
  Vector<T>& w_;
  Mask mask_;  // host pointers resolved once (selects() on its fast path)
  Accum accum_;
  bool replace_;
  bool all_selected_;
  T* wv_ = nullptr;
  std::uint8_t* wp_ = nullptr;
};

/// w<mask> = accum(w, t) for an index-wise t: t_at(i, T& t) -> bool, run in parallel.
template <class T, class F>
void write_indexwise(Vector<T>& w, const Mask& mask, Accum accum, bool replace, F&& t_at) {
  VectorOutput<T> out(w, mask, accum, replace);
  for_each_index_block(w.size(), [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      out.visit(i, [&](T& t) { return t_at(i, t); });
    }
  });
  out.finish();
}

/// The output step for a t with no entries (nnz = 0 products, empty inputs): selected entries
/// are removed without an accumulator and kept with one; unselected ones follow replace.
template <class T>
void write_empty_result(Vector<T>& w, const Mask& mask, Accum accum, bool replace) {
  if (accum.enabled && (mask.empty() || !replace)) return;  // nothing can change
  if (mask.empty()) {
    w.clear();
    return;
  }
  write_indexwise(w, mask, accum, replace, [](std::int64_t, T&) { return false; });
}

}  // namespace spindle::detail::cpu_kernels
