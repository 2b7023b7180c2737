// SPDX-License-Identifier: Apache-2.0
// The device output rule (ops/cuda/common/output_rule.hpp) against GraphBLAS's output step
// simulated on small vectors: for every flag combination, the rule calls a result full exactly
// when every mask, term pattern and old w that the flags allow gives a full result.
#include <gtest/gtest.h>

#include <string>

#include "ops/cuda/common/output_rule.hpp"

namespace {

using spindle::detail::cuda::output_rule;

constexpr int kN = 3;

bool bit(int pattern, int i) { return ((pattern >> i) & 1) != 0; }

// Whether w<mask> = accum(w, t) is full for every allowed mask / t / old-w pattern on kN entries.
// old_full: the old w has every entry (else: at least one is absent).
bool always_full(bool no_mask, bool accum, bool replace, bool t_full, bool old_full) {
  const int all = (1 << kN) - 1;
  for (int mask = 0; mask <= all; ++mask) {
    if (no_mask && mask != all) continue;
    for (int t = 0; t <= all; ++t) {
      if (t_full && t != all) continue;
      for (int old = 0; old <= all; ++old) {
        if (old_full != (old == all)) continue;
        for (int i = 0; i < kN; ++i) {
          bool present;
          if (bit(mask, i)) {
            present = accum ? (bit(t, i) || bit(old, i)) : bit(t, i);
          } else {
            present = !replace && bit(old, i);
          }
          if (!present) return false;
        }
      }
    }
  }
  return true;
}

TEST(OutputRule, CallsAResultFullExactlyWhenEveryAllowedCaseIsFull) {
  for (int f = 0; f < 16; ++f) {
    const bool no_mask = bit(f, 0), accum = bit(f, 1), replace = bit(f, 2), t_full = bit(f, 3);
    const auto r = output_rule(no_mask, accum, replace, t_full);
    const std::string what = "no_mask " + std::to_string(no_mask) + " accum " +
                             std::to_string(accum) + " replace " + std::to_string(replace) +
                             " t_full " + std::to_string(t_full);
    EXPECT_EQ(r.keep_old, accum || (!no_mask && !replace)) << what;
    EXPECT_EQ(r.result_full(true), always_full(no_mask, accum, replace, t_full, true)) << what;
    if (r.keep_old) {
      EXPECT_EQ(r.result_full(false), always_full(no_mask, accum, replace, t_full, false)) << what;
    }
    // A presence array is asked for exactly when a full old w can give a result with holes.
    EXPECT_EQ(r.may_be_sparse(), !always_full(no_mask, accum, replace, t_full, true)) << what;
  }
}

TEST(OutputRule, MaskedCallsOverAFullOutputNeedNoPresenceUnlessTheyCanMakeHoles) {
  // w<m> = t with a term on every row, no replace: unselected rows keep their (present) values.
  EXPECT_FALSE(output_rule(false, false, false, true).may_be_sparse());
  // w += t (no mask): rows without a term keep theirs.
  EXPECT_FALSE(output_rule(true, true, false, false).may_be_sparse());
  // replace empties unselected rows; a missing term empties a selected row.
  EXPECT_TRUE(output_rule(false, false, true, true).may_be_sparse());
  EXPECT_TRUE(output_rule(false, false, false, false).may_be_sparse());
  EXPECT_TRUE(output_rule(true, false, false, false).may_be_sparse());
}

}  // namespace
