// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: open-addressing hash map int64 label -> int64 id for the edge-list remap (several
// times faster than std::unordered_map on tens of millions of lookups).

#include <cstdint>
#include <vector>

#include "spindle/detail/mix.hpp"

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
    return static_cast<std::size_t>(detail::mix64(static_cast<std::uint64_t>(k) + detail::kGolden));
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
