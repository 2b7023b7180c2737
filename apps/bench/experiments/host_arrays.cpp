// SPDX-License-Identifier: Apache-2.0
/// @file host_arrays.cpp
/// @brief Times the host side of a first call on a big graph, phase by phase: reading a Matrix
/// Market file as a pattern (as the CLI does), its transpose, a float-valued copy and that copy's
/// transpose, the in- and out-degrees. For measuring how much of a first
/// PageRank is page faults of fresh host arrays (see ops/cuda/mxv/NOTES.md). Not built by CMake:
///   g++ -O3 -std=c++17 -fopenmp -I. -Iengine/include -Iloaders/include
///       -Ibuild/test/generated/include apps/bench/experiments/host_arrays.cpp
///       build/test/libspindle.a -lcusparse -lcublas -lcublasLt -lcudart -o host_arrays
///   ./host_arrays FILE.mtx [rounds]
///   ./host_arrays --write SCALE FILE.mtx   (an R-MAT graph, edge factor 16, seed 1, no loops:
///                                          the graph `spindle generate rmat --scale SCALE` writes)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: host_arrays FILE.mtx [rounds]\n");
    return 2;
  }
  if (std::string(argv[1]) == "--write" && argc == 4) {
    spindle::BuildOptions build;
    build.self_loops = spindle::SelfLoopPolicy::Drop;
    const auto g = spindle::build_graph<std::int32_t, spindle::Pattern>(
        spindle::generate_rmat<std::int32_t>(std::atoi(argv[2]), 16, 1), build);
    spindle::write_matrix_market(argv[3], g);
    return 0;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  for (int r = 0; r < rounds; ++r) {
    auto t = Clock::now();
    const auto A = spindle::read_matrix_market<std::int32_t, spindle::Pattern>(argv[1]);
    const double read = ms_since(t);
    t = Clock::now();
    const auto& T = A.transpose();
    const double transpose = ms_since(t);
    t = Clock::now();
    const auto P = A.with_values<float>();
    const double pattern = ms_since(t);
    t = Clock::now();
    const auto& P_T = P.transpose();
    const double pattern_transpose = ms_since(t);
    t = Clock::now();
    const auto& in = A.in_degrees();
    const auto& out = A.out_degrees();
    const double degrees = ms_since(t);
    std::printf(
        "round %d: n %d nnz %d | read %.1f ms, transpose %.1f, float copy %.1f, its transpose "
        "%.1f, degrees %.1f (check %d %d %d)\n",
        r, static_cast<int>(A.rows()), static_cast<int>(A.nnz()), read, transpose, pattern,
        pattern_transpose, degrees, static_cast<int>(T.nnz()), static_cast<int>(P_T.nnz()),
        static_cast<int>(in.size() + out.size()));
  }
  return 0;
}
