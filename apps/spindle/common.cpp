// SPDX-License-Identifier: Apache-2.0
#include "common.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <thread>

#include "spindle/cuda/warm_up.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"

namespace spindle::cli {

namespace {
std::atomic<bool> g_quiet{false};
bool g_report = true;
std::mutex g_stderr_mutex;  // a status line and other stderr output take turns
}  // namespace

bool stderr_is_terminal() {
  static const bool tty = ::isatty(STDERR_FILENO) == 1;
  return tty;
}

void set_quiet(bool quiet) { g_quiet = quiet; }
bool show_progress() { return !g_quiet && stderr_is_terminal(); }

void set_report_enabled(bool enabled) { g_report = enabled; }

void report(const char* fmt, ...) {
  if (!g_report) return;
  std::va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stdout, fmt, ap);
  va_end(ap);
}

struct StatusLine::State {
  std::string what;
  std::string detail;
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  bool dirty = false;  // the detail changed since the last paint
  bool drawn = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::thread painter;

  void paint() {  // with m held
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string line = "\rspindle: " + what;
    if (!detail.empty()) line += ": " + detail;
    line += " (" + format_seconds(s) + ")\033[K";
    {
      std::lock_guard<std::mutex> out(g_stderr_mutex);
      std::fputs(line.c_str(), stderr);
      std::fflush(stderr);
    }
    drawn = true;
    dirty = false;
  }
};

namespace {
double progress_delay_seconds() {
  if (const char* env = std::getenv("SPINDLE_PROGRESS_DELAY")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && v >= 0) return v;
  }
  return 1.0;
}
}  // namespace

StatusLine::StatusLine(std::string what) {
  if (!show_progress()) return;
  state_ = new State;
  state_->what = std::move(what);
  State* st = state_;
  const double delay = progress_delay_seconds();
  st->painter = std::thread([st, delay] {
    using Clock = std::chrono::steady_clock;
    // Redrawn every 250 ms, sooner when the detail changes but at most every 100 ms (every change
    // with SPINDLE_PROGRESS_DELAY=0, for tests); a change just before the end is still shown.
    const auto every = std::chrono::milliseconds(250);
    const auto throttle = delay > 0 ? std::chrono::milliseconds(100) : std::chrono::milliseconds(0);
    std::unique_lock<std::mutex> lock(st->m);
    const auto first = st->start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(delay));
    if (st->cv.wait_until(lock, first, [st] { return st->stop; })) return;
    for (;;) {
      st->paint();
      const auto last = Clock::now();
      st->cv.wait_until(lock, last + throttle, [st] { return st->stop; });
      if (!st->stop) st->cv.wait_until(lock, last + every, [st] { return st->stop || st->dirty; });
      if (st->stop) {
        if (st->dirty) st->paint();
        return;
      }
    }
  });
}

StatusLine::~StatusLine() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->stop = true;
  }
  state_->cv.notify_all();
  state_->painter.join();
  if (state_->drawn) {
    std::lock_guard<std::mutex> out(g_stderr_mutex);
    std::fputs("\r\033[K", stderr);  // erase it: what follows starts on a clean line
    std::fflush(stderr);
  }
  delete state_;
}

void StatusLine::set(std::string detail) {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->m);
    state_->detail = std::move(detail);
    state_->dirty = true;
  }
  state_->cv.notify_all();
}

bool time_logging_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SPINDLE_LOG");
    return v != nullptr && std::string(v).find("time") != std::string::npos;
  }();
  return on;
}

void log_phase(const char* phase, double seconds) {
  if (time_logging_enabled()) std::fprintf(stderr, "[spindle time] %s: %.4f s\n", phase, seconds);
}

void progress(const char* fmt, ...) {
  if (!show_progress()) return;
  std::va_list ap;
  va_start(ap, fmt);
  std::lock_guard<std::mutex> out(g_stderr_mutex);
  std::fputs("\r\033[Kspindle: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

void warn(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::lock_guard<std::mutex> out(g_stderr_mutex);
  if (show_progress()) std::fputs("\r\033[K", stderr);  // over a status line, if one is shown
  std::fputs("spindle: warning: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

void note(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::lock_guard<std::mutex> out(g_stderr_mutex);
  if (show_progress()) std::fputs("\r\033[K", stderr);
  std::fputs("spindle: note: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

void report_nonconvergence(const std::string& what, bool fail, const char* hint) {
  if (fail) throw Error(what + "; no output written (--fail-on-nonconvergence)");
  warn("%s; %s", what.c_str(), hint);
}

std::string format_seconds(double s) {
  char buf[32];
  if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.0f us", s * 1e6);
  } else if (s < 0.01) {
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  } else if (s < 0.1) {  // three significant digits throughout: 155 us, 8.00 ms, 13.0 ms, 130 ms
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  } else if (s < 1.0) {
    std::snprintf(buf, sizeof buf, "%.0f ms", s * 1e3);
  } else if (s < 10.0) {
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  }
  return buf;
}

std::string execution_text(const Execution& ex, bool with_precision) {
  std::string s = std::string("device ") + to_string(ex.device);
  if (ex.device == Device::Cuda) {
    s += " (" + device_caps().name + ")";
  } else {
    s += " (" + std::to_string(ex.threads) + (ex.threads == 1 ? " thread)" : " threads)");
  }
  if (with_precision) s += std::string(", precision ") + (ex.use_double ? "double" : "float");
  return s;
}

void print_graph_header(const char* what, const std::string& graph, std::int64_t n,
                        std::int64_t nnz) {
  report("%s %s: n %lld, nnz %lld\n", what, graph.c_str(), static_cast<long long>(n),
         static_cast<long long>(nnz));
}

namespace {

// The fewest significant digits that read back as v (std::to_chars' shortest form).
template <class T>
int shortest_digit_count(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  int digits = 0;
  for (const char* c = buf; c != r.ptr && *c != 'e'; ++c) digits += (*c >= '0' && *c <= '9');
  return digits;
}

}  // namespace

template <class T>
std::string shortest_g(T v, int max_prec) {
  char buf[64];
  if (!std::isfinite(v)) {
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  }
  // The smallest precision from 6 whose "%.*g" reads back as v. No precision below the shortest
  // digit count round-trips, so the search starts there (one step for almost every value).
  // std::to_chars with a precision writes what printf's %.*g writes, and from_chars reads what
  // strtod/strtof read, both without locale or format-string work: writing millions of ranks
  // costs a fraction of what snprintf/strtod cost.
  const int from = std::max(6, std::min(max_prec, shortest_digit_count(v)));
  std::to_chars_result r{};
  for (int prec = from; prec <= max_prec; ++prec) {
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, prec);
    T back{};
    std::from_chars(buf, r.ptr, back);
    if (back == v) break;
  }
  return std::string(buf, r.ptr);
}
template std::string shortest_g<double>(double, int);
template std::string shortest_g<float>(float, int);

std::string format_number(double v) { return shortest_g(v, 17); }

namespace {
/// "auto, gustavson_dense, ..., cuda_masked_dot": every sparse mxm kernel's name.
std::string spgemm_kernel_names() {
  std::string names;
  for (int k = 0; k <= static_cast<int>(SpgemmKernel::CudaMaskedDot); ++k) {
    names += (k == 0 ? "" : ", ") + std::string(to_string(static_cast<SpgemmKernel>(k)));
  }
  return names;
}
}  // namespace

void add_spgemm_kernel_flag(ArgParser& p) {
  p.option("kernel", "NAME", "auto",
           "force the sparse mxm kernel: " + spgemm_kernel_names() +
               " (the cuda_ ones with --device cuda)");
}

SpgemmKernel spgemm_kernel_flag(ArgParser& p) {
  const auto name = p.get("kernel");
  if (!name) return SpgemmKernel::Auto;
  const auto parsed = parse_spgemm_kernel(*name);
  if (!parsed) {
    p.fail("--kernel " + *name + ": not a sparse mxm kernel (" + spgemm_kernel_names() + ")");
  }
  return *parsed;
}

void add_exec_flags(ArgParser& p, ExecFlags which) {
  p.group("Execution");
  if (which.device) {
    p.option("device", "D", "auto",
             "auto|cpu|cuda; auto uses CUDA when this build has it and a GPU is visible");
  }
  if (which.precision) {
    p.option("precision", "P", "float on cuda, double on cpu", "float|double arithmetic");
  }
  if (which.kernel) {
    p.option("kernel", "NAME", "auto",
             "force the mxv kernel instead of the planner's pick (names as in "
             "'spindle info --explain'; a kernel that cannot run the call falls back, logged "
             "with SPINDLE_LOG=plan)");
  }
  if (which.tune) {
    p.flag("tune",
           "time the CUDA kernels for this graph once and run the fastest instead of the "
           "planner's pick (a few dozen extra products up front; no effect on the CPU)");
  }
  if (which.plan_cache) {
    p.option("plan-cache", "FILE", "",
             "with --tune (implied): keep tuned mxv winners in FILE, keyed by a fingerprint of "
             "the graph and GPU, so later runs on the same graph time nothing");
  }
  p.option("threads", "N", "OMP_NUM_THREADS or all cores",
           "most CPU threads of the OpenMP backend (fewer for small work and on cores other "
           "processes keep busy; SPINDLE_ADAPT_THREADS=0 turns that off)");
  p.flag("quiet", "no progress or status lines on stderr (warnings and errors still appear)");
}

Execution apply_exec_flags(const ArgParser& p, ExecFlags which) {
  Execution ex;
  set_quiet(p.has("quiet"));
  if (p.has("threads")) {
    ex.threads = static_cast<int>(p.integer("threads", 0, 1, 4096));
    omp_set_num_threads(ex.threads);
  }
  ex.threads = omp_get_max_threads();
  Device requested = Device::Cpu;
  if (which.device) {
    std::string name = p.choice("device", "auto", {"auto", "cpu", "cuda"});
    requested = *parse_device(name);
  }
  ex.device = resolve_device(requested);
  ex.desc.device = ex.device;
  ex.use_double = ex.device != Device::Cuda;
  if (which.precision) {
    std::string prec =
        p.choice("precision", ex.use_double ? "double" : "float", {"float", "double"});
    ex.use_double = prec == "double";
  }
  if (which.kernel && p.has("kernel")) {
    std::string name = *p.get("kernel");
    auto k = parse_mxv_kernel(name);
    if (!k) {
      std::string list;
      for (auto kk : {MxvKernel::Auto, MxvKernel::CpuRowBalanced, MxvKernel::RowPerThread,
                      MxvKernel::SubwarpPerRow, MxvKernel::NnzSplitSegmented, MxvKernel::MergePath,
                      MxvKernel::RowBlock, MxvKernel::SlicedCoo, MxvKernel::ColumnSegmented,
                      MxvKernel::SellP, MxvKernel::PushScatter, MxvKernel::Cusparse}) {
        list += (list.empty() ? "" : "|") + std::string(to_string(kk));
      }
      p.fail("--kernel must be one of " + list + ", got '" + name + "'");
    }
    ex.desc.mxv_kernel = *k;
  }
  if (which.plan_cache && p.has("plan-cache")) {
    ex.plan_cache = *p.get("plan-cache");
    if (ex.plan_cache.empty()) p.fail("--plan-cache needs a file name");
  }
  ex.tune = (which.tune && p.has("tune")) || !ex.plan_cache.empty();
  if (ex.tune && p.has("kernel")) {
    p.fail("--tune picks the kernel by timing and --kernel forces one: give only one of them");
  }
  if (ex.tune && ex.device != Device::Cuda) {
    warn(
        "--tune%s: the ops run on the CPU backend, which has one kernel per operation; "
        "nothing to tune",
        ex.plan_cache.empty() ? "" : " / --plan-cache");
    ex.tune = false;
    ex.plan_cache.clear();
  }
  // The CUDA context takes about 0.3 s to create: let it overlap the reading of the input. Started
  // once the flags are known to be good, so that a usage error exits at once.
  if (ex.device == Device::Cuda) cuda_warm_up_start();
  return ex;
}

}  // namespace spindle::cli
