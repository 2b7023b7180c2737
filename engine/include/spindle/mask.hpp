// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mask.hpp
/// @brief Write masks on vector outputs.
///
/// A mask selects which output entries an operation may write. Built from a vector m:
///   - value mask: selected where m(i) is present and m(i) != 0,
///   - structural mask: selected where m(i) is present (its value is ignored),
///   - complement: selects exactly the entries the mask would not.
/// Entries not selected keep their old value, or are removed when the descriptor says replace.
/// `Mask` is a non-owning view; the vector must outlive the call.
///
/// Residency: building a mask moves no data. The CUDA backend reads the mask vector's device copy
/// (uploading it only when stale); host reads (selects, data, bitmap) download it first when a
/// CUDA operation left it newer on the device (spindle/cuda/residency.hpp).

#include <cstdint>

#include "spindle/vector.hpp"

namespace spindle {

enum class MaskKind : std::uint8_t { Value, Structural };

/// Type-erased view of a mask vector (any of the element types below).
class Mask {
 public:
  enum class Elem : std::uint8_t { U8, I32, I64, F32, F64 };

  /// No mask: every entry selected (unless complemented, which selects none).
  Mask() = default;

  template <class M>
  static Mask value(const Vector<M>& m, bool complement = false) {
    return Mask(m, MaskKind::Value, complement);
  }
  template <class M>
  static Mask structural(const Vector<M>& m, bool complement = false) {
    return Mask(m, MaskKind::Structural, complement);
  }

  bool empty() const noexcept { return data_ == nullptr; }
  std::int64_t size() const noexcept { return size_; }
  MaskKind kind() const noexcept { return kind_; }
  bool complemented() const noexcept { return complement_; }
  const void* data() const {
    if (pending_) return host_now_().values;
    return data_;
  }
  const std::uint8_t* bitmap() const {
    if (pending_) return bitmap_of_(host_now_());
    return bitmap_;
  }
  Elem elem() const noexcept { return elem_; }

  /// The same mask with its host pointers resolved now (the download, or the making of a
  /// deferred host array, happens here, once), for host loops that test many entries: selects()
  /// then takes its fast path. Valid while the vector's host arrays are not replaced.
  Mask resolved_on_host() const {
    if (!pending_) return *this;
    Mask r = *this;
    const detail::HostArrays h = host_now_();
    r.data_ = h.values != nullptr ? h.values : &kNonNull;
    r.bitmap_ = bitmap_of_(h);
    r.pending_ = false;
    return r;
  }

  /// True when output entry i may be written.
  bool selects(std::int64_t i) const {
    if (data_ == nullptr) return !complement_;
    if (pending_) return selects_synced_(i);
    bool s = bitmap_ == nullptr || bitmap_[i] != 0;
    if (s && kind_ == MaskKind::Value) s = value_nonzero(data_, i);
    return s != complement_;
  }

 private:
  friend struct detail::ResidencyAccess;
  template <class M>
  Mask(const Vector<M>& m, MaskKind kind, bool complement)
      : size_(m.size()), kind_(kind), complement_(complement), elem_(elem_of<M>()) {
    // Host pointers are taken without a host sync. A mask whose vector is newer on the device, or
    // whose vector has no host array yet (built with a fill value), resolves them on first host
    // use (pending_): a CUDA-only caller never downloads it, nor makes or uploads its array.
    mirror_ = &detail::ResidencyAccess::mirror(m);
    const detail::HostArrays h = detail::ResidencyAccess::host(m);
    pending_ = (*mirror_ && detail::mirror_device_newer(**mirror_)) ||
               (h.values == nullptr && h.fill != nullptr);
    data_ = h.values;
    bitmap_ = bitmap_of_(h);
    source_ = &m;
    host_of_ = [](const void* v) {
      return detail::ResidencyAccess::host(*static_cast<const Vector<M>*>(v));
    };
    sync_of_ = [](const void* v) { static_cast<const Vector<M>*>(v)->sync_to_host(); };
    // Non-null even for a vector of size 0: a mask was given, so its size is checked against the
    // output like any other (an empty std::vector's data() may be null, which read as "no mask").
    if (data_ == nullptr) data_ = &kNonNull;
  }
  static const std::uint8_t* bitmap_of_(const detail::HostArrays& h) {
    return h.presence->empty() ? nullptr : h.presence->data();
  }
  // The source vector's host arrays after a sync (thread-safe: the mirror downloads once, and a
  // deferred host array is made once).
  detail::HostArrays host_now_() const {
    sync_of_(source_);
    return host_of_(source_);
  }
  bool selects_synced_(std::int64_t i) const {
    const detail::HostArrays h = host_now_();
    const std::uint8_t* b = bitmap_of_(h);
    bool s = b == nullptr || b[i] != 0;
    if (s && kind_ == MaskKind::Value) s = value_nonzero(h.values, i);
    return s != complement_;
  }
  template <class M>
  static constexpr Elem elem_of() {
    // (No Vector<bool>: std::vector<bool> has no data(); use std::uint8_t.)
    if constexpr (std::is_same_v<M, std::uint8_t> || std::is_same_v<M, std::int8_t>) {
      return Elem::U8;
    } else if constexpr (std::is_same_v<M, std::int32_t>) {
      return Elem::I32;
    } else if constexpr (std::is_same_v<M, std::int64_t>) {
      return Elem::I64;
    } else if constexpr (std::is_same_v<M, float>) {
      return Elem::F32;
    } else {
      static_assert(std::is_same_v<M, double>, "unsupported mask element type");
      return Elem::F64;
    }
  }
  bool value_nonzero(const void* d, std::int64_t i) const {
    switch (elem_) {
      case Elem::U8:
        return static_cast<const std::uint8_t*>(d)[i] != 0;
      case Elem::I32:
        return static_cast<const std::int32_t*>(d)[i] != 0;
      case Elem::I64:
        return static_cast<const std::int64_t*>(d)[i] != 0;
      case Elem::F32:
        return static_cast<const float*>(d)[i] != 0;
      case Elem::F64:
        return static_cast<const double*>(d)[i] != 0;
    }
    return false;
  }
  static inline const char kNonNull = 0;

  const void* data_ = nullptr;
  const std::uint8_t* bitmap_ = nullptr;
  std::int64_t size_ = 0;
  MaskKind kind_ = MaskKind::Value;
  bool complement_ = false;
  Elem elem_ = Elem::U8;
  // The vector behind the mask, for the CUDA backend and for lazy host syncs.
  const void* source_ = nullptr;
  detail::HostArrays (*host_of_)(const void*) = nullptr;
  void (*sync_of_)(const void*) = nullptr;
  detail::DeviceMirrorPtr* mirror_ = nullptr;
  bool pending_ = false;
};

}  // namespace spindle
