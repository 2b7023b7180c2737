// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): where a whole GPU BFS with parents goes on R-MAT scale 22
// (pattern, edge factor 16, seed 42, duplicates collapsed; no transpose, so every level pushes).
// Times whole bfs() calls with their transfer counters, then a copy of bfs.cpp's loop with a
// device synchronize after each step, the steps summed over the levels. Build with the command
// in bfs_first_call.cu's header. ops/cuda/mxv/NOTES.md ("A BFS's host side", session 38) has what
// it found.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "spindle/algorithms/bfs.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

namespace {

double lap(Clock::time_point& t) {
  cudaDeviceSynchronize();
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

std::string traffic() {
  const TransferStats s = transfer_stats();
  char buf[160];
  std::snprintf(buf, sizeof buf, "up %llu (%.1f MB), down %llu (%.1f MB), scalars %llu",
                (unsigned long long)s.uploads, s.upload_bytes / 1e6,
                (unsigned long long)s.downloads, s.download_bytes / 1e6,
                (unsigned long long)s.scalar_reads);
  return buf;
}

// Wall time and transfers per named step, summed over the levels (a device synchronize ends each).
struct Steps {
  std::map<std::string, double> ms;
  std::map<std::string, std::string> moved;
  Clock::time_point t = Clock::now();
  void step(const char* name) {
    ms[name] += lap(t);
    moved[name] = traffic();
    reset_transfer_stats();
  }
  void print(int levels, std::int64_t reached, int width) const {
    double total = 0;
    for (const auto& kv : ms) total += kv.second;
    std::printf("  %d levels, reached %lld, total %.2f ms\n", levels, (long long)reached, total);
    for (const auto& kv : ms) {
      std::printf("  | %-*s | %8.2f | %s |\n", width, kv.first.c_str(), kv.second,
                  moved.at(kv.first).c_str());
    }
  }
};

template <class G>
void parts(const G& A, std::int64_t source) {
  using Id = double;
  const std::int64_t n = A.rows();
  Descriptor desc;
  desc.device = Device::Cuda;
  Descriptor replace = desc;
  replace.replace = true;
  Steps steps;
  auto step = [&](const char* name) { steps.step(name); };
  reset_transfer_stats();
  Vector<Id> level = Vector<Id>::empty(n);
  level.set(source, 0);
  Vector<Id> parent = Vector<Id>::empty(n);
  parent.set(source, Id(source + 1));
  step("1 setup level, parent");
  std::vector<Id> idv(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) idv[static_cast<std::size_t>(v)] = Id(v + 1);
  Vector<Id> ids(std::move(idv));
  step("2 setup ids");
  Vector<Id> frontier = Vector<Id>::empty(n);
  Vector<Id> next = Vector<Id>::empty(n);
  frontier.set(source, Id(source + 1));
  step("3 setup frontier, next");
  int levels = 0;
  for (std::int64_t d = 1; d < n; ++d) {
    const Mask unvisited = Mask::structural(level, true);
    vxm(next, unvisited, Accum::none(), semiring::min_times<Id>{}, frontier, A, replace);
    step(d == 1 ? "4 vxm, level 1" : "5 vxm, later levels");
    const bool more = reduce(MonoidKind::Max, next, desc) > Id(0);
    step("6 reduce");
    if (!more) break;
    assign(level, Mask::structural(next), Accum::none(), Id(d), desc);
    assign(parent, Mask::structural(next), Accum::none(), next, desc);
    step("7 assign level, parent");
    ewise_mult(frontier, Mask{}, Accum::none(), BinaryOp::Second, next, ids, desc);
    step("8 ewise_mult frontier");
    ++levels;
  }
  std::vector<std::int64_t> out_level(static_cast<std::size_t>(n), -1);
  const std::vector<Id>& lv = level.values();
  const std::vector<std::uint8_t>& lp = level.bitmap();
  step("9 download level");
  std::int64_t reached = 0;
  for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
    if (lp.empty() || lp[v] != 0) {
      out_level[v] = static_cast<std::int64_t>(lv[v]);
      ++reached;
    }
  }
  step("a package level");
  std::vector<std::int64_t> out_parent(static_cast<std::size_t>(n), -1);
  const std::vector<Id>& pv = parent.values();
  const std::vector<std::uint8_t>& pp = parent.bitmap();
  step("b download parent");
  for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
    if (pp.empty() || pp[v] != 0) out_parent[v] = static_cast<std::int64_t>(pv[v]) - 1;
  }
  step("c package parent");
  steps.print(levels, reached, 24);
}

// The loop as bfs.cpp runs it since session 38: vectors born on the device (a full vector emptied
// by a replace-assign under its own complemented structure), the source entry by index-list
// assign, the frontier's ids by apply_index (no ids vector), int64 levels, the results made full
// on the device and downloaded once each.
template <class G>
void parts_device(const G& A, std::int64_t source) {
  using Id = double;
  const std::int64_t n = A.rows();
  Descriptor desc;
  desc.device = Device::Cuda;
  Descriptor replace = desc;
  replace.replace = true;
  Steps steps;
  auto step = [&](const char* name) { steps.step(name); };
  auto empty = [&](auto tag) {
    using T = decltype(tag);
    Vector<T> v(n);
    assign(v, Mask::structural(v, true), Accum::none(), T{}, replace);
    return v;
  };
  const std::vector<std::int64_t> at{source};
  reset_transfer_stats();
  Vector<std::int64_t> level = empty(std::int64_t{});
  assign(level, Mask{}, Accum::none(), std::int64_t{0}, at, desc);
  Vector<Id> parent = empty(Id{});
  assign(parent, Mask{}, Accum::none(), Id(source + 1), at, desc);
  step("1 setup level, parent");
  Vector<Id> frontier = empty(Id{});
  Vector<Id> next = empty(Id{});
  assign(frontier, Mask{}, Accum::none(), Id(source + 1), at, desc);
  step("3 setup frontier, next");
  int levels = 0;
  for (std::int64_t d = 1; d < n; ++d) {
    const Mask unvisited = Mask::structural(level, true);
    vxm(next, unvisited, Accum::none(), semiring::min_times<Id>{}, frontier, A, replace);
    step(d == 1 ? "4 vxm, level 1" : "5 vxm, later levels");
    const bool more = reduce(MonoidKind::Max, next, desc) > Id(0);
    step("6 reduce");
    if (!more) break;
    assign(level, Mask::structural(next), Accum::none(), d, desc);
    assign(parent, Mask::structural(next), Accum::none(), next, desc);
    step("7 assign level, parent");
    apply_index(frontier, Mask{}, Accum::none(), next, Id(1), desc);
    step("8 apply_index frontier");
    ++levels;
  }
  std::vector<std::int64_t> out_level;
  {
    Vector<std::int64_t> full(n, std::int64_t{-1});
    assign(full, Mask::structural(level), Accum::none(), level, desc);
    step("9 full level on the device");
    out_level = std::move(full.values());
  }
  step("a download level");
  std::int64_t reached = 0;
  const std::int64_t* lv = out_level.data();
#pragma omp parallel for schedule(static) reduction(+ : reached)
  for (std::int64_t v = 0; v < n; ++v) reached += lv[v] >= 0 ? 1 : 0;
  step("b count reached");
  Vector<Id> pfull(n, Id(0));
  assign(pfull, Mask::structural(parent), Accum::none(), parent, desc);
  const std::vector<Id>& pv = static_cast<const Vector<Id>&>(pfull).values();
  step("c download parent");
  std::vector<std::int64_t> out_parent(static_cast<std::size_t>(n));
  std::int64_t* op = out_parent.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < n; ++v) op[v] = static_cast<std::int64_t>(pv[v]) - 1;
  step("d package parent");
  steps.print(levels, reached, 28);
}

}  // namespace

int main() {
  cudaFree(nullptr);
  BuildOptions bo;
  bo.duplicates = DuplicatePolicy::Collapse;
  const auto A = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(22, 16, 42), bo);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s; R-MAT 22, %lld vertices, %lld entries\n", prop.name, (long long)A.rows(),
              (long long)A.nnz());
  BfsOptions o;
  o.device = Device::Cuda;
  for (int parents = 1; parents >= 0; --parents) {
    o.parents = parents != 0;
    for (int r = 0; r < 4; ++r) {
      reset_transfer_stats();
      const auto t0 = Clock::now();
      const BfsResult res = bfs(A, 3, o);
      const double whole = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      std::printf("bfs(parents=%d) call %d: %.2f ms, reached %lld, depth %lld; %s\n", parents, r,
                  whole, (long long)res.reached, (long long)res.depth, traffic().c_str());
    }
  }
  for (int r = 0; r < 2; ++r) {
    std::printf("## bfs.cpp's loop with parents, steps (ms summed over levels), run %d\n", r);
    parts(A, 3);
  }
  for (int r = 0; r < 2; ++r) {
    std::printf("## the device-born loop with parents, steps (ms summed over levels), run %d\n", r);
    parts_device(A, 3);
  }
  return 0;
}
