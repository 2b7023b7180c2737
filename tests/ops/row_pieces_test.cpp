// SPDX-License-Identifier: Apache-2.0
// The host half of row_cache_seq's split form (ops/cuda/mxm/row_pieces.hpp), checked on any build
// against what the kernels rely on: every entry of a long row lies in exactly one piece, pieces
// are non-empty, at most P long, consecutive and in order, their slots are contiguous per row and
// handed out in row order, and rows of at most P entries get no piece (the row kernel walks them).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/cuda/mxm/row_pieces.hpp"

namespace spindle::detail::cuda {
namespace {

template <class I>
void check_pieces(const std::vector<I>& rp, std::int64_t p) {
  const std::int64_t n = static_cast<std::int64_t>(rp.size()) - 1;
  const RowPieces out = build_row_pieces(rp.data(), n, p);
  const std::int64_t lim = p < 1 ? 1 : p;
  std::vector<std::int64_t> covered(static_cast<std::size_t>(rp[n]), 0);
  std::size_t next_piece = 0;
  std::int64_t slots = 0;
  std::int64_t prev_row = -1;
  for (const RowBlockLong& l : out.longs) {
    const std::int64_t b = rp[l.row];
    const std::int64_t len = rp[l.row + 1] - b;
    ASSERT_GT(l.row, prev_row) << "long rows in order";
    prev_row = l.row;
    ASSERT_GT(len, lim) << "row " << l.row << " needs no pieces";
    ASSERT_EQ(l.first, slots);
    ASSERT_EQ(l.count, (len + lim - 1) / lim) << "fewest pieces of at most P";
    std::int64_t k = b;
    for (std::int64_t i = 0; i < l.count; ++i) {
      ASSERT_LT(next_piece, out.pieces.size());
      const RowPiece& pc = out.pieces[next_piece++];
      ASSERT_EQ(pc.row, l.row);
      ASSERT_EQ(pc.slot, l.first + i);
      ASSERT_EQ(pc.k0, k) << "pieces are consecutive";
      ASSERT_GT(pc.k1, pc.k0);
      ASSERT_LE(pc.k1 - pc.k0, lim);
      for (std::int64_t e = pc.k0; e < pc.k1; ++e) ++covered[static_cast<std::size_t>(e)];
      k = pc.k1;
    }
    ASSERT_EQ(k, rp[l.row + 1]) << "the pieces end where the row ends";
    slots += l.count;
  }
  ASSERT_EQ(next_piece, out.pieces.size());
  ASSERT_EQ(slots, out.slots);
  // Entries of long rows once each, of short rows never.
  for (std::int64_t r = 0; r < n; ++r) {
    const bool is_long = rp[r + 1] - rp[r] > lim;
    for (std::int64_t e = rp[r]; e < rp[r + 1]; ++e) {
      ASSERT_EQ(covered[static_cast<std::size_t>(e)], is_long ? 1 : 0) << "row " << r;
    }
  }
}

TEST(RowPieces, EdgeLengthsAroundThePieceSize) {
  // Rows of 0, P - 1, P, P + 1, 2P, 2P + 1 and 7P - 3 entries, P = 16.
  std::vector<std::int32_t> rp = {0};
  for (int len : {0, 15, 16, 17, 32, 33, 109, 0}) rp.push_back(rp.back() + len);
  check_pieces(rp, 16);
  const RowPieces out = build_row_pieces(rp.data(), static_cast<std::int64_t>(rp.size()) - 1, 16);
  ASSERT_EQ(out.longs.size(), 4u);   // 17, 32, 33 and 109 entries
  EXPECT_EQ(out.longs[0].count, 2);  // 17 = 9 + 8
  EXPECT_EQ(out.pieces[0].k1 - out.pieces[0].k0, 9);
  EXPECT_EQ(out.pieces[1].k1 - out.pieces[1].k0, 8);
  EXPECT_EQ(out.longs[1].count, 2);  // 32 = 16 + 16
  EXPECT_EQ(out.longs[2].count, 3);  // 33 = 11 + 11 + 11
  EXPECT_EQ(out.longs[3].count, 7);  // 109 = 4 x 16 + 3 x 15 (near-equal)
  EXPECT_EQ(out.slots, 14);
  // P = 1: every entry of a row longer than one is its own piece; P < 1 acts as 1.
  check_pieces(rp, 1);
  check_pieces(rp, 0);
  // A P longer than every row: no pieces at all.
  const RowPieces none =
      build_row_pieces(rp.data(), static_cast<std::int64_t>(rp.size()) - 1, 1000);
  EXPECT_TRUE(none.pieces.empty());
  EXPECT_TRUE(none.longs.empty());
  EXPECT_EQ(none.slots, 0);
}

TEST(RowPieces, RandomSkewedRowsWith32And64BitOffsets) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::int64_t> rp64 = {0};
    std::vector<std::int32_t> rp32 = {0};
    const int n = 1 + static_cast<int>(rng() % 300);
    for (int r = 0; r < n; ++r) {
      // Mostly short rows, a few long ones (a power-law shape).
      const std::int64_t len = rng() % 10 == 0 ? static_cast<std::int64_t>(rng() % 3000)
                                               : static_cast<std::int64_t>(rng() % 12);
      rp64.push_back(rp64.back() + len);
      rp32.push_back(static_cast<std::int32_t>(rp64.back()));
    }
    for (std::int64_t p : {1, 3, 16, 64, 5000}) {
      check_pieces(rp64, p);
      check_pieces(rp32, p);
    }
  }
}

}  // namespace
}  // namespace spindle::detail::cuda
