// SPDX-License-Identifier: Apache-2.0
#pragma once
// CPU kernels of the sparse x sparse mxm (internal; instantiated in spgemm_f32.cpp and
// spgemm_f64.cpp). Every output row is computed by one thread, its products added in increasing
// k with the first product starting the sum, so every kernel gives the same bits for any thread
// count (and the kernels agree with each other bit for bit).

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/core/spgemm.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/error.hpp"
#include "spindle/ops/cpu/parallel.hpp"

namespace spindle::detail::cpu_kernels::spgemm {

/// Outputs whose per-row upper bounds sum to at most this many entries are computed in one pass
/// into slots of the bound's size and compacted; larger ones count their rows first. 4M entries
/// is at most 64 MB of staging with int64 indices and double values.
inline constexpr std::int64_t kSinglePassEntries = std::int64_t{1} << 22;

/// Rows handed out to a thread at a time (dynamic schedule: row costs vary by orders of
/// magnitude on power-law graphs).
inline constexpr int kRowChunk = 64;

inline std::int64_t sat_add(std::int64_t a, std::int64_t b) { return spgemm_sat_add(a, b); }

/// Row-wise Gustavson with a dense accumulator, optionally restricted by a mask (plain or
/// complemented): the SpgemmKernel GustavsonDense and MaskedGustavson.
template <class S, class I>
struct DenseRows {
  using T = typename S::value_type;
  CsrView<I, T> A;
  CsrView<I, T> B;
  MaskView<I> M;  // rp == nullptr: unmasked
  const std::vector<std::int64_t>* flops;

  struct Workspace {
    std::vector<T> acc;
    std::vector<std::int64_t> mark;
    std::vector<I> touched;
  };
  Workspace make_workspace(std::int64_t max_row) const {
    Workspace w;
    w.acc = workspace<T>(static_cast<std::size_t>(B.cols), "sparse mxm: dense accumulator");
    w.mark = workspace<std::int64_t>(static_cast<std::size_t>(B.cols), std::int64_t{-1},
                                     "sparse mxm: dense accumulator marks");
    checked_reserve(w.touched, static_cast<std::size_t>(max_row), "sparse mxm: row columns");
    return w;
  }
  std::int64_t mask_len(std::int64_t i) const {
    return M.present() ? static_cast<std::int64_t>(M.rp[i + 1]) - M.rp[i] : 0;
  }
  std::int64_t upper(std::int64_t i) const {
    std::int64_t u = std::min((*flops)[i], B.cols);
    if (M.present()) u = std::min(u, M.complement ? B.cols - mask_len(i) : mask_len(i));
    return u;
  }
  // Scatters row i's products with marks based at `base` (base + 1: a mask column, allowed for a
  // plain mask, forbidden for a complemented one; base + 2: a column holding a value). Returns
  // the number of distinct columns reached; with `values`, accumulates them.
  template <bool kValues>
  std::int64_t scatter(Workspace& w, std::int64_t i, std::int64_t base) const {
    const bool masked = M.present();
    const bool plain_mask = masked && !M.complement;
    if (plain_mask && mask_len(i) == 0) return 0;
    if (masked) {
      for (I p = M.rp[i]; p < M.rp[i + 1]; ++p) w.mark[M.ci[p]] = base + 1;
    }
    std::int64_t n = 0;
    if constexpr (kValues) w.touched.clear();
    for (I ka = A.rp[i]; ka < A.rp[i + 1]; ++ka) {
      const I k = A.ci[ka];
      const T a = A.val(ka);
      for (I kb = B.rp[k]; kb < B.rp[k + 1]; ++kb) {
        const I j = B.ci[kb];
        std::int64_t& m = w.mark[j];
        if (m == base + 2) {
          if constexpr (kValues) w.acc[j] = S::add(w.acc[j], S::mul(a, B.val(kb)));
          continue;
        }
        if (masked && ((m == base + 1) != plain_mask)) continue;
        m = base + 2;
        ++n;
        if constexpr (kValues) {
          w.acc[j] = S::mul(a, B.val(kb));
          if (!plain_mask) w.touched.push_back(j);
        }
      }
    }
    return n;
  }
  std::int64_t count(Workspace& w, std::int64_t i) const { return scatter<false>(w, i, 6 * i); }
  std::int64_t fill(Workspace& w, std::int64_t i, I* oc, T* ov) const {
    const std::int64_t base = 6 * i + 3;
    const std::int64_t n = scatter<true>(w, i, base);
    if (n == 0) return 0;
    std::int64_t o = 0;
    if (M.present() && !M.complement) {
      for (I p = M.rp[i]; p < M.rp[i + 1]; ++p) {
        const I j = M.ci[p];
        if (w.mark[j] == base + 2) {
          oc[o] = j;
          ov[o++] = w.acc[j];
        }
      }
    } else if (n * 16 > B.cols) {
      // Dense enough that a scan of the marks beats sorting the touched columns.
      for (std::int64_t j = 0; j < B.cols; ++j) {
        if (w.mark[j] == base + 2) {
          oc[o] = static_cast<I>(j);
          ov[o++] = w.acc[j];
        }
      }
    } else {
      std::sort(w.touched.begin(), w.touched.end());
      for (const I j : w.touched) {
        oc[o] = j;
        ov[o++] = w.acc[j];
      }
    }
    return o;
  }
};

/// Row-wise Gustavson with a hash accumulator sized to the row's products (unmasked):
/// SpgemmKernel::GustavsonHash.
template <class S, class I>
struct HashRows {
  using T = typename S::value_type;
  CsrView<I, T> A;
  CsrView<I, T> B;
  const std::vector<std::int64_t>* flops;

  struct Workspace {
    std::vector<I> keys;
    std::vector<T> vals;
    std::vector<std::int64_t> used;
  };
  static std::size_t table_size(std::int64_t need) {
    int bits = 4;
    while ((std::int64_t{1} << bits) < 2 * need) ++bits;
    return std::size_t{1} << bits;
  }
  // Sized for the longest row here, outside the parallel region: nothing allocates inside it.
  Workspace make_workspace(std::int64_t max_row) const {
    Workspace w;
    const std::size_t cap = table_size(max_row);
    w.keys = workspace<I>(cap, I(-1), "sparse mxm: hash accumulator");
    w.vals = workspace<T>(cap, "sparse mxm: hash accumulator");
    checked_reserve(w.used, static_cast<std::size_t>(max_row), "sparse mxm: row columns");
    return w;
  }
  std::int64_t upper(std::int64_t i) const { return std::min((*flops)[i], B.cols); }

  template <bool kValues>
  std::int64_t insert_row(Workspace& w, std::int64_t i, int& shift) const {
    const std::int64_t need = upper(i);
    if (need == 0) return 0;
    const std::size_t cap = table_size(need);  // <= w.keys.size(): make_workspace's max_row
    int bits = 0;
    while ((std::size_t{1} << bits) < cap) ++bits;
    shift = 64 - bits;
    const std::uint64_t slot_mask = cap - 1;
    w.used.clear();
    for (I ka = A.rp[i]; ka < A.rp[i + 1]; ++ka) {
      const I k = A.ci[ka];
      const T a = A.val(ka);
      for (I kb = B.rp[k]; kb < B.rp[k + 1]; ++kb) {
        const I j = B.ci[kb];
        std::uint64_t h = (static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull) >> shift;
        while (true) {
          I& key = w.keys[h];
          if (key == j) {
            if constexpr (kValues) w.vals[h] = S::add(w.vals[h], S::mul(a, B.val(kb)));
            break;
          }
          if (key == I(-1)) {
            key = j;
            w.used.push_back(static_cast<std::int64_t>(h));
            if constexpr (kValues) w.vals[h] = S::mul(a, B.val(kb));
            break;
          }
          h = (h + 1) & slot_mask;
        }
      }
    }
    return static_cast<std::int64_t>(w.used.size());
  }
  void reset(Workspace& w) const {
    for (const std::int64_t h : w.used) w.keys[h] = I(-1);
  }
  std::int64_t count(Workspace& w, std::int64_t i) const {
    int shift = 0;
    const std::int64_t n = insert_row<false>(w, i, shift);
    reset(w);
    return n;
  }
  std::int64_t fill(Workspace& w, std::int64_t i, I* oc, T* ov) const {
    int shift = 0;
    const std::int64_t n = insert_row<true>(w, i, shift);
    std::sort(w.used.begin(), w.used.end(),
              [&w](std::int64_t x, std::int64_t y) { return w.keys[x] < w.keys[y]; });
    for (std::int64_t o = 0; o < n; ++o) {
      oc[o] = w.keys[w.used[o]];
      ov[o] = w.vals[w.used[o]];
    }
    reset(w);
    return n;
  }
};

/// C(i,j) = A(i,:)·B(:,j) for each entry (i,j) of a plain mask, B(:,j) read as row j of B^T:
/// SpgemmKernel::MaskedDot.
template <class S, class I>
struct DotRows {
  using T = typename S::value_type;
  CsrView<I, T> A;
  CsrView<I, T> Bt;
  MaskView<I> M;

  struct Workspace {};
  Workspace make_workspace(std::int64_t /*max_row*/) const { return Workspace{}; }
  std::int64_t upper(std::int64_t i) const {
    return A.len(i) == 0 ? 0 : static_cast<std::int64_t>(M.rp[i + 1]) - M.rp[i];
  }
  // The dot product of A(i,:) and Bt(j,:) in increasing k; false when they share no k. A much
  // shorter list is searched into the longer one (galloping) instead of merged.
  template <bool kValues>
  bool dot(std::int64_t i, std::int64_t j, T& out) const {
    I pa = A.rp[i];
    const I ea = A.rp[i + 1];
    I pb = Bt.rp[j];
    const I eb = Bt.rp[j + 1];
    if (pa == ea || pb == eb) return false;
    if (A.ci[ea - 1] < Bt.ci[pb] || Bt.ci[eb - 1] < A.ci[pa]) return false;
    bool any = false;
    T acc{};
    auto take = [&](I ka, I kb) {
      if constexpr (kValues) {
        const T p = S::mul(A.val(ka), Bt.val(kb));
        acc = any ? S::add(acc, p) : p;
      }
      any = true;
    };
    const std::int64_t la = ea - pa;
    const std::int64_t lb = eb - pb;
    if (la * 16 < lb) {
      for (; pa < ea && pb < eb; ++pa) {
        pb = static_cast<I>(std::lower_bound(Bt.ci + pb, Bt.ci + eb, A.ci[pa]) - Bt.ci);
        if (pb < eb && Bt.ci[pb] == A.ci[pa]) {
          take(pa, pb);
          if constexpr (!kValues) return true;
          ++pb;
        }
      }
    } else if (lb * 16 < la) {
      for (; pb < eb && pa < ea; ++pb) {
        pa = static_cast<I>(std::lower_bound(A.ci + pa, A.ci + ea, Bt.ci[pb]) - A.ci);
        if (pa < ea && A.ci[pa] == Bt.ci[pb]) {
          take(pa, pb);
          if constexpr (!kValues) return true;
          ++pa;
        }
      }
    } else {
      while (pa < ea && pb < eb) {
        const I ka = A.ci[pa];
        const I kb = Bt.ci[pb];
        if (ka < kb) {
          ++pa;
        } else if (kb < ka) {
          ++pb;
        } else {
          take(pa, pb);
          if constexpr (!kValues) return true;
          ++pa;
          ++pb;
        }
      }
    }
    out = acc;
    return any;
  }
  std::int64_t count(Workspace&, std::int64_t i) const {
    if (A.len(i) == 0) return 0;
    std::int64_t n = 0;
    T unused{};
    for (I p = M.rp[i]; p < M.rp[i + 1]; ++p) n += dot<false>(i, M.ci[p], unused) ? 1 : 0;
    return n;
  }
  std::int64_t fill(Workspace&, std::int64_t i, I* oc, T* ov) const {
    if (A.len(i) == 0) return 0;
    std::int64_t o = 0;
    for (I p = M.rp[i]; p < M.rp[i + 1]; ++p) {
      T t{};
      if (dot<true>(i, M.ci[p], t)) {
        oc[o] = M.ci[p];
        ov[o++] = t;
      }
    }
    return o;
  }
};

/// Runs kernel `k` over every row into `out`: in one pass into slots of each row's upper bound
/// (then compacted) when the bounds are small, else a counting pass, the checked allocation, and
/// a filling pass. `work` is the kernel's total work, for the thread count.
template <class I, class T, class Kernel>
void run_rows(const Kernel& k, std::int64_t rows, std::int64_t cols, std::int64_t work,
              std::int64_t single_pass_limit, CsrArrays<I, T>& out) {
  const int threads = threads_for_work(sat_add(work, rows));
  std::vector<std::int64_t> counts(static_cast<std::size_t>(rows) + 1, 0);
  std::int64_t total_ub = 0;
  std::int64_t max_ub = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t u = k.upper(i);
    total_ub = sat_add(total_ub, u);
    max_ub = std::max(max_ub, u);
  }
  // Every workspace is allocated here, through the checked allocators: the parallel regions
  // below allocate nothing, so no exception can start inside one.
  std::vector<typename Kernel::Workspace> ws;
  ws.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) ws.push_back(k.make_workspace(max_ub));
  const bool single = total_ub <= std::max(single_pass_limit, kSinglePassEntries) &&
                      total_ub <= static_cast<std::int64_t>(std::numeric_limits<I>::max());

  if (single) {
    // Slot offsets from the bounds; rows write their count into counts[i + 1].
    std::vector<std::int64_t> slot(static_cast<std::size_t>(rows) + 1, 0);
    for (std::int64_t i = 0; i < rows; ++i) slot[i + 1] = slot[i] + k.upper(i);
    std::vector<I> sc =
        large_workspace<I>(static_cast<std::size_t>(total_ub), "sparse mxm: staging");
    std::vector<T> sv =
        large_workspace<T>(static_cast<std::size_t>(total_ub), "sparse mxm: staging");
#pragma omp parallel num_threads(threads)
    {
      auto& w = ws[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, kRowChunk)
      for (std::int64_t i = 0; i < rows; ++i) {
        counts[i + 1] = k.fill(w, i, sc.data() + slot[i], sv.data() + slot[i]);
      }
    }
    for (std::int64_t i = 0; i < rows; ++i) counts[i + 1] += counts[i];
    const std::int64_t total = counts[rows];
    out.rp.resize(static_cast<std::size_t>(rows) + 1);
    for (std::int64_t i = 0; i <= rows; ++i) out.rp[i] = static_cast<I>(counts[i]);
    if (total == total_ub) {
      out.ci = std::move(sc);
      out.v = std::move(sv);
      return;
    }
    out.ci = large_workspace<I>(static_cast<std::size_t>(total), "sparse mxm: column indices");
    out.v = large_workspace<T>(static_cast<std::size_t>(total), "sparse mxm: values");
    for_each_index_block(rows, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        std::copy(sc.begin() + slot[i], sc.begin() + slot[i] + (counts[i + 1] - counts[i]),
                  out.ci.begin() + counts[i]);
        std::copy(sv.begin() + slot[i], sv.begin() + slot[i] + (counts[i + 1] - counts[i]),
                  out.v.begin() + counts[i]);
      }
    });
    return;
  }

#pragma omp parallel num_threads(threads)
  {
    auto& w = ws[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, kRowChunk)
    for (std::int64_t i = 0; i < rows; ++i) counts[i + 1] = k.count(w, i);
  }
  for (std::int64_t i = 0; i < rows; ++i) counts[i + 1] = sat_add(counts[i + 1], counts[i]);
  const std::int64_t total = counts[rows];
  check_spgemm_output<I, T>(total, rows, cols, "entries");
  out.rp.resize(static_cast<std::size_t>(rows) + 1);
  for (std::int64_t i = 0; i <= rows; ++i) out.rp[i] = static_cast<I>(counts[i]);
  out.ci = large_workspace<I>(static_cast<std::size_t>(total), "sparse mxm: column indices");
  out.v = large_workspace<T>(static_cast<std::size_t>(total), "sparse mxm: values");
#pragma omp parallel num_threads(threads)
  {
    auto& w = ws[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, kRowChunk)
    for (std::int64_t i = 0; i < rows; ++i) {
      k.fill(w, i, out.ci.data() + counts[i], out.v.data() + counts[i]);
    }
  }
}

}  // namespace spindle::detail::cpu_kernels::spgemm

namespace spindle::detail {

template <class I, class T>
std::vector<std::int64_t> row_flops(const CsrView<I, T>& A, const CsrView<I, T>& B) {
  std::vector<std::int64_t> f =
      workspace<std::int64_t>(static_cast<std::size_t>(A.rows), "sparse mxm: products per row");
  cpu_kernels::for_each_row_block(A.rp, A.rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      std::int64_t s = 0;
      for (I ka = A.rp[i]; ka < A.rp[i + 1]; ++ka)
        s = cpu_kernels::spgemm::sat_add(s, B.len(A.ci[ka]));
      f[i] = s;
    }
  });
  return f;
}

template <class I, class T>
void check_spgemm_output(std::int64_t entries, std::int64_t rows, std::int64_t cols,
                         const char* what) {
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols);
  if (entries > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
    throw InvalidArgument(
        "sparse mxm: the " + shape + " product has " +
        (entries == std::numeric_limits<std::int64_t>::max() ? std::string("more than 2^63")
                                                             : std::to_string(entries)) +
        " " + what + ", more than the index type " + to_string(index_kind_of<I>()) + " holds (" +
        std::to_string(std::numeric_limits<I>::max()) + "); use int64 indices or a mask");
  }
  // Saturating: with int64 indices an entry count near 2^60 would wrap the product.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t offsets = (static_cast<std::uint64_t>(rows) + 1) * sizeof(I);
  const std::uint64_t per_entry = sizeof(I) + sizeof(T);
  const std::uint64_t bytes = static_cast<std::uint64_t>(entries) > (kMax - offsets) / per_entry
                                  ? kMax
                                  : static_cast<std::uint64_t>(entries) * per_entry + offsets;
  const std::uint64_t total = host_total_bytes();
  if (total != 0 && bytes > total) {
    throw OutOfMemory("sparse mxm: the " + shape + " product has " + std::to_string(entries) + " " +
                      what + ": its arrays need " + format_bytes(bytes) + ", more than the " +
                      format_bytes(total) + " of host memory (physical plus swap); use a mask");
  }
}

template <class S, class I>
void spgemm_cpu(const Plan& plan, const CsrView<I, typename S::value_type>& A,
                const CsrView<I, typename S::value_type>& B,
                const CsrView<I, typename S::value_type>* Bt, const MaskView<I>& mask,
                const std::vector<std::int64_t>& flops, CsrArrays<I, typename S::value_type>& out) {
  namespace k = cpu_kernels::spgemm;
  std::int64_t total_flops = 0;
  for (const std::int64_t f : flops) total_flops = k::sat_add(total_flops, f);
  const std::int64_t inputs = k::sat_add(A.rp[A.rows], B.rp[B.rows]);
  const std::int64_t mask_entries = mask.present() ? mask.rp[A.rows] : 0;
  switch (plan.spgemm) {
    case SpgemmKernel::MaskedDot: {
      if (Bt == nullptr || !mask.present() || mask.complement) {
        throw InvalidArgument("sparse mxm: masked_dot needs a plain mask and B^T (planner bug)");
      }
      k::DotRows<S, I> rows{A, *Bt, mask};
      // Work: each mask entry intersects two rows; the planner's estimate is not needed here.
      k::run_rows<I>(rows, A.rows, B.cols, k::sat_add(mask_entries, inputs),
                     k::sat_add(mask_entries, inputs), out);
      return;
    }
    case SpgemmKernel::MaskedGustavson:
    case SpgemmKernel::GustavsonDense:
    case SpgemmKernel::Auto: {
      k::DenseRows<S, I> rows{
          A, B, plan.spgemm == SpgemmKernel::MaskedGustavson ? mask : MaskView<I>{}, &flops};
      k::run_rows<I>(rows, A.rows, B.cols, total_flops, k::sat_add(mask_entries, inputs), out);
      return;
    }
    case SpgemmKernel::GustavsonHash: {
      k::HashRows<S, I> rows{A, B, &flops};
      k::run_rows<I>(rows, A.rows, B.cols, total_flops, inputs, out);
      return;
    }
    case SpgemmKernel::CudaRowwise:
    case SpgemmKernel::CudaMaskedDot:
      break;
  }
  throw InvalidArgument(std::string("sparse mxm: ") + to_string(plan.spgemm) +
                        " is a CUDA kernel (planner bug: a CPU plan names it)");
}

}  // namespace spindle::detail
