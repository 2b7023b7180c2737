// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file common.hpp
/// @brief Small pieces every subcommand shares: execution flags (--threads, --device,
/// --kernel, --precision), stderr-only progress when stderr is a terminal, timers.

#include <chrono>
#include <cstdio>
#include <string>

#include "args.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/plan.hpp"

namespace spindle::cli {

/// True when stderr is a terminal: progress and timings are printed only then, so pipes and
/// logs see nothing but results and errors.
bool stderr_is_terminal();

/// --quiet: no progress lines or status lines at all (warnings and errors still appear).
void set_quiet(bool quiet);
/// True when progress may be shown: stderr is a terminal and --quiet was not given.
bool show_progress();

/// Prints one progress/timing line on stderr when show_progress() (printf-style).
void progress(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Where the human-readable report (headers, tables, summary lines) goes: standard output,
/// unless the command writes its result file there (`-o -`), which then carries that file only.
void set_report_enabled(bool enabled);
/// printf to standard output when the report is enabled.
void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// A status line on stderr for a step that can take a while: shown only when show_progress(),
/// once the step has run for a second (SPINDLE_PROGRESS_DELAY seconds, for tests), redrawn in
/// place four times a second with the elapsed time, and erased when the object goes away. A
/// background thread draws it, so phases that give no callbacks (a library call) still show.
class StatusLine {
 public:
  /// `what`: the step, e.g. "pagerank"; set() adds the detail ("iteration 12, residual 3e-05").
  explicit StatusLine(std::string what);
  ~StatusLine();
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;
  /// Replaces the detail (thread-safe).
  void set(std::string detail);

 private:
  struct State;
  State* state_ = nullptr;
};

/// Prints a warning line on stderr (always; warnings matter in logs too).
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Prints a note on stderr (always: it says how an input was understood, e.g. a skipped header).
void note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// An iteration that stopped at its limit: with --fail-on-nonconvergence (`fail`) throws Error
/// ("<what>; no output written (--fail-on-nonconvergence)"), else warns "<what>; <hint>".
void report_nonconvergence(const std::string& what, bool fail, const char* hint);

/// Wall-clock stopwatch.
/// SPINDLE_LOG=time (the variable may name other topics too, e.g. "plan,time"): commands print
/// one "[spindle time] PHASE: S s" line on stderr per phase (load, CUDA context, compute, write,
/// and the whole command from main to exit), so a slow run can be split without a profiler.
bool time_logging_enabled();
/// Prints `phase` and `seconds` as above when time logging is on; otherwise does nothing.
void log_phase(const char* phase, double seconds);

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// Human-readable duration ("812 ms", "3.41 s").
std::string format_seconds(double s);

/// Which execution flags a command offers.
struct ExecFlags {
  bool device = false;      ///< --device auto|cpu|cuda
  bool precision = false;   ///< --precision float|double
  bool kernel = false;      ///< --kernel NAME (forces the mxv kernel)
  bool tune = false;        ///< --tune (and --plan-cache FILE when plan_cache is set too)
  bool plan_cache = false;  ///< --plan-cache FILE (tuned mxv winners on disk)
};

/// Declares --threads, --quiet and the requested execution flags in an "Execution" group.
void add_exec_flags(ArgParser& p, ExecFlags which);

/// Declares --kernel NAME for the commands built on the sparse mxm (triangles, ktruss), listing
/// every SpgemmKernel name.
void add_spgemm_kernel_flag(ArgParser& p);

/// The kernel --kernel names (Auto when not given); an unknown name fails the parse with the
/// list of names.
SpgemmKernel spgemm_kernel_flag(ArgParser& p);

/// The parsed execution settings.
struct Execution {
  Device device = Device::Cpu;  ///< resolved (never Auto)
  bool use_double = true;       ///< --precision (float default on CUDA, double on CPU)
  Descriptor desc;              ///< device + forced kernel, for ops and algorithms
  int threads = 0;              ///< OpenMP threads in use
  bool tune = false;            ///< tuning mode (CUDA only: off on the CPU, with a warning)
  std::string plan_cache;       ///< --plan-cache FILE ("" = none)
};

/// Applies --threads (omp_set_num_threads), resolves --device (a usage error for an unknown
/// name, spindle::Unsupported when CUDA is asked for but absent), parses --kernel against the
/// mxv kernel names and picks the precision default for the device. --plan-cache implies --tune;
/// --tune with --kernel is a usage error; on the CPU backend --tune is dropped with a warning
/// (it has one kernel per operation).
Execution apply_exec_flags(const ArgParser& p, ExecFlags which);

/// "device cpu (2 threads), precision double": the second header line's tail.
std::string execution_text(const Execution& ex, bool with_precision = true);

/// The first header line of an algorithm: "<what> <graph>: n N, nnz M" (what = "PageRank of").
void print_graph_header(const char* what, const std::string& graph, std::int64_t n,
                        std::int64_t nnz);

/// "%.6g"-style formatting that round-trips doubles (shortest form, %.17g worst case).
std::string format_number(double v);

/// "%.*g" of `v` with the smallest precision from 6 to `max_prec` (17 for double, 9 for float)
/// that reads back as `v`; non-finite values as "%g" writes them. format_number is the double one.
template <class T>
std::string shortest_g(T v, int max_prec);

}  // namespace spindle::cli
