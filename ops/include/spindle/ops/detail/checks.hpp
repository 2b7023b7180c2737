// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file checks.hpp
/// @brief Argument checks shared by the public entry points (ops/core) and the header-only CPU
/// entry points for user-defined semirings (spindle/ops/cpu/*_impl.hpp). Internal.

#include <cstdint>
#include <string>
#include <utility>

#include "spindle/debug/allocation.hpp"
#include "spindle/dense.hpp"
#include "spindle/error.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail {

/// Throws DimensionMismatch "<op>: <what> has <got> <unit> but <expected_what> is <expected>".
inline void check_dim(const char* op, const char* what, std::int64_t got, const char* unit,
                      const char* expected_what, std::int64_t expected) {
  if (got != expected) {
    throw DimensionMismatch(std::string(op) + ": " + what + " has " + std::to_string(got) + " " +
                            unit + " but " + expected_what + " is " + std::to_string(expected));
  }
}

/// Checks that a vector output w (and the mask) fit n entries: without mask and accumulator w is
/// overwritten entirely, so any size is accepted (stage_vector_output gives the result a new
/// vector); otherwise w and the mask must have n entries. Changes nothing.
template <class T>
void check_vector_output(const char* op, const Vector<T>& w, std::int64_t n, const Mask& mask,
                         Accum accum, const char* n_what) {
  if (!mask.empty()) check_dim(op, "the mask", mask.size(), "entries", n_what, n);
  if (w.size() != n && !(mask.empty() && !accum.enabled)) {
    check_dim(op, "the output w", w.size(), "entries", n_what, n);
  }
}

/// Where an operation writes a result that replaces its output: the strong guarantee for every
/// operation whose result has a new shape. When the output already has the result's shape, the
/// operation writes it in place (get() is the output: masks and accumulators read its old content,
/// and no second copy is allocated; the backends allocate everything they need before they write).
/// When the shape changes, the operation writes a replacement built up front, and commit() moves
/// it in once the operation has succeeded: a failed allocation on the way (a host workspace, a
/// device copy, a kernel's scratch) or any other exception leaves the output as it was. The old
/// output lives until commit(), so a resize briefly holds both.
template <class C>
class OutputStage {
 public:
  /// In place: get() is `out` itself.
  explicit OutputStage(C& out) noexcept : out_(&out) {}
  /// Staged: get() is `replacement` until commit() moves it into `out`.
  OutputStage(C& out, C&& replacement) noexcept
      : out_(&out), fresh_(std::move(replacement)), staged_(true) {}
  /// A moved-from stage is in place on the same output, with nothing pending.
  OutputStage(OutputStage&& o) noexcept
      : out_(o.out_), fresh_(std::move(o.fresh_)), staged_(std::exchange(o.staged_, false)) {}
  OutputStage& operator=(OutputStage&& o) noexcept {
    if (this != &o) {
      out_ = o.out_;
      fresh_ = std::move(o.fresh_);
      staged_ = std::exchange(o.staged_, false);
    }
    return *this;
  }
  OutputStage(const OutputStage&) = delete;
  OutputStage& operator=(const OutputStage&) = delete;

  /// What the operation writes.
  C& get() noexcept { return staged_ ? fresh_ : *out_; }
  /// The caller's output: its old content until commit() (write through get()).
  C& target() noexcept { return *out_; }
  /// Publishes the result: moves a pending replacement into the output (no-op in place).
  void commit() noexcept {
    if (staged_) {
      *out_ = std::move(fresh_);
      staged_ = false;
    }
  }

 private:
  C* out_;
  C fresh_{};
  bool staged_ = false;
};

/// The stage for an output whose result may have a new shape: `out` itself when `same_shape`,
/// else a replacement that `make()` builds now, before the operation writes anything.
template <class C, class Make>
[[nodiscard]] OutputStage<C> stage_shape(C& out, bool same_shape, Make&& make) {
  if (same_shape) return OutputStage<C>(out);
  return OutputStage<C>(out, std::forward<Make>(make)());
}

/// The stage for a vector result of n entries (after check_vector_output): w itself when it has
/// n entries, else a replacement of n absent entries. `host_writes`: the host writes the result
/// (the CPU backend, or a result completed on the host): the replacement's host array is made
/// now; otherwise (a CUDA operation) it stays deferred and only its device copy is written.
template <class T>
[[nodiscard]] OutputStage<Vector<T>> stage_vector_output(Vector<T>& w, std::int64_t n,
                                                         bool host_writes) {
  return stage_shape(w, w.size() == n, [&] {
    // Through the allocation hook like every engine allocation: OutOfMemory with the numbers.
    const std::uint64_t bytes =
        bytes_of<T>(static_cast<std::size_t>(n)) + static_cast<std::uint64_t>(n);
    Vector<T> fresh = host_allocation(bytes, "output vector", [&] { return Vector<T>::empty(n); });
    if (host_writes) fresh.sync_to_host();  // makes its host array now
    return fresh;
  });
}

/// Bytes of a rows x cols dense matrix of T, saturating instead of overflowing.
template <class T>
std::uint64_t dense_bytes(std::int64_t rows, std::int64_t cols) {
  if (rows <= 0 || cols <= 0) return 0;
  const std::uint64_t r = static_cast<std::uint64_t>(rows), c = static_cast<std::uint64_t>(cols);
  if (c > static_cast<std::uint64_t>(-1) / sizeof(T) / r) return static_cast<std::uint64_t>(-1);
  return r * c * sizeof(T);
}

/// Makes the host arrays of the inputs a host operation reads (downloading a newer device copy)
/// before any output is touched: a failed allocation then changes nothing.
template <class... C>
void host_inputs(const C&... in) {
  (in.sync_to_host(), ...);
}

/// A full vector of n value-initialised entries with its host array made: the replacement for an
/// output the host writes next, built before the output is replaced (OutOfMemory then leaves the
/// output as it was).
template <class T>
Vector<T> host_made_vector(std::int64_t n) {
  Vector<T> v(n);
  v.sync_to_host();
  return v;
}

/// check_vector_output, then stage_vector_output: the stage the operation writes and commits.
template <class T>
[[nodiscard]] OutputStage<Vector<T>> prepare_vector_output(const char* op, Vector<T>& w,
                                                           std::int64_t n, const Mask& mask,
                                                           Accum accum, const char* n_what,
                                                           bool host_writes) {
  check_vector_output(op, w, n, mask, accum, n_what);
  return stage_vector_output(w, n, host_writes);
}

/// Checks that a dense output C can hold rows x cols: any shape without an accumulator (it is
/// resized), the same shape with one. Changes nothing.
template <class T>
void check_dense_output(const char* op, const DenseMatrix<T>& C, std::int64_t rows,
                        std::int64_t cols, Accum accum) {
  if (C.rows() == rows && C.cols() == cols) return;
  if (!accum.enabled) return;
  throw DimensionMismatch(std::string(op) + ": the output is " + std::to_string(C.rows()) + " x " +
                          std::to_string(C.cols()) + " but the result is " + std::to_string(rows) +
                          " x " + std::to_string(cols) +
                          " (an accumulator needs the shapes to agree)");
}

/// check_dense_output, then the stage the operation writes and commits (see OutputStage): C itself
/// when it has the shape, else a replacement. With `host_writes` (see stage_vector_output) the
/// replacement's host array is made now; otherwise (a CUDA operation) it stays deferred
/// (spindle/detail/deferred_array.hpp), and the check here only refuses at once a shape the host
/// could never hold.
template <class T>
[[nodiscard]] OutputStage<DenseMatrix<T>> prepare_dense_output(const char* op, DenseMatrix<T>& C,
                                                               std::int64_t rows, std::int64_t cols,
                                                               Accum accum, bool host_writes) {
  check_dense_output(op, C, rows, cols, accum);
  return stage_shape(C, C.rows() == rows && C.cols() == cols, [&] {
    DenseMatrix<T> fresh = host_allocation(dense_bytes<T>(rows, cols), "output matrix",
                                           [&] { return DenseMatrix<T>(rows, cols); });
    if (host_writes) fresh.sync_to_host();  // makes its host array now
    return fresh;
  });
}

/// Throws InvalidArgument when an input aliases the output that is written while it is read.
inline void check_no_alias(const char* op, const void* input, const void* output,
                           const char* input_name, const char* output_name) {
  if (input == output) {
    throw InvalidArgument(std::string(op) + ": " + input_name + " and " + output_name +
                          " are the same object; pass a copy of " + input_name);
  }
}

}  // namespace spindle::detail
