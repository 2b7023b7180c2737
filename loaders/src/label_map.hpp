// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: open-addressing hash map int64 label -> int64 id for the edge-list remap (several
// times faster than std::unordered_map on tens of millions of lookups).

#include <cstdint>
#include <vector>

namespace spindle {
namespace detail {

class IntLabelMap {
 public:
  explicit IntLabelMap(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < expected * 2) cap <<= 1;
    keys_.resize(cap);
    vals_.assign(cap, kEmpty);
  }

  /// The id stored for key, inserting `id_if_new` when the key is new.
  std::int64_t& find_or_insert(std::int64_t key, std::int64_t id_if_new) {
    std::size_t mask = keys_.size() - 1;
    std::size_t h = hash(key) & mask;
    for (;;) {
      if (vals_[h] == kEmpty) {
        if ((size_ + 1) * 2 > keys_.size()) {
          grow();
          return find_or_insert(key, id_if_new);
        }
        keys_[h] = key;
        vals_[h] = id_if_new;
        ++size_;
        return vals_[h];
      }
      if (keys_[h] == key) return vals_[h];
      h = (h + 1) & mask;
    }
  }

 private:
  static constexpr std::int64_t kEmpty = -1;
  static std::size_t hash(std::int64_t k) {
    std::uint64_t z = static_cast<std::uint64_t>(k) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<std::size_t>(z ^ (z >> 31));
  }
  void grow() {
    std::vector<std::int64_t> k2(keys_.size() * 2), v2(keys_.size() * 2, kEmpty);
    const std::size_t mask = k2.size() - 1;
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (vals_[i] == kEmpty) continue;
      std::size_t h = hash(keys_[i]) & mask;
      while (v2[h] != kEmpty) h = (h + 1) & mask;
      k2[h] = keys_[i];
      v2[h] = vals_[i];
    }
    keys_.swap(k2);
    vals_.swap(v2);
  }
  std::vector<std::int64_t> keys_;
  std::vector<std::int64_t> vals_;
  std::size_t size_ = 0;
};

}  // namespace detail
}  // namespace spindle
