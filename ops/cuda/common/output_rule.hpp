// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file output_rule.hpp
/// @brief What the GraphBLAS output step w<mask> = accum(w, t) needs from w on the device, and
/// whether its result is full: one rule for every CUDA operation with a vector result (mxv / vxm,
/// the index-wise operations, reduce_rows). Plain host code, tested on CPU-only builds
/// (tests/ops/output_rule_test.cpp).
///
/// A device vector is full (no presence bytes) or a bitmap. An operation asks device_out for a
/// presence array only when its result can have absent entries; asking for one over a full old w
/// costs a memset that marks every old entry present, and a presence write per row. Before this
/// rule, every masked call and every accumulating call over a graph with empty rows asked for
/// one, although the result of `w<m> += t` or of `w<m> = t` with a term on every row (no replace)
/// is full whenever the old w is: the memset was one extra launch per call on launch-bound graphs
/// (H200: 1-2 us of device time and 3-6 us of host time per masked call).

namespace spindle::detail::cuda {

struct OutputRule {
  /// The old w is read: an accumulator, or a mask without replace (unselected entries stay).
  bool keep_old = false;
  /// The result is full whenever the old w is (or whenever, when the old w is not read).
  bool full_if_old_full = false;
  /// The result is full even when the old w has absent entries.
  bool full_if_old_sparse = false;

  /// Whether the result is full, given whether the old w was (ignored when it is not read).
  bool result_full(bool old_full) const noexcept {
    return old_full ? full_if_old_full : full_if_old_sparse;
  }
  /// device_out's may_be_sparse: a presence array is needed over a full old w.
  bool may_be_sparse() const noexcept { return !full_if_old_full; }
};

/// no_mask: no mask and not complemented (every entry selected). t_full: t(i) exists for every i.
inline OutputRule output_rule(bool no_mask, bool accum, bool replace, bool t_full) noexcept {
  OutputRule r;
  r.keep_old = accum || (!no_mask && !replace);
  if (no_mask) {
    // Every entry is written: t(i) where it exists; where it does not, the old w(i) with an
    // accumulator (present exactly when it was) and nothing (absent) without one.
    r.full_if_old_full = accum || t_full;
    r.full_if_old_sparse = t_full;
  } else {
    // Unselected entries keep the old w (replace: become absent); selected ones as above.
    r.full_if_old_full = !replace && (accum || t_full);
    r.full_if_old_sparse = false;
  }
  if (!r.keep_old) r.full_if_old_full = r.full_if_old_sparse;  // the old w does not matter
  return r;
}

}  // namespace spindle::detail::cuda
