// SPDX-License-Identifier: Apache-2.0
// spindle bench <mxv|mxm|sddmm|gcn|pagerank|algorithms|mm-parse|spg-load|pagerank-cpu> [options]:
// runs the project's benchmark programs, which are built beside this binary
// (build/<preset>/bin/spindle_bench_*). They stay separate executables because the GPU ones reach
// the backend's internals (forced launch parameters, cuSPARSE on the same device data) and are only
// built with CUDA; `bench` gives them one front door and one help text. The program replaces this
// process (execv), so its output, exit status and signals are its own.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {
namespace {

struct Bench {
  const char* name;
  const char* program;
  const char* summary;
};

const Bench kBenches[] = {
    {"mxv", "spindle_bench_mxv",
     "CUDA mxv: every kernel, planner, tuned pick vs cuSPARSE SpMV (GPU)"},
    {"mxm", "spindle_bench_mxm", "CUDA SpMM over dense widths N vs cuSPARSE SpMM (GPU)"},
    {"sddmm", "spindle_bench_sddmm", "CUDA SDDMM over inner dimensions K vs cuSPARSE SDDMM (GPU)"},
    {"gcn", "spindle_bench_gcn", "2-layer GCN inference end to end, --export for PyG (GPU)"},
    {"pagerank", "spindle_bench_pagerank",
     "GPU PageRank ms/iteration and whole run vs cuSPARSE SpMV (GPU)"},
    {"algorithms", "spindle_bench_algorithms",
     "every algorithm on R-MAT: CPU, GPU planner vs cuSPARSE, GPU checked against CPU"},
    {"pagerank-cpu", "spindle_bench_pagerank_cpu", "PageRank on the CPU backend"},
    {"mm-parse", "spindle_bench_mm_parse", "Matrix Market parse MB/s (1 and all threads)"},
    {"spg-load", "spindle_bench_spg_load",
     ".spg load time against .mtx, with its parts (--spg FILE [--mtx FILE])"},
};

std::string self_dir() {
  std::vector<char> buf(PATH_MAX + 1, '\0');
  const ssize_t len = ::readlink("/proc/self/exe", buf.data(), PATH_MAX);
  if (len <= 0) return ".";
  std::string path(buf.data(), static_cast<std::size_t>(len));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void print_help(std::FILE* out) {
  std::fprintf(out,
               "usage: spindle bench <benchmark> [options]\n"
               "       spindle bench <benchmark> --help\n\n"
               "Runs one of the project's benchmarks (programs built beside this binary).\n"
               "GPU benchmarks time Spindle and cuSPARSE on the same data in the same process\n"
               "and report ratios; see each one's --help for its graphs, widths and --json.\n\n"
               "Benchmarks:\n");
  const std::string dir = self_dir();
  for (const Bench& b : kBenches) {
    const bool here = ::access((dir + "/" + b.program).c_str(), X_OK) == 0;
    std::fprintf(out, "  %-13s %s%s\n", b.name, b.summary, here ? "" : " [not built]");
  }
  std::fprintf(out,
               "\nExamples:\n"
               "  spindle bench pagerank-cpu --scale 18\n"
               "  spindle bench mm-parse\n"
               "  spindle bench mxv --json > mxv.json          # CUDA builds\n");
}

}  // namespace

int cmd_bench(const std::vector<std::string>& args) {
  if (args.empty()) {
    print_help(stderr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    print_help(stdout);
    return 0;
  }
  const Bench* bench = nullptr;
  for (const Bench& b : kBenches) {
    if (args[0] == b.name) bench = &b;
  }
  if (bench == nullptr) {
    std::string names;
    for (const Bench& b : kBenches) names += std::string(names.empty() ? "" : ", ") + b.name;
    throw UsageError("bench: unknown benchmark '" + args[0] + "' (one of: " + names +
                     "); see 'spindle bench --help'");
  }
  const std::string program = self_dir() + "/" + bench->program;
  if (::access(program.c_str(), X_OK) != 0) {
    throw Error(std::string("bench ") + bench->name + ": " + program +
                " is not built (GPU benchmarks need a CUDA build: cmake --workflow --preset "
                "cuda, then build/cuda/bin/spindle bench " +
                bench->name + ")");
  }
  std::vector<std::string> words;
  words.push_back(program);
  words.insert(words.end(), args.begin() + 1, args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(program.c_str(), argv.data());
  throw Error(std::string("bench ") + bench->name + ": cannot run " + program + ": " +
              std::strerror(errno));
}

}  // namespace spindle::cli
