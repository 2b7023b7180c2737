// SPDX-License-Identifier: Apache-2.0
// spindle: command-line front end. Subcommands live in their own files (cmd_*.cpp) and register
// in commands.hpp; this file only picks the subcommand and maps exceptions to exit codes:
// 0 success, 1 failure (spindle::Error, I/O, out of memory), 2 usage error.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "spindle/cuda/warm_up.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/version.hpp"

namespace {

using spindle::cli::Command;
using spindle::cli::commands;
using spindle::cli::UsageError;

void print_overview(std::FILE* out) {
  std::fprintf(out,
               "usage: spindle <command> [options]\n"
               "       spindle <command> --help\n\n"
               "Spindle %s: GraphBLAS-flavored graph analytics on CPU%s.\n\n"
               "Commands:\n",
               spindle::version(), spindle::built_with_cuda() ? " and CUDA" : "");
  for (const Command& c : commands()) std::fprintf(out, "  %-17s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\nInputs: .mtx is Matrix Market (1-based ids); anything else is an edge list "
               "(one\n'source target [weight]' per line, ids kept as labels).\n"
               "Environment: SPINDLE_LOG=plan prints the planner's kernel choice per operation;\n"
               "OMP_NUM_THREADS (or --threads) sets the most CPU threads; fewer run on small\n"
               "work and while other processes keep cores busy (SPINDLE_ADAPT_THREADS=0 uses\n"
               "them all); idle threads sleep (OMP_WAIT_POLICY=passive unless set;\n"
               "SPINDLE_OMP_PASSIVE=0 keeps the default);\n"
               "SPINDLE_HUGE_PAGES=0 stops asking for huge pages and pre-faulting large host\n"
               "arrays. '-' is standard input (FILE) or output (-o -); .gz inputs are read\n"
               "directly.\n"
               "--threads, --device, --precision and --kernel may also precede the command.\n"
               "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

// Error messages must stay one line on stderr (scripts grep them), and a label quoted in one
// must not write control characters to a terminal.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') {
      c = ' ';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = '?';
    }
  }
  return s;
}

// OpenMP threads that wait for work should sleep, not spin: on a shared or busy machine a
// spinning thread takes the core a working one needs, and PageRank on a 4,096-vertex graph took
// 17 ms per iteration with 2 threads beside a busy process against 0.06 ms with passive waiting.
// libgomp reads OMP_WAIT_POLICY once, when it is loaded (before main), so the policy is set and
// the program starts again, once; a user's own OMP_WAIT_POLICY, GOMP_SPINCOUNT or KMP_BLOCKTIME
// is left alone, and SPINDLE_OMP_PASSIVE=0 keeps the runtime's default.
void prefer_passive_openmp_waiting(char** argv) {
  for (const char* v : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "KMP_LIBRARY"}) {
    if (std::getenv(v)) return;
  }
  if (const char* v = std::getenv("SPINDLE_OMP_PASSIVE"); v && std::strcmp(v, "0") == 0) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Could not start again (no /proc): go on with the policy the runtime already has. The
  // environment keeps the setting for the programs `spindle bench` starts.
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

bool is_global_flag(const std::string& word) {
  for (const char* f : {"--threads", "--device", "--precision", "--kernel"}) {
    const std::string flag = f;
    if (word == flag || word.rfind(flag + "=", 0) == 0) return true;
  }
  return false;
}

std::string suggest_command(const std::string& word) {
  std::string best;
  std::size_t best_d = 3;
  for (const Command& c : commands()) {
    std::size_t d = spindle::cli::edit_distance(word, c.name);
    if (d < best_d) {
      best_d = d;
      best = c.name;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

int run(int argc, char** argv) {
  if (argc < 2) {
    print_overview(stderr);
    return 2;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h") {
    print_overview(stdout);
    return 0;
  }
  if (first == "--version" || first == "-V") {
    std::printf("spindle %s (%s)\n", spindle::version(),
                spindle::built_with_cuda() ? "CUDA backend built in" : "CPU only");
    return 0;
  }
  std::vector<std::string> words(argv + 1, argv + argc);
  // Execution flags may also come before the command (`spindle --threads 4 pagerank g.mtx`);
  // they are handed to the command, which rejects those it has no use for.
  std::vector<std::string> global;
  std::size_t i = 0;
  while (i < words.size() && is_global_flag(words[i])) {
    global.push_back(words[i]);
    if (words[i].find('=') == std::string::npos && i + 1 < words.size()) {
      global.push_back(words[++i]);
    }
    ++i;
  }
  if (i >= words.size()) {
    throw UsageError("missing command after " + global.front() + "; see 'spindle --help'");
  }
  first = words[i];
  // The command's own flags come after the global ones, so that where both give a flag the
  // command's (later) one wins, as a repeated flag does everywhere else.
  std::vector<std::string> rest = global;
  rest.insert(rest.end(), words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
  if (first == "help") {  // `spindle help pagerank` == `spindle pagerank --help`
    if (rest.empty()) {
      print_overview(stdout);
      return 0;
    }
    first = rest[0];
    rest = {"--help"};
  }
  if (!first.empty() && first[0] == '-') {
    throw UsageError("unknown option '" + first + "' before the command; see 'spindle --help'");
  }
  const Command* cmd = find_command(first);
  if (!cmd) {
    throw UsageError("unknown command '" + first + "'" + suggest_command(first) +
                     "; see 'spindle --help'");
  }
  return cmd->run(rest);
}

// Results written to standard output must have reached it: `spindle info g.mtx --json >
// out.json` on a full disk is a failure, not an empty file and exit status 0.
int check_stdout(int status) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::fprintf(stderr, "spindle: error: cannot write to standard output: %s\n",
                 err ? std::strerror(err) : "write error");
    return status == 0 ? 1 : status;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  prefer_passive_openmp_waiting(argv);
  // Before any output exists: a signal that ends the process removes the temporaries of the
  // outputs being written (spindle/loaders/atomic_file.hpp).
  spindle::install_signal_cleanup();
  // A command on CUDA creates the context on a background thread (apply_exec_flags): wait for
  // it on every way out, so that no thread is still creating it while the process exits.
  struct WarmUpJoin {
    ~WarmUpJoin() { spindle::cuda_warm_up_wait(); }
  } join_warm_up;
  // SPINDLE_LOG=time: the whole command, from here to the last output (the warm-up join and the
  // process teardown after it are outside).
  struct TotalTime {
    spindle::cli::Stopwatch clock;
    ~TotalTime() { spindle::cli::log_phase("command (main to exit)", clock.seconds()); }
  } total_time;
  try {
    return check_stdout(run(argc, argv));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "spindle: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "spindle: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spindle: error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
}
