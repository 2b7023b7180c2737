// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vector.hpp
/// @brief Dense vector with an optional presence bitmap (GraphBLAS "bitmap" storage).
///
/// Every index has a value slot; `present(i)` says whether the entry exists. A vector with no
/// bitmap is *full*: every entry is present (the common case: ranks, features, distances).
/// Operations follow GraphBLAS semantics on presence: absent inputs do not take part, and an
/// output entry computed from no terms is absent. Absent slots hold an unspecified value.
///
/// Residency: CUDA operations keep a device copy next to the host arrays and leave their results
/// on the device; host accessors download lazily (or call sync_to_host() explicitly), and host
/// write access marks the device copy stale. See spindle/cuda/residency.hpp for the rules and
/// the transfer counters.
///
/// Host storage is made when the host first needs it (spindle/detail/deferred_array.hpp):
/// `Vector(n, fill)` records n and the fill value and allocates nothing. The first host access
/// allocates and fills the array (or downloads into it when a device copy is newer); a CUDA
/// operation that reads the vector first fills its device copy on the device (no upload), and one
/// that overwrites it never needs the host array at all. So a vector that lives on the device from
/// birth (an algorithm's iterate, an output) costs no host memory and no host page faults. Sizes
/// and contents are as if the array were made at construction, and concurrent const access is as
/// safe as before (one thread makes the array).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/detail/deferred_array.hpp"
#include "spindle/error.hpp"

namespace spindle {

template <class T>
class Vector {
 public:
  using value_type = T;

  Vector() = default;
  /// Copies; a current device copy is copied on the device (no host traffic), and a host array
  /// not made yet is not made for the copy either.
  Vector(const Vector& o) {
    // The device copy first: if another thread is downloading into o, the clone sees o either
    // before (device newer: the host arrays copied below are stale anyway) or after it.
    if (o.dev_) dev_.reset(detail::mirror_clone(*o.dev_));
    present_ = o.present_;
    values_ = o.values_;
  }
  /// Moves; the moved-from vector is empty (size 0).
  Vector(Vector&& o) noexcept
      : values_(std::move(o.values_)), present_(std::move(o.present_)), dev_(std::move(o.dev_)) {
    o.present_.clear();
  }
  Vector& operator=(const Vector& o) {
    if (this != &o) {
      Vector tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  Vector& operator=(Vector&& o) noexcept {
    if (this != &o) {
      values_ = std::move(o.values_);
      present_ = std::move(o.present_);
      dev_ = std::move(o.dev_);
      o.present_.clear();
    }
    return *this;
  }
  /// A full vector of n entries, all equal to `fill` (the host array is made at first host use).
  explicit Vector(std::int64_t n, T fill = T{}) : values_(checked_size(n), fill) {}
  /// A full vector adopting `values`.
  explicit Vector(std::vector<T> values) : values_(std::move(values)) {}
  /// A vector of n absent entries (an empty GraphBLAS vector).
  static Vector empty(std::int64_t n) {
    Vector v(n);
    v.present_.assign(static_cast<std::size_t>(n), 0);
    return v;
  }

  std::int64_t size() const noexcept { return static_cast<std::int64_t>(values_.size()); }
  /// True when every entry is present (no bitmap).
  bool is_full() const {
    // Answered from the device copy's state when that is newer: no download.
    if (dev_ && detail::mirror_device_newer(*dev_)) return detail::mirror_device_full(*dev_);
    return present_.empty();
  }
  bool present(std::int64_t i) const {
    sync_presence_();
    return present_.empty() || present_[i] != 0;
  }
  /// Number of present entries.
  std::int64_t nvals() const {
    sync_presence_();
    if (present_.empty()) return size();
    return static_cast<std::int64_t>(std::count(present_.begin(), present_.end(), 1));
  }

  T& operator[](std::int64_t i) {
    written_();
    return values_.made()[i];
  }
  const T& operator[](std::int64_t i) const {
    sync_();
    return values_.made()[i];
  }
  T* data() {
    written_();
    return values_.made().data();
  }
  const T* data() const {
    sync_();
    return values_.made().data();
  }
  const std::vector<T>& values() const {
    sync_();
    return values_.made();
  }
  std::vector<T>& values() {
    written_();
    return values_.made();
  }

  /// The bitmap (1 = present); empty for a full vector.
  const std::vector<std::uint8_t>& bitmap() const {
    sync_();
    return present_;
  }
  std::vector<std::uint8_t>& bitmap() {
    written_();
    return present_;
  }
  /// Pointer to the bitmap or nullptr when full.
  const std::uint8_t* bitmap_ptr() const {
    sync_();
    return present_.empty() ? nullptr : present_.data();
  }

  /// Sets entry i (making it present).
  void set(std::int64_t i, T v) {
    written_();
    values_.made()[i] = v;
    if (!present_.empty()) present_[i] = 1;
  }
  /// Removes entry i (switching to bitmap storage if needed).
  void remove(std::int64_t i) {
    written_();
    if (present_.empty()) present_.assign(values_.size(), 1);
    present_[i] = 0;
  }
  /// Makes every entry present with value `v`.
  void fill(T v) {
    overwritten_();
    values_.fill(v);  // a deferred array only changes its fill value
    present_.clear();
  }
  /// Removes every entry.
  void clear() {
    overwritten_();
    present_.assign(static_cast<std::size_t>(size()), 0);
  }
  /// Drops the bitmap if every entry is present (keeps the fast full path).
  void compact() {
    if (dev_) written_();  // the presence may be newer on the device
    if (!present_.empty() &&
        std::all_of(present_.begin(), present_.end(), [](std::uint8_t p) { return p != 0; })) {
      present_.clear();
    }
  }
  /// Resizes to n entries, all absent. The new bitmap is allocated before anything changes: a
  /// failed allocation (OutOfMemory) leaves the vector as it was.
  void resize_empty(std::int64_t n) {
    const std::size_t count = checked_size(n);
    std::vector<std::uint8_t> absent =
        detail::workspace<std::uint8_t>(count, "vector presence bitmap");
    overwritten_();
    // Absent slots hold unspecified values: an array of the right size is kept as it is.
    if (values_.deferred() || values_.size() != count) values_.defer(count, T{});
    present_.swap(absent);
  }

  /// Where the current data lives (Host without CUDA or before any CUDA operation).
  Residency residency() const noexcept {
    return dev_ ? detail::mirror_residency(*dev_) : Residency::Host;
  }
  /// Downloads the device copy now if it is newer (what every host accessor does lazily).
  void sync_to_host() const { sync_(); }

 private:
  friend struct detail::ResidencyAccess;
  detail::HostArrays host_arrays_() const noexcept { return values_.view(&present_); }
  // The host copy current: the array made if it was deferred (value-initialised when a newer
  // device copy is about to be downloaded into it), then the download if one is due.
  void sync_() const {
    values_.make(dev_ && detail::mirror_device_newer(*dev_), "vector host array");
    detail::sync_host_if_needed(dev_, host_arrays_());
  }
  // What present() and nvals() need: the bitmap current on the host. A deferred array stays
  // deferred unless the device copy is newer (then everything is downloaded).
  void sync_presence_() const {
    if (dev_ && detail::mirror_device_newer(*dev_)) sync_();
  }
  // Host write access: bring the host copy up to date (making it if needed), then the device
  // copy is stale.
  void written_() {
    sync_();
    if (dev_) detail::mirror_host_written(*dev_);
  }
  // The whole content is replaced: no download needed, the device copy is stale.
  void overwritten_() {
    if (dev_) detail::mirror_host_written(*dev_);
  }
  static std::size_t checked_size(std::int64_t n) {
    if (n < 0) throw InvalidArgument("Vector: negative size " + std::to_string(n));
    return static_cast<std::size_t>(n);
  }
  // mutable: a const accessor may refresh the host copy from the device (see residency.hpp).
  // values_ is made when the host first needs it (spindle/detail/deferred_array.hpp).
  detail::DeferredArray<T> values_;
  mutable std::vector<std::uint8_t> present_;
  mutable detail::DeviceMirrorPtr dev_;
};

}  // namespace spindle
