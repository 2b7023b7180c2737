// SPDX-License-Identifier: Apache-2.0
// The host half of the CUDA sliced_coo kernel's layout (ops/cuda/mxv/partition.hpp,
// build_sliced_rows), checked on any build against what the kernel relies on: every entry of A
// sits in exactly one position, in row order; a row never crosses a slot; the head and end flags
// mark each row's first and last position; an empty row is one placeholder (no entry) flagged as
// both; the rest is padding (-1) up to whole blocks; a row longer than a slot is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/cuda/mxv/partition.hpp"

namespace spindle::detail::cuda {
namespace {

template <class I>
std::vector<I> offsets(const std::vector<std::int64_t>& lens) {
  std::vector<I> rp(1, 0);
  for (std::int64_t l : lens) rp.push_back(static_cast<I>(rp.back() + l));
  return rp;
}

template <class I>
void check_layout(const std::vector<std::int64_t>& lens, std::int64_t slot, std::int64_t block) {
  const std::vector<I> rp = offsets<I>(lens);
  const auto n = static_cast<std::int64_t>(lens.size());
  SlicedRows s;
  ASSERT_TRUE(build_sliced_rows(rp.data(), n, slot, block, s));
  ASSERT_EQ(s.src.size(), s.row.size());
  const auto positions = static_cast<std::int64_t>(s.src.size());
  ASSERT_EQ(positions % block, 0) << "padded to whole blocks";
  std::int64_t next_entry = 0;  // entries appear in order, each once
  std::int64_t next_row = 0;    // rows appear in order, each once
  std::int64_t open_row = -1;   // the row whose end flag is still to come
  std::int64_t placeholders = 0;
  for (std::int64_t p = 0; p < positions; ++p) {
    const std::int32_t r = s.row[static_cast<std::size_t>(p)];
    const std::int64_t k = s.src[static_cast<std::size_t>(p)];
    if (r < 0) {
      ASSERT_EQ(k, -1) << "padding holds no entry, position " << p;
      ASSERT_EQ(open_row, -1) << "padding inside row " << open_row;
      continue;
    }
    const std::int64_t row = r & kSlicedRowMask;
    const bool head = (r & kSlicedHead) != 0, end = (r & kSlicedEnd) != 0;
    if (head) {
      ASSERT_EQ(open_row, -1) << "row " << row << " starts inside row " << open_row;
      ASSERT_EQ(row, next_row) << "rows out of order at position " << p;
      open_row = row;
      ++next_row;
    } else {
      ASSERT_EQ(row, open_row) << "position " << p << " continues the wrong row";
      ASSERT_NE(p % slot, 0) << "row " << row << " crosses into the slot at " << p;
    }
    if (lens[static_cast<std::size_t>(row)] == 0) {
      ASSERT_TRUE(head && end) << "an empty row is one placeholder";
      ASSERT_EQ(k, -1);
      ++placeholders;
    } else {
      ASSERT_EQ(k, next_entry) << "entries out of order at position " << p;
      ++next_entry;
      const bool last = k + 1 == static_cast<std::int64_t>(rp[static_cast<std::size_t>(row) + 1]);
      ASSERT_EQ(end, last) << "end flag of row " << row << " at position " << p;
    }
    if (end) open_row = -1;
  }
  EXPECT_EQ(open_row, -1);
  EXPECT_EQ(next_row, n);
  EXPECT_EQ(next_entry, static_cast<std::int64_t>(rp.back()));
  EXPECT_EQ(placeholders, std::count(lens.begin(), lens.end(), std::int64_t{0}));
  // Greedy packing: a slot is closed only when the next row does not fit, so two slots in a row
  // hold more than one slot of entries between them (bounded padding).
  const std::int64_t used_slots = (positions + slot - 1) / slot;
  const std::int64_t real = next_entry + placeholders;
  EXPECT_LE(used_slots, 2 * ((real + slot - 1) / slot) + block / slot);
}

TEST(SlicedRows, LayoutHoldsEveryEntryOnceInWholeRows) {
  std::mt19937_64 rng(5);
  for (std::int64_t slot : {128, 512, 2048}) {
    const std::int64_t block = slot == 128 ? 512 : slot;
    std::vector<std::int64_t> lens;
    for (int i = 0; i < 5000; ++i) {
      const std::uint64_t pick = rng() % 100;
      lens.push_back(pick < 15   ? 0
                     : pick < 90 ? 1 + static_cast<std::int64_t>(rng() % 16)
                                 : static_cast<std::int64_t>(rng() % (slot + 1)));
    }
    lens.push_back(slot);  // exactly one slot
    lens.push_back(0);
    lens.push_back(slot - 1);
    check_layout<std::int32_t>(lens, slot, block);
    check_layout<std::int64_t>(lens, slot, block);
  }
}

TEST(SlicedRows, EdgeCases) {
  check_layout<std::int32_t>({}, 128, 512);               // no rows: no positions
  check_layout<std::int32_t>({0}, 128, 512);              // one empty row
  check_layout<std::int32_t>({0, 0, 0, 0, 0}, 128, 512);  // only empty rows
  check_layout<std::int32_t>({128, 128, 128, 128, 1}, 128, 512);
  check_layout<std::int32_t>({1}, 2048, 2048);
  SlicedRows s;
  const std::vector<std::int32_t> none = offsets<std::int32_t>({});
  ASSERT_TRUE(build_sliced_rows(none.data(), 0, 128, 512, s));
  EXPECT_TRUE(s.src.empty());
}

TEST(SlicedRows, RefusesARowLongerThanASlot) {
  SlicedRows s;
  const std::vector<std::int32_t> rp = offsets<std::int32_t>({3, 129, 2});
  EXPECT_FALSE(build_sliced_rows(rp.data(), 3, 128, 512, s));
  EXPECT_TRUE(build_sliced_rows(rp.data(), 3, 512, 512, s));
}

}  // namespace
}  // namespace spindle::detail::cuda
