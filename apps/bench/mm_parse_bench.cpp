// SPDX-License-Identifier: Apache-2.0
// Matrix Market parse throughput: generates a coordinate real file (default ~200 MB) and reads
// it with 1 thread and with all threads, printing MB/s of file bytes (median of 3 runs).
//
//   spindle_bench_mm_parse [--file PATH] [--mb SIZE] [--keep] [--runs N]
#include <omp.h>

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {

template <class T>
void append(std::string& out, char (&buf)[64], T v, char after) {
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
  out.push_back(after);
}

// Writes a 'coordinate real general' file of about `mb` MB: R-MAT positions (scale 22) with
// values of full double precision, which is what slows real parsers down.
void make_file(const std::string& path, double mb) {
  const int scale = 22;
  const double target = mb * 1e6;
  // ~36 bytes a line for 7-digit ids and 17-digit values
  const std::int64_t edges = static_cast<std::int64_t>(target / 36.0) + 1;
  const std::int64_t ef = edges / (std::int64_t{1} << scale) + 1;
  spindle::Coo<std::int32_t> coo = spindle::generate_rmat<std::int32_t>(scale, ef, 7);
  std::string text = "%%MatrixMarket matrix coordinate real general\n% spindle_bench_mm_parse\n";
  std::string body;
  body.reserve(static_cast<std::size_t>(target) + 64);
  std::uint64_t x = 88172645463325252ull;
  std::int64_t count = 0;
  char buf[64];
  for (std::int64_t k = 0; k < coo.size() && body.size() < target; ++k, ++count) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const double v = static_cast<double>(x >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    append(body, buf, coo.row[k] + 1, ' ');
    append(body, buf, coo.col[k] + 1, ' ');
    append(body, buf, v, '\n');
  }
  text += std::to_string(coo.rows) + " " + std::to_string(coo.cols) + " " + std::to_string(count) +
          "\n";
  spindle::AtomicFileWriter out(path);
  out.write(text);
  out.write(body);
  out.commit();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Timing {
  double wall;  // median wall-clock seconds
  double cpu;   // median process CPU seconds (all threads): on a shared machine this shows
                // what the code costs when other jobs steal the cores
};

template <class F>
Timing median_seconds(int runs, F&& f) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < runs; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    wall.push_back(seconds_since(t0));
    cpu.push_back(cpu_seconds() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "/tmp/spindle_bench_mm_parse.mtx";
  double mb = 200;
  bool keep = false;
  int runs = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc) {
      path = argv[++i];
    } else if (a == "--mb" && i + 1 < argc) {
      mb = std::atof(argv[++i]);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--keep") {
      keep = true;
    } else {
      const bool help = a == "--help" || a == "-h";
      if (!help) std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      std::fprintf(help ? stdout : stderr,
                   "usage: spindle bench mm-parse [--file PATH] [--mb SIZE] [--runs N] [--keep]\n");
      return help ? 0 : 2;
    }
  }
  try {
    struct stat st {};
    const bool existed = ::stat(path.c_str(), &st) == 0;
    if (!existed) {
      const auto t0 = std::chrono::steady_clock::now();
      make_file(path, mb);
      std::printf("generated %s in %.2f s\n", path.c_str(), seconds_since(t0));
      ::stat(path.c_str(), &st);
    }
    const double bytes = static_cast<double>(st.st_size);
    const auto hdr = spindle::read_matrix_market_header(path);
    std::printf("file: %s, %.1f MB, %lld x %lld, %lld entries\n", path.c_str(), bytes / 1e6,
                static_cast<long long>(hdr.rows), static_cast<long long>(hdr.cols),
                static_cast<long long>(hdr.entries));
    const int all = omp_get_max_threads();
    std::vector<int> thread_counts{1};
    if (all > 1) thread_counts.push_back(all);
    for (const int th : thread_counts) {
      spindle::MatrixMarketOptions opt;
      opt.threads = th;
      opt.progress = false;
      omp_set_num_threads(th);
      std::int64_t n = 0;
      const Timing parse = median_seconds(
          runs, [&] { n = spindle::read_matrix_market_coo<std::int32_t>(path, opt).coo.size(); });
      const Timing build = median_seconds(
          runs, [&] { n = spindle::read_matrix_market<std::int32_t, double>(path, opt).nnz(); });
      std::printf(
          "threads %2d: parse to COO %7.1f MB/s (%.3f s wall, %.3f s cpu), parse + CSR "
          "build %7.1f MB/s (%.3f s wall, %.3f s cpu), nnz %lld, median of %d\n",
          th, bytes / 1e6 / parse.wall, parse.wall, parse.cpu, bytes / 1e6 / build.wall, build.wall,
          build.cpu, static_cast<long long>(n), runs);
    }
    if (!existed && !keep) std::remove(path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spindle_bench_mm_parse: %s\n", e.what());
    return 1;
  }
  return 0;
}
