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
/// overwritten entirely, so any size is accepted (size_vector_output resizes it); otherwise w and
/// the mask must have n entries. Changes nothing.
template <class T>
void check_vector_output(const char* op, const Vector<T>& w, std::int64_t n, const Mask& mask,
                         Accum accum, const char* n_what) {
  if (!mask.empty()) check_dim(op, "the mask", mask.size(), "entries", n_what, n);
  if (w.size() != n && !(mask.empty() && !accum.enabled)) {
    check_dim(op, "the output w", w.size(), "entries", n_what, n);
  }
}

/// Resizes w to n entries (all absent) when its size differs; call after check_vector_output
/// and after everything that may still throw, so a failed call leaves w untouched.
/// `host_writes`: the host writes w next (the CPU backend, or a result completed on the host).
/// Its host array is then made before w changes, so that nothing the operation allocates after
/// this point is w's; otherwise (a CUDA operation) it stays deferred and only the device copy is
/// written.
template <class T>
void size_vector_output(Vector<T>& w, std::int64_t n, bool host_writes) {
  if (w.size() == n) return;
  // Through the allocation hook like every engine allocation: OutOfMemory with the numbers.
  const std::uint64_t bytes =
      bytes_of<T>(static_cast<std::size_t>(n)) + static_cast<std::uint64_t>(n);
  if (!host_writes) {
    host_allocation(bytes, "output vector", [&] { w.resize_empty(n); });
    return;
  }
  Vector<T> fresh = host_allocation(bytes, "output vector", [&] { return Vector<T>::empty(n); });
  fresh.sync_to_host();  // makes its host array now (OutOfMemory: w is unchanged)
  w = std::move(fresh);
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

/// check_vector_output, then size_vector_output.
template <class T>
void prepare_vector_output(const char* op, Vector<T>& w, std::int64_t n, const Mask& mask,
                           Accum accum, const char* n_what, bool host_writes) {
  check_vector_output(op, w, n, mask, accum, n_what);
  size_vector_output(w, n, host_writes);
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

/// check_dense_output, then resizes C when its shape differs. With `host_writes` (see
/// size_vector_output) the new C's host array is made before C changes; otherwise (a CUDA
/// operation) it stays deferred (spindle/detail/deferred_array.hpp), and the check here only
/// refuses at once a shape the host could never hold.
template <class T>
void prepare_dense_output(const char* op, DenseMatrix<T>& C, std::int64_t rows, std::int64_t cols,
                          Accum accum, bool host_writes) {
  check_dense_output(op, C, rows, cols, accum);
  if (C.rows() != rows || C.cols() != cols) {
    DenseMatrix<T> fresh = host_allocation(dense_bytes<T>(rows, cols), "output matrix",
                                           [&] { return DenseMatrix<T>(rows, cols); });
    if (host_writes) fresh.sync_to_host();  // makes its host array now (OutOfMemory: C unchanged)
    C = std::move(fresh);
  }
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
