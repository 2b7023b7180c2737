// SPDX-License-Identifier: Apache-2.0
// The host half of the CUDA row_block kernel's partition (ops/cuda/mxv/partition.hpp), checked on
// any build against the rules the kernel relies on: every row is written by exactly one block or
// one long-row entry, blocks hold whole rows of at most 4 x threads entries, long rows are cut
// into consecutive pieces whose partial slots are contiguous, and the lane count fits the block.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block_warp_tasks.hpp"

namespace spindle::detail::cuda {
namespace {

template <class I>
void check_partition(const std::vector<I>& rp, int bt, std::int64_t factor = kRowBlockLongFactor,
                     std::int64_t long_len = 0) {
  const std::int64_t n = static_cast<std::int64_t>(rp.size()) - 1;
  const std::int64_t nb = 4 * static_cast<std::int64_t>(bt);
  const std::int64_t shared_max = long_len > 0 ? long_len : bt;
  const RowBlocks rb = build_row_blocks(rp.data(), n, bt, factor, long_len);
  std::vector<int> written(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> covered(static_cast<std::size_t>(rp[n]), 0);
  const std::int64_t piece = factor * nb;
  std::int64_t next_slot = 0;
  for (const RowBlockDesc& d : rb.desc) {
    ASSERT_GE(d.nk, 0);
    ASSERT_LE(d.nk, d.kind == kRowBlockRows ? nb : piece);

    for (std::int64_t k = d.k0; k < d.k0 + d.nk; ++k) ++covered[static_cast<std::size_t>(k)];
    if (d.kind == kRowBlockRows) {
      ASSERT_GE(d.rows, 1);
      ASSERT_LE(d.rows, nb);
      ASSERT_EQ(d.k0, rp[d.r0]);
      ASSERT_EQ(d.k0 + d.nk, static_cast<std::int64_t>(rp[d.r0 + d.rows]));
      ASSERT_GE(d.slot, 0);
      ASSERT_LE(d.slot, 5);
      for (std::int64_t r = d.r0; r < d.r0 + d.rows; ++r) {
        ASSERT_LE(rp[r + 1] - rp[r], shared_max) << "a long row shares a block";
        ++written[static_cast<std::size_t>(r)];
      }
    } else if (d.kind == kRowBlockSingle) {
      ASSERT_EQ(d.rows, 1);
      ASSERT_EQ(d.nk, rp[d.r0 + 1] - rp[d.r0]);
      ASSERT_GT(d.nk, shared_max);
      ++written[static_cast<std::size_t>(d.r0)];
    } else {
      ASSERT_EQ(d.kind, kRowBlockPiece);
      ASSERT_EQ(d.slot, next_slot) << "piece slots are handed out in order";
      ++next_slot;
    }
  }
  ASSERT_EQ(next_slot, rb.pieces);
  std::int64_t slots = 0;
  for (const RowBlockLong& l : rb.longs) {
    ASSERT_EQ(l.first, slots);
    ASSERT_EQ(l.count, (rp[l.row + 1] - rp[l.row] + piece - 1) / piece);
    ASSERT_GT(rp[l.row + 1] - rp[l.row], piece);
    slots += l.count;
    ++written[static_cast<std::size_t>(l.row)];
  }
  ASSERT_EQ(slots, rb.pieces);
  for (std::int64_t r = 0; r < n; ++r) ASSERT_EQ(written[r], 1) << "row " << r;
  for (std::int64_t k = 0; k < rp[n]; ++k) ASSERT_EQ(covered[k], 1) << "entry " << k;
}

template <class I>
std::vector<I> offsets(const std::vector<std::int64_t>& lens) {
  std::vector<I> rp(1, 0);
  for (std::int64_t l : lens) rp.push_back(static_cast<I>(rp.back() + l));
  return rp;
}

// Up to 5000 rows: 30% empty, most short, some of up to `mid` entries, a few of up to 9000.
std::vector<std::int64_t> random_skewed_lengths(std::mt19937_64& rng, std::uint64_t mid) {
  std::vector<std::int64_t> lens(static_cast<std::size_t>(1 + rng() % 5000));
  for (auto& l : lens) {
    const auto x = rng() % 1000;
    l = x < 300   ? 0
        : x < 950 ? static_cast<std::int64_t>(rng() % 20)
        : x < 995 ? static_cast<std::int64_t>(rng() % mid)
                  : static_cast<std::int64_t>(rng() % 9000);
  }
  return lens;
}

TEST(RowBlockPartition, CoversEveryRowAndEntryOnceForRandomSkewedRows) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<std::int64_t> lens = random_skewed_lengths(rng, 1500);
    check_partition(offsets<std::int32_t>(lens), 128);
    check_partition(offsets<std::int64_t>(lens), 256);
    check_partition(offsets<std::int32_t>(lens), 128, kRowBlockSmallGraphLongFactor);
    check_partition(offsets<std::int32_t>(lens), 256, kRowBlockSmallGraphLongFactor, 64);
  }
}

// SpMM's small-graph partition (spmm_run.cuh): rows of more than 64 entries never share a block,
// so no row block takes extra lanes for a long row.
TEST(RowBlockPartition, ShorterLongRowLimitGivesMidRowsBlocksOfTheirOwn) {
  const std::vector<std::int64_t> lens = {1, 2, 64, 65, 3, 200, 256, 257, 1, 1, 4000, 2};
  const auto rp = offsets<std::int32_t>(lens);
  check_partition(rp, 256, kRowBlockSmallGraphLongFactor, 64);
  const RowBlocks rb = build_row_blocks(rp.data(), static_cast<std::int64_t>(lens.size()), 256,
                                        kRowBlockSmallGraphLongFactor, 64);
  int singles = 0;
  for (const RowBlockDesc& d : rb.desc) {
    if (d.kind == kRowBlockSingle) {
      ++singles;
      EXPECT_GT(d.nk, 64);
    } else if (d.kind == kRowBlockRows) {
      // Lanes come from the row count alone (fill the block in one round), never from a long row.
      int lg = 0;
      while (lg < 5 && std::int64_t{d.rows} * (std::int64_t{2} << lg) <= 256) ++lg;
      EXPECT_EQ(d.slot, lg) << "rows " << d.r0 << "+" << d.rows;
    }
  }
  EXPECT_EQ(singles, 5);  // 65, 200, 256, 257, 4000 (below 8 blocks' worth: no pieces)
  EXPECT_TRUE(rb.longs.empty());
  // A limit at or above the block's threads changes nothing.
  const RowBlocks same = build_row_blocks(rp.data(), static_cast<std::int64_t>(lens.size()), 256,
                                          kRowBlockSmallGraphLongFactor, 512);
  const RowBlocks base = build_row_blocks(rp.data(), static_cast<std::int64_t>(lens.size()), 256,
                                          kRowBlockSmallGraphLongFactor);
  ASSERT_EQ(same.desc.size(), base.desc.size());
  for (std::size_t i = 0; i < same.desc.size(); ++i) {
    EXPECT_EQ(same.desc[i].r0, base.desc[i].r0);
    EXPECT_EQ(same.desc[i].kind, base.desc[i].kind);
  }
}

TEST(RowBlockPartition, EdgeLengthsAroundTheThresholds) {
  for (int bt : {128, 256}) {
    for (std::int64_t factor : {kRowBlockLongFactor, kRowBlockSmallGraphLongFactor}) {
      const std::int64_t nb = 4 * bt;
      const std::int64_t piece = factor * nb;
      const std::vector<std::int64_t> lens = {0,      bt,        bt + 1, nb - 1,        nb,
                                              nb + 1, piece - 1, piece,  piece + 1,     1,
                                              0,      0,         bt,     3 * piece + 5, 2 * piece};
      check_partition(offsets<std::int32_t>(lens), bt, factor);
      const RowBlocks rb = build_row_blocks(offsets<std::int32_t>(lens).data(),
                                            static_cast<std::int64_t>(lens.size()), bt, factor);
      std::size_t want_longs = 0;
      std::int64_t want_pieces = 0;
      for (std::int64_t l : lens) {
        if (l > piece) {
          ++want_longs;
          want_pieces += (l + piece - 1) / piece;
        }
      }
      EXPECT_GE(want_longs, 3u);  // piece + 1, 3 piece + 5, 2 piece at least
      EXPECT_EQ(rb.longs.size(), want_longs);
      EXPECT_EQ(rb.pieces, want_pieces);
    }
  }
}

TEST(RowBlockPartition, LongRunsOfEmptyRowsAreCappedPerBlock) {
  std::vector<std::int64_t> lens(20000, 0);
  lens[10000] = 3;
  check_partition(offsets<std::int32_t>(lens), 128);
  const RowBlocks rb = build_row_blocks(offsets<std::int32_t>(lens).data(), 20000, 128);
  EXPECT_GE(rb.desc.size(), 20000u / 512u);
}

// row_block's warp form (row_block_warp.cuh): row_block's partition for 64-thread blocks (every
// task within the 256 entries a warp's 8 loads per lane cover), with the lanes per row that
// minimize passes x (steps per row + shuffle rounds) for one warp.
TEST(RowBlockPartition, WarpFormTasksFitOneWarpAndTakeTheCheapestLaneCount) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<std::int64_t> lens = random_skewed_lengths(rng, 300);
    const auto rp = offsets<std::int32_t>(lens);
    const std::int64_t n = static_cast<std::int64_t>(lens.size());
    const RowBlocks rb = build_row_block_warps(rp.data(), n);
    const RowBlocks base = build_row_blocks(rp.data(), n, kRowBlockWarpEntries / 4, 1);
    ASSERT_EQ(rb.desc.size(), base.desc.size());
    ASSERT_EQ(rb.pieces, base.pieces);
    check_partition(rp, kRowBlockWarpEntries / 4);
    for (std::size_t i = 0; i < rb.desc.size(); ++i) {
      const RowBlockDesc& d = rb.desc[i];
      ASSERT_LE(d.nk, kRowBlockWarpEntries);
      ASSERT_EQ(d.r0, base.desc[i].r0);
      ASSERT_EQ(d.kind, base.desc[i].kind);
      if (d.kind != kRowBlockRows) {
        ASSERT_EQ(d.slot, base.desc[i].slot);  // pieces keep their partial slots
        continue;
      }
      std::int64_t max_len = 0;
      for (std::int64_t r = d.r0; r < d.r0 + d.rows; ++r) max_len = std::max(max_len, lens[r]);
      auto cost = [&](int lg) {
        const std::int64_t lanes = std::int64_t{1} << lg, per = 32 / lanes;
        return (d.rows + per - 1) / per * ((max_len + lanes - 1) / lanes + lg);
      };
      ASSERT_GE(d.slot, 0);
      ASSERT_LE(d.slot, 5);
      for (int lg = 0; lg <= 5; ++lg) ASSERT_LE(cost(d.slot), cost(lg)) << "rows " << d.r0;
    }
  }
  // 32 rows of 4: one lane each (one pass of 4 steps); 2 rows of 64: 16 lanes each.
  EXPECT_EQ(row_block_warp_lanes_log2(32, 4), 0);
  EXPECT_EQ(row_block_warp_lanes_log2(2, 64), 4);
}

// The simple path's runs (build_row_block_warp_runs): every row in exactly one run or one long-row
// entry, runs of whole rows of at most 256 entries that stop only where the next row would not
// fit (so runs are as full as whole rows allow), rows over 256 entries in pieces of 256 with
// their partial slots in order.
void check_warp_runs(const std::vector<std::int32_t>& rp) {
  const std::int64_t n = static_cast<std::int64_t>(rp.size()) - 1;
  constexpr std::int64_t nb = kRowBlockWarpEntries;
  const RowBlocks rb = build_row_block_warp_runs(rp.data(), n);
  std::vector<int> written(static_cast<std::size_t>(n), 0);
  std::vector<int> covered(static_cast<std::size_t>(rp[n]), 0);
  std::int64_t next_slot = 0;
  for (std::size_t i = 0; i < rb.desc.size(); ++i) {
    const RowBlockDesc& d = rb.desc[i];
    ASSERT_GE(d.nk, 0);
    ASSERT_LE(d.nk, nb);
    for (std::int64_t k = d.k0; k < d.k0 + d.nk; ++k) ++covered[static_cast<std::size_t>(k)];
    if (d.kind == kRowBlockRows) {
      ASSERT_GE(d.rows, 1);
      ASSERT_LE(d.rows, kRowBlockWarpRunRows);
      ASSERT_EQ(d.k0, rp[d.r0]);
      ASSERT_EQ(d.k0 + d.nk, rp[d.r0 + d.rows]);
      for (std::int64_t r = d.r0; r < d.r0 + d.rows; ++r) ++written[static_cast<std::size_t>(r)];
      const std::int64_t end = d.r0 + d.rows;
      if (end < n && d.rows < kRowBlockWarpRunRows) {
        ASSERT_GT(rp[end + 1] - rp[d.r0], nb) << "the run at row " << d.r0 << " stops early";
      }
    } else {
      ASSERT_EQ(d.kind, kRowBlockPiece);
      ASSERT_GT(rp[d.r0 + 1] - rp[d.r0], nb);
      ASSERT_EQ(d.slot, next_slot);
      ++next_slot;
    }
  }
  ASSERT_EQ(next_slot, rb.pieces);
  std::int64_t slots = 0;
  for (const RowBlockLong& l : rb.longs) {
    ASSERT_EQ(l.first, slots);
    ASSERT_EQ(l.count, (rp[l.row + 1] - rp[l.row] + nb - 1) / nb);
    slots += l.count;
    ++written[static_cast<std::size_t>(l.row)];
  }
  for (std::int64_t r = 0; r < n; ++r) ASSERT_EQ(written[r], 1) << "row " << r;
  for (std::int64_t k = 0; k < rp[n]; ++k) ASSERT_EQ(covered[k], 1) << "entry " << k;
}

TEST(RowBlockPartition, WarpRunsHoldWholeRowsUpTo256EntriesWhateverTheirLengths) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    check_warp_runs(offsets<std::int32_t>(random_skewed_lengths(rng, 300)));
  }
  // Lengths around the limits: 255, 256 (a run of one), 257 (two pieces), then short rows that
  // share runs with rows of 100-200 entries (build_row_block_warps gives those tasks of their own).
  const auto rp =
      offsets<std::int32_t>({0, 255, 1, 256, 257, 0, 0, 3, 150, 100, 2, 200, 56, 512, 0});
  check_warp_runs(rp);
  const RowBlocks rb = build_row_block_warp_runs(rp.data(), 15);
  ASSERT_EQ(rb.longs.size(), 2U);
  EXPECT_EQ(rb.longs[0].row, 4);
  EXPECT_EQ(rb.longs[0].count, 2);
  EXPECT_EQ(rb.longs[1].row, 13);
  EXPECT_EQ(rb.longs[1].count, 2);
  // Rows 0-2 (256 entries), row 3 (256), pieces of row 4 (256 + 1), rows 5-10 (255: row 11 would
  // make 455), rows 11-12 (256), pieces of row 13, row 14 (empty, alone at the end).
  std::vector<std::pair<std::int64_t, std::int32_t>> runs;
  for (const RowBlockDesc& d : rb.desc) {
    if (d.kind == kRowBlockRows) runs.emplace_back(d.r0, d.rows);
  }
  const std::vector<std::pair<std::int64_t, std::int32_t>> want = {
      {0, 3}, {3, 1}, {5, 6}, {11, 2}, {14, 1}};
  EXPECT_EQ(runs, want);
  // A long stretch of empty rows is cut at kRowBlockWarpRunRows rows per run.
  std::vector<std::int64_t> empties(static_cast<std::size_t>(kRowBlockWarpRunRows + 5), 0);
  empties[3] = 7;
  check_warp_runs(offsets<std::int32_t>(empties));
  EXPECT_EQ(build_row_block_warp_runs(offsets<std::int32_t>(empties).data(),
                                      static_cast<std::int64_t>(empties.size()))
                .desc.size(),
            2U);
}

TEST(RowBlockPartition, EmptyGraphHasNoBlocks) {
  const std::vector<std::int32_t> rp = {0};
  const RowBlocks rb = build_row_blocks(rp.data(), 0, 256);
  EXPECT_TRUE(rb.desc.empty());
  EXPECT_TRUE(rb.longs.empty());
  EXPECT_EQ(rb.pieces, 0);
  EXPECT_TRUE(build_row_block_warp_runs(rp.data(), 0).desc.empty());
}

}  // namespace
}  // namespace spindle::detail::cuda
