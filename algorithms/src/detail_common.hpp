// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file detail_common.hpp
/// @brief Helpers shared by the algorithm sources (private; not installed).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "spindle/descriptor.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/vector.hpp"

namespace spindle {
namespace detail {

/// True when A's structure equals its transpose's (every edge stored in both directions), as
/// the undirected algorithms require. Builds and caches A's transpose.
template <class I, class V>
bool symmetric_structure(const Graph<I, V>& A) {
  const Graph<I, V>& T = A.transpose();
  return A.row_ptr() == T.row_ptr() && A.col_idx() == T.col_idx();
}

/// Iterations 1..max_iter of a loop whose stop test reads scalars the device computes, without
/// the device ever waiting for that test. step(it) queues iteration it and returns its pending
/// scalars (a PendingScalar or a struct of them: valid(), ready()); finish(k, pending) reads
/// iteration k's, records them and returns true to stop after k; undo() makes iteration it - 1's
/// result current again. Scalars that are ready at once (the CPU backend) are read at once; pending
/// ones (CUDA) are read after the next iteration is queued, and when they stop the loop that next
/// iteration is dropped with undo(): one extra iteration per run, against a host round trip saved
/// on every iteration (a failure in the extra one fails the run).
template <class Step, class Finish, class Undo>
void iterate_reading_late(int max_iter, Step&& step, Finish&& finish, Undo&& undo) {
  using Pending = decltype(step(1));
  Pending unread;  // the previous iteration's scalars, while they are not read yet
  for (int it = 1; it <= max_iter; ++it) {
    Pending now = step(it);
    if (unread.valid()) {
      Pending previous = std::move(unread);
      unread = Pending();
      if (finish(it - 1, previous)) {
        undo();
        return;
      }
    }
    if (!now.ready()) {
      unread = std::move(now);
    } else if (finish(it, now)) {
      return;
    }
  }
  if (unread.valid()) finish(max_iter, unread);
}

/// The cancellation point of the iterative algorithms, called before each iteration (level,
/// round, layer): throws Cancelled naming `who` when the hook asks to stop. An exception the hook
/// throws itself propagates unchanged.
inline void check_cancel(const std::function<bool()>& cancel, const char* who) {
  if (cancel && cancel()) throw Cancelled(std::string(who) + ": cancelled by the caller");
}

/// The descriptor every op of one algorithm call uses: the device is resolved once so that all
/// ops (and the dense gemm) agree on where the data lives.
inline Descriptor algorithm_descriptor(Device device, MxvKernel mxv_kernel = MxvKernel::Auto,
                                       MxmKernel mxm_kernel = MxmKernel::Auto) {
  Descriptor desc;
  desc.device = resolve_device(device);
  desc.mxv_kernel = mxv_kernel;
  desc.mxm_kernel = mxm_kernel;
  return desc;
}

/// The same descriptor with replace set (masked frontier updates).
inline Descriptor with_replace(Descriptor desc) {
  desc.replace = true;
  return desc;
}

/// An empty vector of n entries (every entry absent), made where `desc` runs the ops: on CUDA
/// it is born on the device (a full vector whose host array is never made, emptied by a
/// replace-assign under the complement of its own structure: one fill and one pass on the
/// device), so that neither a host bitmap nor its upload is paid; elsewhere Vector::empty.
template <class T>
Vector<T> empty_vector(std::int64_t n, const Descriptor& desc) {
  if (desc.device != Device::Cuda || n == 0) return Vector<T>::empty(n);
  Vector<T> v(n);
  assign(v, Mask::structural(v, /*complement=*/true), Accum::none(), T{}, with_replace(desc));
  return v;
}

template <class I, class V>
void require_square(const Graph<I, V>& A, const char* who) {
  if (!A.is_square()) {
    throw InvalidArgument(std::string(who) +
                          ": the graph must be square (an adjacency matrix), got " +
                          std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
}

inline void require_source(std::int64_t source, std::int64_t n, const char* who) {
  if (source < 0 || source >= n) {
    throw IndexOutOfBounds(std::string(who) + ": source vertex " + std::to_string(source) +
                           " is outside [0, " + std::to_string(n) + ")" +
                           (n == 0 ? " (the graph has no vertices)" : ""));
  }
}

/// The pattern (structure only) of a valued graph, made at the first call and kept with the graph
/// in an extension slot, as its transpose and device copy are: later calls on the same graph
/// reuse it and what is cached on it (its transpose, device copy and plans) instead of copying
/// the structure, building its transpose and uploading it again every call. The price is memory
/// held for the graph's lifetime: one structure copy (offsets and column indices) on the host,
/// and whatever the calls cache on it (a transposed structure; on CUDA the device copies of both,
/// beside the valued graph's own).
template <class I, class V>
const Graph<I, Pattern>& pattern_of(const Graph<I, V>& A) {
  struct Slot final : ExtensionSlot {
    explicit Slot(Graph<I, Pattern> p) : g(std::move(p)) {}
    Graph<I, Pattern> g;
  };
  return A
      .template extension<Slot>(
          "algorithms.pattern",
          [&] { return std::make_unique<Slot>(A.template with_values<Pattern>()); })
      .g;
}

/// Calls f(G) with the graph to multiply by: A itself when its values are wanted (or it is a
/// pattern graph already), else its pattern (half the bytes per edge): the one kept with the graph
/// (pattern_of) for the iterative algorithms, or with `keep` false a copy for this call only (a
/// graph read once, as gcn_normalize reads its input).
template <class I, class V, class F>
decltype(auto) with_operand_graph(const Graph<I, V>& A, bool use_values, F&& f, bool keep = true) {
  if constexpr (is_pattern_v<V>) {
    (void)use_values;
    (void)keep;
    return f(A);
  } else {
    if (use_values) return f(A);
    if (!keep) return f(A.template with_values<Pattern>());
    return f(pattern_of(A));
  }
}

}  // namespace detail
}  // namespace spindle

/// Explicit instantiation over every index and value type for T in {float, double}.
#define SPINDLE_ALG_INSTANTIATE_TIV(MACRO) \
  MACRO(float, std::int32_t, float)        \
  MACRO(float, std::int32_t, double)       \
  MACRO(float, std::int32_t, Pattern)      \
  MACRO(float, std::int64_t, float)        \
  MACRO(float, std::int64_t, double)       \
  MACRO(float, std::int64_t, Pattern)      \
  MACRO(double, std::int32_t, float)       \
  MACRO(double, std::int32_t, double)      \
  MACRO(double, std::int32_t, Pattern)     \
  MACRO(double, std::int64_t, float)       \
  MACRO(double, std::int64_t, double)      \
  MACRO(double, std::int64_t, Pattern)
