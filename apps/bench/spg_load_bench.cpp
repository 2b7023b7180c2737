// SPDX-License-Identifier: Apache-2.0
// Load time of one graph as .spg against its .mtx through the same entry (load_graph, int32
// pattern), median (min-max) of N runs, with the .spg read's parts (header, allocation, copy with
// the checksum, validation, labels), the read without the checksum, the checksum alone, and two
// copy baselines: the file's bytes into fresh arrays, and into arrays already faulted in.
//
//   spindle_bench_spg_load --spg FILE.spg [--mtx FILE.mtx] [--runs N]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "spindle/detail/host_pages.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/spg.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Stat {
  double median = 0, min = 0, max = 0;
};

Stat stat_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

void print(const char* what, const Stat& s) {
  std::printf("%-44s %9.4f s  (min %.4f, max %.4f)\n", what, s.median, s.min, s.max);
}

Stat time_runs(int runs, const std::function<void()>& f) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - a).count());
  }
  return stat_of(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::string spg, mtx;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--spg" && i + 1 < argc) {
      spg = argv[++i];
    } else if (a == "--mtx" && i + 1 < argc) {
      mtx = argv[++i];
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: spindle_bench_spg_load --spg FILE.spg [--mtx FILE] [--runs N]\n");
      return 2;
    }
  }
  if (spg.empty()) {
    std::fprintf(stderr, "--spg FILE is required\n");
    return 2;
  }
  using namespace spindle;
  const SpgHeader h = read_spg_header(spg);
  std::printf("%s: %lld x %lld, %lld entries, %.1f MB; %d runs, medians\n", spg.c_str(),
              static_cast<long long>(h.rows), static_cast<long long>(h.cols),
              static_cast<long long>(h.nnz), static_cast<double>(h.file_bytes) / 1e6, runs);
  if (!mtx.empty()) {
    print("load_graph .mtx (int32, pattern)",
          time_runs(runs, [&] { (void)load_graph<std::int32_t, Pattern>(mtx); }));
  }
  print("load_graph .spg (int32, pattern)",
        time_runs(runs, [&] { (void)load_graph<std::int32_t, Pattern>(spg); }));
  std::vector<double> parts[6];
  print("read_spg", time_runs(runs, [&] {
          SpgReadTimes t;
          (void)read_spg<std::int32_t, Pattern>(spg, {}, &t);
          const double p[6] = {t.header, t.allocate, t.copy, t.validate, t.labels, t.convert};
          for (int k = 0; k < 6; ++k) parts[k].push_back(p[k]);
        }));
  const char* names[6] = {
      "  header (open, map, checks)",   "  allocate arrays", "  copy + checksum (+ finite check)",
      "  validate offsets and columns", "  labels",          "  convert types"};
  for (int k = 0; k < 6; ++k) print(names[k], stat_of(parts[k]));
  SpgReadOptions fast;
  fast.verify_checksum = false;
  print("read_spg without the checksum",
        time_runs(runs, [&] { (void)read_spg<std::int32_t, Pattern>(spg, fast); }));

  // Baselines over the same bytes, mapped once and faulted in.
  const int fd = ::open(spg.c_str(), O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return 1;
  const auto bytes = static_cast<std::size_t>(st.st_size);
  void* m = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (m == MAP_FAILED) return 1;
  const char* src = static_cast<const char*>(m);
  print("checksum alone (mapped, all threads)", time_runs(runs, [&] {
          if (spg_checksum(src, bytes) != h.checksum) std::abort();
        }));
  print("memcpy into fresh arrays (1 thread)", time_runs(runs, [&] {
          std::vector<char> v;
          detail::large_reserve(v, bytes, "bench");
          v.insert(v.end(), src, src + bytes);
        }));
  std::vector<char> warm(bytes);
  print("memcpy into faulted-in arrays (1 thread)",
        time_runs(runs, [&] { std::memcpy(warm.data(), src, bytes); }));
  ::munmap(m, bytes);
  ::close(fd);
  return 0;
}
