// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file reduce_impl.hpp
/// @brief CPU reductions. Scalar reductions split the vector into blocks of a FIXED size
/// (kReduceBlock elements, independent of the thread count), reduce each block in index order,
/// and combine the block results in block order: the same bits for any number of threads.
/// Row reductions give each row to one thread, in column order.

#include <cmath>
#include <cstdint>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/functors.hpp"
#include "spindle/ops/cpu/output.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

/// Elements per reduction block. Part of the result's definition (it fixes the summation
/// order), so it must never depend on the machine: 4096 floats are 16 KiB, a block per L1.
inline constexpr std::int64_t kReduceBlock = 4096;

/// Lanes of the in-block partial sums for full vectors: eight independent accumulators (fixed by
/// the element's offset in its block) let the loop vectorize while the order stays fixed.
inline constexpr int kReduceLanes = 8;

/// Reduces blocks: block_fn(b, i0, i1, T& out) -> bool (false: the block had no element).
/// Combines the present block results in block order; `identity` when there are none.
template <class T, class Combine, class BlockFn>
T reduce_blocks(std::int64_t n, T identity, Combine combine, BlockFn block_fn) {
  if (n <= 0) return identity;
  const std::int64_t blocks = (n + kReduceBlock - 1) / kReduceBlock;
  std::vector<T> part(static_cast<std::size_t>(blocks), identity);
  std::vector<std::uint8_t> has(static_cast<std::size_t>(blocks), 0);
  const int threads = threads_for_work(n);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t i0 = b * kReduceBlock;
    const std::int64_t i1 = std::min(n, i0 + kReduceBlock);
    T r = identity;
    has[b] = block_fn(i0, i1, r) ? 1 : 0;
    part[b] = r;
  }
  bool any = false;
  T acc = identity;
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (has[b] == 0) continue;
    acc = any ? combine(acc, part[b]) : part[b];
    any = true;
  }
  return acc;
}

/// Sum of f(i) over [i0, i1) with kReduceLanes fixed lanes, combined pairwise.
template <class T, class F>
T lane_sum(std::int64_t i0, std::int64_t i1, F f) {
  T lane[kReduceLanes] = {};
  std::int64_t i = i0;
  for (; i + kReduceLanes <= i1; i += kReduceLanes) {
    for (int l = 0; l < kReduceLanes; ++l) lane[l] += f(i + l);
  }
  for (int l = 0; i < i1; ++i, ++l) lane[l] += f(i);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/// The monoid over the present entries of u; identity when none is present.
template <class T>
T reduce_vector(MonoidKind monoid, const Vector<T>& u) {
  const T* x = u.data();
  const std::uint8_t* p = u.bitmap_ptr();
  const T identity = monoid_identity_of<T>(monoid);
  return with_monoid(monoid, [&](auto mc) {
    constexpr MonoidKind M = decltype(mc)::value;
    auto combine = [](T a, T b) { return monoid_op(M, a, b); };
    return reduce_blocks<T>(u.size(), identity, combine,
                            [&](std::int64_t i0, std::int64_t i1, T& out) {
                              if (p == nullptr) {
                                if constexpr (M == MonoidKind::Plus) {
                                  out = lane_sum<T>(i0, i1, [&](std::int64_t i) { return x[i]; });
                                  return true;
                                }
                                T acc = monoid_first(M, x[i0]);
                                for (std::int64_t i = i0 + 1; i < i1; ++i) acc = combine(acc, x[i]);
                                out = acc;
                                return true;
                              }
                              bool any = false;
                              T acc = identity;
                              for (std::int64_t i = i0; i < i1; ++i) {
                                if (p[i] == 0) continue;
                                acc = any ? combine(acc, x[i]) : monoid_first(M, x[i]);
                                any = true;
                              }
                              out = acc;
                              return any;
                            });
  });
}

/// Sum of |u(i) - v(i)| over the entries present in both (0 when none).
template <class T>
T l1_distance(const Vector<T>& u, const Vector<T>& v) {
  const T* a = u.data();
  const T* b = v.data();
  const std::uint8_t* pa = u.bitmap_ptr();
  const std::uint8_t* pb = v.bitmap_ptr();
  auto absdiff = [](T x, T y) { return x < y ? y - x : x - y; };
  return reduce_blocks<T>(
      u.size(), T(0), [](T x, T y) { return x + y; },
      [&](std::int64_t i0, std::int64_t i1, T& out) {
        if (pa == nullptr && pb == nullptr) {
          out = lane_sum<T>(i0, i1, [&](std::int64_t i) { return absdiff(a[i], b[i]); });
          return true;
        }
        T acc = T(0);
        for (std::int64_t i = i0; i < i1; ++i) {
          if ((pa == nullptr || pa[i] != 0) && (pb == nullptr || pb[i] != 0)) {
            acc += absdiff(a[i], b[i]);
          }
        }
        out = acc;
        return true;
      });
}

/// w<mask> = accum(w, t), t(i) = the monoid over the stored entries of row i of G (as T;
/// pattern graphs: 1 each), absent for empty rows. G is A or its transpose.
template <class T, class I, class V>
void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,
                 const Graph<I, V>& G, bool replace) {
  const I* rp = G.row_ptr().data();
  const V* av = G.value_ptr();
  const std::int64_t m = G.rows();
  with_monoid(monoid, [&](auto mc) {
    constexpr MonoidKind M = decltype(mc)::value;
    auto row = [&](std::int64_t i) {
      const I k0 = rp[i];
      const I k1 = rp[i + 1];
      T acc = monoid_first(M, entry_value<T, V>(av, k0));
      for (I k = k0 + 1; k < k1; ++k) acc = monoid_op(M, acc, entry_value<T, V>(av, k));
      return acc;
    };
    if (mask.empty() && !accum.enabled) {
      T* wv = w.data();
      w.bitmap().resize(static_cast<std::size_t>(m));
      std::uint8_t* wp = w.bitmap().data();
      for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t i = r0; i < r1; ++i) {
          const bool nonempty = rp[i + 1] > rp[i];
          wp[i] = nonempty ? 1 : 0;
          wv[i] = nonempty ? row(i) : monoid_identity_of<T>(M);
        }
      });
      w.compact();
      return;
    }
    VectorOutput<T> out(w, mask, accum, replace);
    for_each_row_block(rp, m, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        out.visit(i, [&](T& t) {
          if (rp[i + 1] == rp[i]) return false;
          t = row(i);
          return true;
        });
      }
    });
    out.finish();
  });
}

}  // namespace spindle::detail::cpu_kernels
