// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file deferred_array.hpp
/// @brief The host array of a Vector or DenseMatrix, made when the host first needs it.
///
/// `DeferredArray<T>` is either a made `std::vector<T>` or "n copies of a fill value" with no
/// memory behind it. A container built with a size and a fill starts deferred: a CUDA operation
/// that reads it fills its device copy on the device (HostArrays::fill), one that overwrites it
/// never needs the host array, and the first host access makes it (filled, or value-initialised
/// when a newer device copy is about to be downloaded into it). So a container that lives on the
/// device from birth (an algorithm's iterate, an operation's output) costs no host memory and no
/// host page faults.
///
/// Threads: const readers of one container may race to make its array; each builds one outside
/// the lock and the first to publish wins, so the lock (`deferred_host_mutex`) is only held for a
/// swap. Non-const members need exclusive access, as for any std container.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/debug/allocation.hpp"

namespace spindle {
namespace detail {

/// Serialises the publishing of deferred host arrays made by concurrent const readers (rare: once
/// per container, and only while it is still deferred).
inline std::mutex& deferred_host_mutex() {
  static std::mutex m;
  return m;
}

template <class T>
class DeferredArray {
 public:
  DeferredArray() = default;
  /// n copies of `fill`, not made (nothing is allocated).
  DeferredArray(std::size_t n, T fill) { defer(n, fill); }
  /// Adopts a made array.
  explicit DeferredArray(std::vector<T> made) : values_(std::move(made)) {}
  /// Copies; a deferred source gives a deferred copy (nothing is made for either).
  DeferredArray(const DeferredArray& o) {
    if (o.deferred_.load(std::memory_order_acquire)) {
      // A concurrent const reader of o may be publishing its array right now.
      std::lock_guard<std::mutex> lock(deferred_host_mutex());
      if (o.deferred_.load(std::memory_order_relaxed)) {
        defer(o.n_, o.fill_);
        return;
      }
    }
    values_ = o.values_;
  }
  /// Moves; the source is left empty (size 0, made).
  DeferredArray(DeferredArray&& o) noexcept
      : values_(std::move(o.values_)),
        n_(o.n_),
        fill_(o.fill_),
        deferred_(o.deferred_.load(std::memory_order_relaxed)) {
    o.clear();
  }
  DeferredArray& operator=(const DeferredArray& o) {
    if (this != &o) {
      DeferredArray tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  DeferredArray& operator=(DeferredArray&& o) noexcept {
    if (this != &o) {
      values_ = std::move(o.values_);
      n_ = o.n_;
      fill_ = o.fill_;
      deferred_.store(o.deferred_.load(std::memory_order_relaxed), std::memory_order_relaxed);
      o.clear();
    }
    return *this;
  }
  ~DeferredArray() = default;

  /// Number of elements, made or not. The made array is not read while deferred (a concurrent
  /// const reader may be making it).
  std::size_t size() const noexcept {
    if (deferred_.load(std::memory_order_acquire)) return n_;
    return values_.size();
  }
  /// True while no array is made.
  bool deferred() const noexcept { return deferred_.load(std::memory_order_acquire); }

  /// What the device mirror sees: the made array, or (values null, `fill` set) while deferred.
  HostArrays view(std::vector<std::uint8_t>* presence) const noexcept {
    if (deferred_.load(std::memory_order_acquire)) {
      HostArrays h{nullptr, sizeof(T), static_cast<std::int64_t>(n_), presence};
      h.fill = &fill_;
      return h;
    }
    return {const_cast<T*>(values_.data()), sizeof(T), static_cast<std::int64_t>(values_.size()),
            presence};
  }

  /// Makes the array if it is deferred: n copies of the fill or, with `for_download` (a newer
  /// device copy is about to be downloaded into it), n value-initialised elements. The allocation
  /// goes through host_allocation(): OutOfMemory naming `where` and the bytes, nothing changed.
  void make(bool for_download, const char* where) const {
    if (!deferred_.load(std::memory_order_acquire)) return;
    const std::size_t n = n_;  // not changed by const paths
    std::vector<T> made;
    host_allocation(bytes_of<T>(n), where, [&] {
      if (for_download) {
        made.resize(n);
      } else {
        made.assign(n, fill_);
      }
    });
    std::lock_guard<std::mutex> lock(deferred_host_mutex());
    if (!deferred_.load(std::memory_order_relaxed)) return;  // another reader published first
    values_.swap(made);
    deferred_.store(false, std::memory_order_release);
  }
  /// The made array; call make() first.
  std::vector<T>& made() const noexcept { return values_; }

  /// Sets every element to v; a deferred array only changes its fill value.
  void fill(T v) {
    if (deferred_.load(std::memory_order_relaxed)) {
      fill_ = v;
    } else {
      std::fill(values_.begin(), values_.end(), v);
    }
  }
  /// Drops the content (freeing a made array): n copies of `fill`, not made.
  void defer(std::size_t n, T fill) {
    std::vector<T>().swap(values_);
    n_ = n;
    fill_ = fill;
    deferred_.store(n > 0, std::memory_order_relaxed);
  }
  /// Size 0, made.
  void clear() noexcept {
    values_.clear();
    n_ = 0;
    deferred_.store(false, std::memory_order_relaxed);
  }

 private:
  // mutable: make() publishes the array from a const path, under deferred_host_mutex().
  mutable std::vector<T> values_;
  std::size_t n_ = 0;
  T fill_{};
  mutable std::atomic<bool> deferred_{false};
};

}  // namespace detail
}  // namespace spindle
