// SPDX-License-Identifier: Apache-2.0
// Narrowing is always checked: checked_cast / checked_mul against an exact 128-bit oracle for
// every pair of integer types Spindle converts between, at and around every limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "spindle/types.hpp"

namespace spindle {
namespace {

// __extension__ keeps -Wpedantic quiet: the 128-bit type is the exact oracle.
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// Values around the limits of every type involved, plus seeded random ones.
std::vector<i128> probe_values() {
  std::vector<i128> v;
  const i128 edges[] = {0,
                        1,
                        -1,
                        std::numeric_limits<std::int8_t>::min(),
                        std::numeric_limits<std::int8_t>::max(),
                        std::numeric_limits<std::uint8_t>::max(),
                        std::numeric_limits<std::int32_t>::min(),
                        std::numeric_limits<std::int32_t>::max(),
                        std::numeric_limits<std::uint32_t>::max(),
                        std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max(),
                        static_cast<i128>(std::numeric_limits<std::uint64_t>::max())};
  for (i128 e : edges) {
    for (int d = -2; d <= 2; ++d) v.push_back(e + d);
  }
  std::mt19937_64 rng(20240611);
  for (int k = 0; k < 200; ++k) {
    v.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 64));
    v.push_back(static_cast<i128>(rng() >> (rng() % 64)));
  }
  return v;
}

template <class T>
bool representable(i128 x) {
  return x >= static_cast<i128>(std::numeric_limits<T>::min()) &&
         x <= static_cast<i128>(std::numeric_limits<T>::max());
}

// For every From value in the probe set: checked_cast<To> returns the same number exactly when
// the oracle says it is representable in To, and throws InvalidArgument otherwise.
template <class To, class From>
void check_pair() {
  int checked = 0;
  for (i128 x : probe_values()) {
    if (!representable<From>(x)) continue;
    const From v = static_cast<From>(x);
    ++checked;
    if (representable<To>(x)) {
      To out{};
      ASSERT_NO_THROW(out = checked_cast<To>(v, "value"))
          << "value " << static_cast<long double>(x) << " should fit";
      EXPECT_EQ(static_cast<i128>(out), x);
    } else {
      EXPECT_THROW((void)checked_cast<To>(v, "value"), InvalidArgument)
          << "value " << static_cast<long double>(x) << " should not fit";
    }
  }
  EXPECT_GT(checked, 50);
}

TEST(CheckedCast, Int64ToInt32RefusesEverythingOutsideInt32) {
  check_pair<std::int32_t, std::int64_t>();
}
TEST(CheckedCast, Int32ToInt64WideningNeverThrows) { check_pair<std::int64_t, std::int32_t>(); }
TEST(CheckedCast, Uint64ToInt32) { check_pair<std::int32_t, std::uint64_t>(); }
TEST(CheckedCast, Uint64ToInt64) { check_pair<std::int64_t, std::uint64_t>(); }
TEST(CheckedCast, Int64ToUint64RefusesNegatives) { check_pair<std::uint64_t, std::int64_t>(); }
TEST(CheckedCast, Int32ToUint64RefusesNegatives) { check_pair<std::uint64_t, std::int32_t>(); }
TEST(CheckedCast, Int64ToSizeT) { check_pair<std::size_t, std::int64_t>(); }
TEST(CheckedCast, Uint32ToInt32) { check_pair<std::int32_t, std::uint32_t>(); }
TEST(CheckedCast, Int32ToUint32) { check_pair<std::uint32_t, std::int32_t>(); }
TEST(CheckedCast, Uint32ToUint64Widening) { check_pair<std::uint64_t, std::uint32_t>(); }
TEST(CheckedCast, Uint64ToUint32) { check_pair<std::uint32_t, std::uint64_t>(); }
TEST(CheckedCast, Int8ToInt64AndBack) {
  check_pair<std::int64_t, std::int8_t>();
  check_pair<std::int8_t, std::int64_t>();
}

TEST(CheckedCast, MessageNamesTheQuantityAndTheValue) {
  try {
    (void)checked_cast<std::int32_t>(std::int64_t{3'000'000'000}, "Matrix Market rows");
    FAIL();
  } catch (const InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Matrix Market rows"), std::string::npos) << m;
    EXPECT_NE(m.find("3000000000"), std::string::npos) << m;
  }
  try {
    (void)checked_cast<std::uint64_t>(std::int64_t{-7}, "edge count");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("edge count"), std::string::npos) << e.what();
  }
}

TEST(CheckedMul, ThrowsExactlyWhenTheProductExceeds64Bits) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> vals = {
      0, 1, 2, 3, 0xFFFFFFFFULL, 0x100000000ULL, 18446744073709551615ULL, 9223372036854775808ULL};
  for (int k = 0; k < 300; ++k) vals.push_back(rng() >> (rng() % 64));
  for (std::uint64_t a : vals) {
    for (std::uint64_t b : vals) {
      const u128 exact = static_cast<u128>(a) * b;
      if (exact > std::numeric_limits<std::uint64_t>::max()) {
        EXPECT_THROW((void)checked_mul(a, b, "size"), InvalidArgument) << a << " * " << b;
      } else {
        EXPECT_EQ(checked_mul(a, b, "size"), static_cast<std::uint64_t>(exact));
      }
    }
  }
}

TEST(CheckedMul, LagraphHeaderOverflowProductIsRefused) {
  // LAGraph#403: "2 2 18446744073709551615" — entries times the bytes of one entry wraps.
  EXPECT_THROW((void)checked_mul(18446744073709551615ULL, 16, "entries * bytes"), InvalidArgument);
  EXPECT_THROW((void)checked_mul(1ULL << 32, 1ULL << 32, "rows * cols"), InvalidArgument);
  EXPECT_EQ(checked_mul(1ULL << 31, 1ULL << 32, "rows * cols"), 1ULL << 63);
}

}  // namespace
}  // namespace spindle
