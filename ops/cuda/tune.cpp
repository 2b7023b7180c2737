// SPDX-License-Identifier: Apache-2.0
// mxv tuning mode (spindle/cuda/tune.hpp): candidates timed with CUDA events, the winner cached
// on the graph and optionally in a plan-cache file keyed by a fingerprint.
#include "spindle/cuda/tune.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "ops/cuda/mxv/sliced_slots.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/executor.hpp"

namespace spindle {
namespace detail::cuda {
namespace {

// sliced_coo is a candidate up to this many entries: its layout is a second copy of them, cached
// on the graph per slot size (losers are kept too), and the planner takes it below 2^17 entries.
constexpr std::int64_t kSlicedTuneMaxEntries = std::int64_t{1} << 20;

// The candidates: every kernel over the launch-parameter ranges our sweeps found relevant.
std::vector<Plan> candidates(const GraphStats& st) {
  std::vector<Plan> c;
  auto add = [&](MxvKernel k, int lanes, std::int64_t items, int relabel = 0) {
    Plan p;
    p.op = OpKind::Mxv;
    p.device = Device::Cuda;
    p.mxv = k;
    p.params.lanes_per_row = lanes;
    p.params.items_per_worker = items;
    p.params.tile = relabel;  // 1: columns relabelled by in-degree (mxv_entry.cuh)
    p.tuned = true;
    c.push_back(p);
  };
  add(MxvKernel::Generic, 0, 0);
  add(MxvKernel::RowPerThread, 0, 0);
  for (int lanes : {2, 4, 8, 16, 32}) add(MxvKernel::SubwarpPerRow, lanes, 0);
  for (std::int64_t chunk : {256, 512, 1024, 2048, 4096}) {
    add(MxvKernel::NnzSplitSegmented, 0, chunk);
  }
  for (int k : {4, 6, 8, 10, 12, 16}) add(MxvKernel::MergePath, 0, k);
  for (std::int64_t entries : {256, 512, 1024}) add(MxvKernel::RowBlock, 0, entries);
  for (int lanes : {8, 32}) add(MxvKernel::SubwarpPerRow, lanes, 0, 1);
  for (std::int64_t chunk : {512, 1024, 2048}) add(MxvKernel::NnzSplitSegmented, 0, chunk, 1);
  add(MxvKernel::MergePath, 0, 6, 1);
  for (std::int64_t entries : {256, 512, 1024}) add(MxvKernel::RowBlock, 0, entries, 1);
  // column_segmented at the planner's width (a share of L2): one range unless u outgrows it.
  add(MxvKernel::ColumnSegmented, 0, 0);
  add(MxvKernel::ColumnSegmented, 0, 0, 1);
  // sliced_coo's slot sizes that hold the longest row (a shorter one would time row_block),
  // on graphs small enough for its layout (a copy of the entries with their rows).
  if (st.nnz + st.empty_rows <= kSlicedTuneMaxEntries) {
    const std::int64_t smallest = sliced_slot_for(st.max_row);
    for (std::int64_t slot : kSlicedSlots) {
      if (smallest > 0 && slot >= smallest) add(MxvKernel::SlicedCoo, 0, slot);
    }
  }
  return c;
}

std::uint64_t fnv(std::uint64_t h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h;
}

template <class I>
std::uint64_t hash_samples(std::uint64_t h, const std::vector<I>& v) {
  const std::size_t n = v.size();
  const std::size_t samples = std::min<std::size_t>(n, 4096);
  for (std::size_t s = 0; s < samples; ++s) {
    const std::size_t i = samples == n ? s : s * (n - 1) / (samples - 1);
    const auto x = static_cast<std::int64_t>(v[i]);
    h = fnv(h, &x, sizeof x);
  }
  return h;
}

std::optional<Plan> parse_plan(const std::string& kernel, int lanes, std::int64_t items, int tile) {
  const auto k = parse_mxv_kernel(kernel);
  if (!k) return std::nullopt;
  Plan p;
  p.op = OpKind::Mxv;
  p.device = Device::Cuda;
  p.mxv = *k;
  p.params.lanes_per_row = lanes;
  p.params.items_per_worker = items;
  p.params.tile = tile;
  p.tuned = true;
  return p;
}

// Reads the cache file: fingerprint -> plan. A missing file is an empty cache.
std::map<std::string, std::string> read_cache_lines(const std::string& path) {
  std::map<std::string, std::string> lines;
  std::ifstream in(path);
  if (!in) return lines;
  std::string line;
  std::int64_t no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string fp;
    if (!(ls >> fp)) {
      throw InvalidArgument(path + ":" + std::to_string(no) +
                            ": expected '<fingerprint> <kernel> <lanes> <items> <tile> <ms>'");
    }
    lines[fp] = line;
  }
  return lines;
}

std::optional<Plan> plan_from_line(const std::string& path, const std::string& line) {
  std::istringstream ls(line);
  std::string fp, kernel;
  int lanes = 0, tile = 0;
  std::int64_t items = 0;
  double ms = 0;
  if (!(ls >> fp >> kernel >> lanes >> items >> tile >> ms)) {
    throw InvalidArgument(path + ": malformed plan-cache line '" + line + "'");
  }
  auto p = parse_plan(kernel, lanes, items, tile);
  if (!p) throw InvalidArgument(path + ": unknown kernel '" + kernel + "' in the plan cache");
  p->reason = "tuned (plan cache " + path + ")";
  return p;
}

void write_cache(const std::string& path, std::map<std::string, std::string> lines,
                 const std::string& fp, const std::string& line) {
  lines[fp] = line;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw InvalidArgument("cannot write the plan cache " + tmp);
    out << "# spindle mxv plan cache: <fingerprint> <kernel> <lanes> <items> <tile> <ms>\n";
    for (const auto& kv : lines) out << kv.second << "\n";
    if (!out) throw InvalidArgument("cannot write the plan cache " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InvalidArgument("cannot replace the plan cache " + path);
  }
}

}  // namespace
}  // namespace detail::cuda

template <class S, class I, class V>
std::string mxv_fingerprint(const Graph<I, V>& A) {
  std::uint64_t h = 1469598103934665603ull;
  const std::int64_t dims[3] = {A.rows(), A.cols(), static_cast<std::int64_t>(A.nnz())};
  h = detail::cuda::fnv(h, dims, sizeof dims);
  h = detail::cuda::hash_samples(h, A.row_ptr());
  h = detail::cuda::hash_samples(h, A.col_idx());
  const DeviceCaps& caps = device_caps();
  const std::string tag =
      std::string(to_string(S::kind)) + "/" + to_string(value_kind_of<typename S::value_type>()) +
      "/" + to_string(value_kind_of<V>()) + "/" + to_string(index_kind_of<I>()) + "/" + caps.name +
      "/sm" + std::to_string(caps.cc_major) + std::to_string(caps.cc_minor);
  h = detail::cuda::fnv(h, tag.data(), tag.size());
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string(hex) + "-" + std::to_string(A.rows()) + "-" + std::to_string(A.nnz());
}

template <class S, class I, class V>
TuneResult tune_mxv(const Graph<I, V>& A, const TuneOptions& options) {
  using T = typename S::value_type;
  if (!cuda_available()) throw Unsupported("tune_mxv: no CUDA device is visible");
  TuneResult r;
  r.fingerprint = mxv_fingerprint<S>(A);
  const ValueKind tk = value_kind_of<T>();
  if (auto p = detail::tuned_mxv_plan(A, S::kind, tk)) {
    r.best = *p;
    r.from_cache = true;
    return r;
  }
  std::map<std::string, std::string> file_lines;
  if (!options.plan_cache.empty()) {
    file_lines = detail::cuda::read_cache_lines(options.plan_cache);
    const auto it = file_lines.find(r.fingerprint);
    if (it != file_lines.end()) {
      r.best = *detail::cuda::plan_from_line(options.plan_cache, it->second);
      r.from_cache = true;
      detail::set_tuned_mxv_plan(A, S::kind, tk, r.best);
      return r;
    }
  }
  Vector<T> u(A.cols());
  for (std::int64_t j = 0; j < u.size(); ++j) u[j] = T(1) + static_cast<T>(j % 7) / T(8);
  Vector<T> w(A.rows(), T(0));
  double best = -1;
  const detail::MxvInfo info =
      detail::plain_mxv_info(S::kind, value_kind_of<T>(), value_kind_of<V>(), index_kind_of<I>());
  for (Plan p : detail::cuda::candidates(A.stats())) {
    // Every candidate runs as the planner completes it (forms, defaults); one that cannot run
    // this graph or semiring (sliced_coo's slots, a semiring without specialized kernels) is
    // not timed.
    if (!detail::finalize_mxv_cuda(p, A.stats(), info, device_caps()).empty()) continue;
    const std::vector<float> ms = detail::cuda::time_runs(
        [&] { detail::cuda::mxv<S>(p, w, Mask{}, Accum::none(), A, u, false, false); }, 2,
        std::max(1, options.repetitions));
    const double med = detail::cuda::median(ms);
    r.candidates.emplace_back(p, med);
    if (best < 0 || med < best) {
      best = med;
      r.best = p;
    }
  }
  r.best_ms = best;
  char why[96];
  std::snprintf(why, sizeof why, "tuned: fastest of %zu candidates (%.4f ms)", r.candidates.size(),
                best);
  r.best.reason = why;
  detail::set_tuned_mxv_plan(A, S::kind, tk, r.best);
  if (!options.plan_cache.empty()) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.5f", best);
    const std::string line = r.fingerprint + " " + to_string(r.best.mxv) + " " +
                             std::to_string(r.best.params.lanes_per_row) + " " +
                             std::to_string(r.best.params.items_per_worker) + " " +
                             std::to_string(r.best.params.tile) + " " + ms;
    detail::cuda::write_cache(options.plan_cache, std::move(file_lines), r.fingerprint, line);
  }
  return r;
}

template <class S, class I, class V>
TuneResult tune_vxm(const Graph<I, V>& A, const TuneOptions& options) {
  // A^T sorted on the device, as vxm's first call on CUDA would (transpose_builder.hpp).
  const detail::ScopedTransposeBuilder transpose_on(detail::cuda_transpose_builder());
  return tune_mxv<S>(A.transpose(), options);
}

#define SPINDLE_TUNE_(S, I, V)                                                   \
  template TuneResult tune_mxv<S, I, V>(const Graph<I, V>&, const TuneOptions&); \
  template TuneResult tune_vxm<S, I, V>(const Graph<I, V>&, const TuneOptions&); \
  template std::string mxv_fingerprint<S, I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_TUNE_)

}  // namespace spindle
