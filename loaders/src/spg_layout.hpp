// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: the byte layout of a `.spg` file and its checksum (docs/design/spg_format.md).

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace spindle {
namespace detail {
namespace spg {

constexpr char kMagic[8] = {'\x89', 'S', 'P', 'G', '\r', '\n', '\x1a', '\n'};
constexpr std::size_t kHeaderBytes = 128;
constexpr std::size_t kAlign = 64;
constexpr std::uint32_t kByteOrderMark = 0x01020304u;
constexpr std::uint32_t kFlagSymmetric = 1u << 0;
constexpr std::uint32_t kFlagIntegerLabels = 1u << 1;
constexpr std::uint32_t kKnownFlags = kFlagSymmetric | kFlagIntegerLabels;
// Value codes of header byte 17.
constexpr std::uint8_t kValuePattern = 0, kValueFloat = 1, kValueDouble = 2;

// Byte offsets of the header fields.
enum Field : std::size_t {
  kOffMagic = 0,
  kOffVersion = 8,
  kOffByteOrder = 12,
  kOffIndexBytes = 16,
  kOffValueCode = 17,
  kOffReserved = 18,
  kOffFlags = 20,
  kOffRows = 24,
  kOffCols = 32,
  kOffNnz = 40,
  kOffFileBytes = 48,
  kOffSections = 56,  // 4 x (offset, size), u64 each
  kOffChecksum = 120,
};
enum Section : int { kRowPtr = 0, kColIdx = 1, kValues = 2, kLabels = 3, kSections = 4 };
inline const char* section_name(int s) {
  static const char* const names[] = {"row offsets", "column indices", "values", "labels"};
  return names[s];
}

// The checksum: bytes [0, kOffChecksum) of the header, then the rest of the file after the
// header in blocks of kHashBlock bytes, each hashed on its own (so threads can share the work)
// and folded in order.
constexpr std::size_t kHashBlock = std::size_t{256} << 10;
// Blocks start at kHeaderBytes + b * kHashBlock; with both multiples of kAlign (and of any value's
// size) and sections kAlign-aligned, no index or value straddles two blocks.
static_assert(kHashBlock % kAlign == 0 && kHeaderBytes % kAlign == 0 && kAlign % 8 == 0,
              "hash blocks must not split a section's elements");

inline std::uint64_t load64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint32_t load32(const char* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void store64(char* p, std::uint64_t v) noexcept { std::memcpy(p, &v, 8); }
inline void store32(char* p, std::uint32_t v) noexcept { std::memcpy(p, &v, 4); }

inline std::uint64_t rotl(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }
// A bijective 64-bit finalizer (xor-shift / multiply rounds).
inline std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 31)) * 0x7FB5D329728EA185ull;
  z = (z ^ (z >> 27)) * 0x81DADEF4BC2DD44Dull;
  return z ^ (z >> 33);
}

// Four independent lanes take 8 bytes each per step: (lane ^ word) * odd constant, rotated, is a
// bijection of the lane for a fixed word, so any change of one word changes its lane's final
// value; the lanes are then folded through mix(). The data is memory-bound long before this is.
inline std::uint64_t hash_bytes(const char* p, std::size_t n, std::uint64_t seed) noexcept {
  constexpr std::uint64_t kMul = 0xD6E8FEB86659FD93ull;
  constexpr std::uint64_t kStep = 0x9E3779B97F4A7C15ull;
  std::uint64_t a0 = seed + kStep, a1 = seed + 2 * kStep, a2 = seed + 3 * kStep,
                a3 = seed + 4 * kStep;
  const std::size_t whole = n & ~std::size_t{31};
  for (std::size_t i = 0; i < whole; i += 32) {
    a0 = rotl((a0 ^ load64(p + i)) * kMul, 29);
    a1 = rotl((a1 ^ load64(p + i + 8)) * kMul, 29);
    a2 = rotl((a2 ^ load64(p + i + 16)) * kMul, 29);
    a3 = rotl((a3 ^ load64(p + i + 24)) * kMul, 29);
  }
  if (whole != n) {
    char tail[32] = {};
    std::memcpy(tail, p + whole, n - whole);
    a0 = rotl((a0 ^ load64(tail)) * kMul, 29);
    a1 = rotl((a1 ^ load64(tail + 8)) * kMul, 29);
    a2 = rotl((a2 ^ load64(tail + 16)) * kMul, 29);
    a3 = rotl((a3 ^ load64(tail + 24)) * kMul, 29);
  }
  std::uint64_t h = mix(static_cast<std::uint64_t>(n) ^ seed);
  h = mix(h ^ a0);
  h = mix(h ^ a1);
  h = mix(h ^ a2);
  return mix(h ^ a3);
}

// The hash of body block b (its bytes p[0, n)).
inline std::uint64_t block_hash(const char* p, std::size_t n, std::uint64_t b) noexcept {
  return hash_bytes(p, n, mix(b + 1));
}

// Folds the header hash and the block hashes, in block order, into the checksum.
inline std::uint64_t fold_start(const char* header) noexcept {
  return hash_bytes(header, kOffChecksum, 0x5350473031ull);
}
inline std::uint64_t fold(std::uint64_t h, std::uint64_t block) noexcept {
  return mix(h ^ block) + 0x9E3779B97F4A7C15ull;
}

inline std::uint64_t align_up(std::uint64_t x) noexcept {
  return (x + (kAlign - 1)) & ~std::uint64_t{kAlign - 1};
}

}  // namespace spg
}  // namespace detail
}  // namespace spindle
