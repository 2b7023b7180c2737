// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: the parallel chunk driver of the text readers. A data section is cut at line starts,
// chunks are parsed independently (OpenMP, dynamic schedule), and results are read back in
// chunk order, so output and the reported error never depend on the thread count: the error
// reported is the one on the smallest line, found by adding the line counts of earlier chunks.

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "mapped_file.hpp"
#include "progress.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/error.hpp"

namespace spindle {
namespace detail {

/// What every chunk parser reports besides its data.
struct ChunkStatus {
  std::int64_t lines = 0;       ///< '\n' consumed (complete lines) when the chunk finished
  std::int64_t entries = 0;     ///< data lines (not blank, not comment) parsed
  std::int64_t fail_line = -1;  ///< 0-based line within the chunk of the first error, or -1
  std::string what;             ///< the error's message
  void fail(std::int64_t line, std::string message) {
    fail_line = line;
    what = std::move(message);
  }
};

/// Target chunk size: big enough that per-chunk overhead vanishes, small enough that two
/// threads stay balanced and progress moves.
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;
constexpr std::size_t kMinChunkBytes = std::size_t{64} << 10;
/// Below this, starting a parallel region costs more than the copy (and far more on a busy
/// machine, where a region waits for every thread to be scheduled).
constexpr std::size_t kParallelCopyBytes = std::size_t{1} << 20;

inline std::vector<std::size_t> plan_chunks(const char* begin, const char* end, int threads) {
  const std::size_t bytes = static_cast<std::size_t>(end - begin);
  const std::size_t pieces =
      std::max<std::size_t>(static_cast<std::size_t>(threads) * 4, bytes / kChunkBytes + 1);
  return split_at_lines(begin, end, pieces, kMinChunkBytes);
}

/// Runs fn(chunk_begin, chunk_end, chunk) over every chunk; Chunk has a `ChunkStatus st`.
/// Rethrows the first exception (in chunk order; bad_alloc becomes OutOfMemory) and throws the
/// first ParseError with its absolute line (first_line = line number of begin).
template <class Chunk, class Fn>
void run_chunks(const char* begin, const std::vector<std::size_t>& cuts, int threads,
                Progress& progress, const std::string& path, std::int64_t first_line,
                std::vector<Chunk>& chunks, Fn&& fn) {
  const std::int64_t k = static_cast<std::int64_t>(cuts.size()) - 1;
  chunks.clear();
  chunks.resize(static_cast<std::size_t>(k));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(k));
  std::atomic<std::int64_t> first_bad{k};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (k > 1)
  for (std::int64_t c = 0; c < k; ++c) {
    // A chunk after one that failed cannot hold the first error: skip its work.
    if (c > first_bad.load(std::memory_order_relaxed)) continue;
    try {
      fn(begin + cuts[c], begin + cuts[c + 1], chunks[c]);
    } catch (...) {
      errors[c] = std::current_exception();
    }
    if (errors[c] || chunks[c].st.fail_line >= 0) {
      std::int64_t cur = first_bad.load(std::memory_order_relaxed);
      while (c < cur && !first_bad.compare_exchange_weak(cur, c)) {
      }
    }
    progress.advance(cuts[c + 1] - cuts[c]);
    if (omp_get_thread_num() == 0) progress.maybe_print();
  }
  std::int64_t line = first_line;
  for (std::int64_t c = 0; c < k; ++c) {
    if (errors[c]) {
      try {
        std::rethrow_exception(errors[c]);
      } catch (const std::bad_alloc&) {
        throw OutOfMemory(path + ": out of memory while reading (file of " +
                          std::to_string(cuts.back()) + " bytes of data)");
      }
    }
    const ChunkStatus& st = chunks[c].st;
    if (st.fail_line >= 0) throw ParseError(path, line + st.fail_line, st.what);
    line += st.lines;
  }
}

/// Absolute line (1-based) of the data line number `target` (0-based over the whole data
/// section, counting only lines that are not blank and not comments). Used only on the error
/// path for "more entries than declared".
inline std::int64_t locate_data_line(const char* begin, const char* end, std::int64_t first_line,
                                     std::int64_t target, const char* comment_chars) {
  std::int64_t line = first_line, seen = 0;
  const char* p = begin;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* eol = nl ? static_cast<const char*>(nl) : end;
    const char* q = p;
    while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
    if (q < eol && !std::strchr(comment_chars, *q)) {
      if (seen == target) return line;
      ++seen;
    }
    p = eol < end ? eol + 1 : end;
    ++line;
  }
  return line;
}

/// Appends `parts[c].*member` in chunk order into one vector (parallel copy, exact size).
/// @throws OutOfMemory naming `path` when the joined array cannot be allocated.
template <class T, class Chunk>
std::vector<T> concat_chunks(std::vector<Chunk>& parts, std::vector<T> Chunk::*member, int threads,
                             const std::string& path) {
  const std::size_t k = parts.size();
  std::vector<std::size_t> offset(k + 1, 0);
  for (std::size_t c = 0; c < k; ++c) offset[c + 1] = offset[c] + (parts[c].*member).size();
  // The joined array is the biggest the reader makes (268 MB of columns for R-MAT 22): its pages
  // are faulted in on all threads, as huge pages where the host allows (host_pages.hpp).
  const std::string where = path + ": joining the parsed entries";
  std::vector<T> out = large_workspace<T>(offset[k], where.c_str());
#pragma omp parallel for num_threads(threads) \
    schedule(dynamic, 1) if (offset[k] * sizeof(T) > kParallelCopyBytes)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(k); ++c) {
    auto& v = parts[c].*member;
    if (!v.empty()) std::memcpy(out.data() + offset[c], v.data(), v.size() * sizeof(T));
    std::vector<T>().swap(v);
  }
  return out;
}

}  // namespace detail
}  // namespace spindle
