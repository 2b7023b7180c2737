// SPDX-License-Identifier: Apache-2.0
// Matrix Market data section: parallel chunked parsing of coordinate and array files.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "chunked.hpp"
#include "mapped_file.hpp"
#include "mm_common.hpp"
#include "progress.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "stream_checks.hpp"
#include "text_scan.hpp"

namespace spindle {
namespace {
// The dimension budget: at least this many rows and columns, else 8 per byte of the file (a
// line of the file names at most 2 vertices in at least 4 bytes), and no more than the memory
// available allows at kDimensionBytes per row (CSR offsets, and the few vertex-sized vectors of
// an algorithm).
constexpr std::uint64_t kMinDimensionBudget = std::uint64_t{1} << 20;
constexpr std::uint64_t kDimensionBytes = 64;
}  // namespace

namespace detail {
namespace {

StreamCheck mm_stream_check(const std::string& path, const MatrixMarketOptions& options) {
  return [&path, headerless = options.headerless](const char* d, std::size_t n,
                                                  bool eof) -> std::uint64_t {
    check_mm_prefix(d, n, eof, path, headerless);
    return 0;
  };
}

std::string file_label(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What the entry parser needs to know, fixed for the whole file.
struct EntrySpec {
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  MmField field = MmField::Real;
  bool keep_values = true;  // store values (false: parse and check them, then drop)
  bool mirror = false;      // expand symmetric / skew-symmetric
  bool skew = false;
  bool allow_nonfinite = false;
};

template <class I>
struct CooChunk {
  ChunkStatus st;
  std::vector<I> row;
  std::vector<I> col;
  std::vector<double> val;
};

struct DenseChunk {
  ChunkStatus st;
  std::vector<double> val;
};

bool at_end_of_line(const char* p, const char* e) { return p == e || *p == '\n' || *p == '\r'; }

// A number must end at a blank or the line end ("12abc" is one bad token, not 12 + garbage).
bool ends_token(const char* p, const char* e) {
  return p == e || is_blank(*p) || *p == '\n' || *p == '\r';
}

std::string nonfinite_message(double v) {
  return std::string("value ") + (std::isnan(v) ? "NaN" : (v > 0 ? "Inf" : "-Inf")) +
         " is not finite (NaN/Inf values are refused unless allow_nonfinite, "
         "--allow-nonfinite, is set)";
}

// Parses the value field at p (already past blanks). Returns false after recording the error.
inline bool parse_value(const char*& p, const char* e, const EntrySpec& s, double& v,
                        ChunkStatus& st, std::int64_t line) {
  if (at_end_of_line(p, e)) {
    st.fail(line, s.field == MmField::Integer ? "missing value: expected an integer value"
                                              : "missing value: expected a real value");
    return false;
  }
  const char* tok = p;
  if (s.field == MmField::Integer) {
    std::int64_t iv = 0;
    const NumStatus ns = parse_int64(p, e, iv);
    if (ns == NumStatus::Overflow) {
      st.fail(line, "integer value " + token_at(tok, e) + " is outside the 64-bit range");
      return false;
    }
    if (ns != NumStatus::Ok || !ends_token(p, e)) {
      p = tok;
      st.fail(line, "expected an integer value, found " + token_at(tok, e));
      return false;
    }
    v = static_cast<double>(iv);
    return true;
  }
  if (!parse_double(p, e, v) || !ends_token(p, e)) {
    p = tok;
    st.fail(line, "expected a real value, found " + token_at(tok, e));
    return false;
  }
  if (!s.allow_nonfinite && !std::isfinite(v)) {
    // A finite-looking number that overflowed (1e400) is named as written, not as "Inf".
    const std::string text = token_at(tok, e);
    const bool written_nonfinite = text.find_first_of("nNiI") != std::string::npos;
    st.fail(line, written_nonfinite
                      ? nonfinite_message(v)
                      : "value " + text + " overflows a double: " + nonfinite_message(v));
    return false;
  }
  return true;
}

// Parses an index at p (already past blanks) into [1, limit]; false after recording the error.
inline bool parse_index(const char*& p, const char* e, std::uint64_t limit, const char* name,
                        std::uint64_t& out, ChunkStatus& st, std::int64_t line) {
  const char* tok = p;
  if (at_end_of_line(p, e)) {
    st.fail(line, std::string("missing ") + name + ": expected 'row col" +
                      "' followed by the value (if any)");
    return false;
  }
  const NumStatus ns = parse_count(p, e, out);
  if (ns != NumStatus::Ok || !ends_token(p, e)) {
    p = tok;
    st.fail(line, std::string("expected the ") + name + " (an integer in 1.." +
                      std::to_string(limit) + "), found " + token_at(tok, e));
    return false;
  }
  if (out < 1 || out > limit) {
    st.fail(line, std::string(name) + " " + std::to_string(out) + " is out of range 1.." +
                      std::to_string(limit));
    return false;
  }
  return true;
}

// Careful parse of one entry line starting at p (first non-blank character, not a comment):
// handles every accepted spelling and produces the exact error. Returns false after recording
// the error; on success p is left at the '\n' or the end.
template <class I>
bool parse_entry_slow(const char*& p, const char* e, const EntrySpec& s, CooChunk<I>& out,
                      std::int64_t line) {
  ChunkStatus& st = out.st;
  const bool has_value = s.field != MmField::Pattern;
  std::uint64_t i = 0, j = 0;
  if (!parse_index(p, e, s.rows, "row index", i, st, line)) return false;
  p = skip_blanks(p, e);
  if (!parse_index(p, e, s.cols, "column index", j, st, line)) return false;
  double v = 1.0;
  if (has_value) {
    p = skip_blanks(p, e);
    if (!parse_value(p, e, s, v, st, line)) return false;
  }
  if (!at_line_end(p, e)) {
    st.fail(line, "unexpected text after the entry: " + token_at(p, e) + " (expected " +
                      (has_value ? "'row col value'" : "'row col' for a pattern file") + ")");
    return false;
  }
  if (s.skew && i == j && v != 0.0) {
    st.fail(line, "nonzero diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) +
                      ") in a skew-symmetric matrix (its diagonal must be zero)");
    return false;
  }
  out.row.push_back(static_cast<I>(i - 1));
  out.col.push_back(static_cast<I>(j - 1));
  if (has_value && s.keep_values) out.val.push_back(v);
  if (s.mirror && i != j) {
    out.row.push_back(static_cast<I>(j - 1));
    out.col.push_back(static_cast<I>(i - 1));
    if (has_value && s.keep_values) out.val.push_back(s.skew ? -v : v);
  }
  return true;
}

// Up to 18 plain digits (no sign): the optimistic path. Anything else (signs, 19+ digits,
// no digits) returns nullptr and the line goes to parse_entry_slow.
inline const char* scan_digits(const char* p, const char* e, std::uint64_t& v) {
  std::uint64_t x = 0;
  const char* b = p;
  while (p < e) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0';
    if (d > 9) break;
    x = x * 10 + d;
    ++p;
  }
  if (p == b || p - b > 18) return nullptr;
  v = x;
  return p;
}

template <class I>
void parse_coo_chunk(const char* p, const char* e, const EntrySpec& s, std::int64_t reserve,
                     CooChunk<I>& out) {
  ChunkStatus& st = out.st;
  const bool has_value = s.field != MmField::Pattern;
  const bool real = s.field == MmField::Real;
  const bool store_val = has_value && s.keep_values;
  out.row.reserve(static_cast<std::size_t>(reserve));
  out.col.reserve(static_cast<std::size_t>(reserve));
  if (store_val) out.val.reserve(static_cast<std::size_t>(reserve));
  std::int64_t line = 0, entries = 0;
  while (p < e) {
    p = skip_blanks(p, e);
    if (p == e) break;
    const char c = *p;
    if (c == '\n') {
      ++p;
      ++line;
      continue;
    }
    if (c == '%' || (c == '\r' && (p + 1 == e || p[1] == '\n'))) {
      p = find_eol(p, e);
      if (p < e) {
        ++p;
        ++line;
      }
      continue;
    }
    // Optimistic path for the common spelling "i j [v]" with plain numbers; any surprise
    // re-parses the line carefully from its start.
    const char* start = p;
    bool fast = false;
    std::uint64_t i = 0, j = 0;
    double v = 1.0;
    const char* q = scan_digits(p, e, i);
    if (q && q < e && is_blank(*q) && i - 1 < s.rows) {
      q = skip_blanks(q + 1, e);
      q = scan_digits(q, e, j);
      if (q && j - 1 < s.cols) {
        if (!has_value) {
          fast = true;
        } else if (q < e && is_blank(*q)) {
          q = skip_blanks(q + 1, e);
          if (real) {
            if (parse_double_fast(q, e, v)) {
              fast = true;
            } else {
              const auto r = std::from_chars(q, e, v, std::chars_format::general);
              fast = r.ec == std::errc() && (s.allow_nonfinite || std::isfinite(v));
              q = r.ptr;
            }
          } else {
            std::int64_t iv = 0;
            const auto r = std::from_chars(q, e, iv);
            fast = r.ec == std::errc();
            v = static_cast<double>(iv);
            q = r.ptr;
          }
        }
        if (fast) {
          if (q < e && *q == '\n') {
            // the common case, nothing to check
          } else {
            fast = at_line_end(q, e);
          }
        }
        if (fast && s.skew && i == j && v != 0.0) fast = false;
      }
    }
    if (fast) {
      p = q;
      out.row.push_back(static_cast<I>(i - 1));
      out.col.push_back(static_cast<I>(j - 1));
      if (store_val) out.val.push_back(v);
      if (s.mirror && i != j) {
        out.row.push_back(static_cast<I>(j - 1));
        out.col.push_back(static_cast<I>(i - 1));
        if (store_val) out.val.push_back(s.skew ? -v : v);
      }
    } else {
      p = start;
      if (!parse_entry_slow(p, e, s, out, line)) return;
    }
    ++entries;
    if (p < e) {
      ++p;  // the '\n'
      ++line;
    }
  }
  st.lines = line;
  st.entries = entries;
}

void parse_dense_chunk(const char* p, const char* e, const EntrySpec& s, DenseChunk& out) {
  ChunkStatus& st = out.st;
  std::int64_t line = 0;
  while (p < e) {
    p = skip_blanks(p, e);
    if (p == e) break;
    const char c = *p;
    if (c == '\n') {
      ++p;
      ++line;
      continue;
    }
    if (c == '%' || (c == '\r' && (p + 1 == e || p[1] == '\n'))) {
      p = find_eol(p, e);
      if (p < e) {
        ++p;
        ++line;
      }
      continue;
    }
    double v = 0.0;
    if (!parse_value(p, e, s, v, st, line)) return;
    if (!at_line_end(p, e)) {
      st.fail(line, "unexpected text after the value: " + token_at(p, e) +
                        " (an array file has one value per line)");
      return;
    }
    out.val.push_back(v);
    if (p < e) {
      ++p;
      ++line;
    }
  }
  st.lines = line;
  st.entries = static_cast<std::int64_t>(out.val.size());
}

void refuse_unsupported(const MatrixMarketHeader& h, const std::string& path) {
  if (h.object == MmObject::Vector) {
    throw Unsupported(path +
                      ": Matrix Market 'vector' objects are not supported (expected "
                      "'matrix')");
  }
  if (h.field == MmField::Complex) {
    throw Unsupported(path + ": complex values are not supported (field 'complex'" +
                      (h.symmetry == MmSymmetry::Hermitian ? ", symmetry 'hermitian'" : "") +
                      " on line 1)");
  }
}

// Checks the entry count against the declaration; errors name the line where it goes wrong.
template <class Chunk>
void check_count(const std::vector<Chunk>& chunks, const MatrixMarketHeader& h, const MappedFile& f,
                 const std::string& path, const char* what) {
  std::int64_t total = 0, lines = 0;
  for (const auto& c : chunks) {
    total += c.st.entries;
    lines += c.st.lines;
  }
  const std::int64_t first_line = h.size_line + 1;
  if (total > h.entries) {
    const std::int64_t at =
        locate_data_line(f.data() + h.data_offset, f.end(), first_line, h.entries, "%");
    throw ParseError(path, at,
                     std::string("more ") + what + " than the " + std::to_string(h.entries) +
                         " declared on the size line (line " + std::to_string(h.size_line) + ")");
  }
  if (total < h.entries) {
    throw ParseError(path, first_line + lines,
                     "end of file after " + std::to_string(total) + " " + what + ", expected " +
                         std::to_string(h.entries) + " as declared on line " +
                         std::to_string(h.size_line) + " (truncated file?)");
  }
}

template <class I>
MatrixMarketCoo<I> read_coo(const MappedFile& f, const std::string& path,
                            const MatrixMarketOptions& opt, bool keep_values) {
  MatrixMarketCoo<I> out;
  MatrixMarketHeader& h = out.header;
  h = parse_mm_header(f.data(), f.size(), path, opt.headerless);
  refuse_unsupported(h, path);
  if (h.format != MmFormat::Coordinate) {
    throw InvalidArgument(path +
                          ": is a dense 'array' file; read it with "
                          "read_matrix_market_dense (expected 'coordinate')");
  }
  if (h.rows > static_cast<std::int64_t>(std::numeric_limits<I>::max()) ||
      h.cols > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
    throw InvalidArgument(path + ": a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                          " matrix does not fit 32-bit indices; read it with int64 indices");
  }
  EntrySpec s;
  s.rows = static_cast<std::uint64_t>(h.rows);
  s.cols = static_cast<std::uint64_t>(h.cols);
  s.field = h.field;
  s.keep_values = keep_values;
  s.mirror = opt.expand_symmetry && h.symmetry != MmSymmetry::General;
  s.skew = h.symmetry == MmSymmetry::SkewSymmetric;
  s.allow_nonfinite = opt.allow_nonfinite;

  const char* begin = f.data() + h.data_offset;
  const char* end = f.end();
  const int threads = resolve_threads(opt.threads);
  const auto cuts = plan_chunks(begin, end, threads);
  const double data_bytes = std::max<double>(1.0, static_cast<double>(end - begin));
  Progress progress(file_label(path), static_cast<std::uint64_t>(end - begin), opt.progress);
  std::vector<CooChunk<I>> chunks;
  run_chunks(begin, cuts, threads, progress, path, h.size_line + 1, chunks,
             [&](const char* b, const char* e, CooChunk<I>& c) {
               // Reserve this chunk's share of the declared count, but never more than its
               // bytes could hold (a line takes >= 4 bytes): a wild count sizes nothing.
               const double bytes = static_cast<double>(e - b);
               double want = static_cast<double>(h.entries) * (bytes / data_bytes) * 1.02 + 16;
               want = std::min(want, bytes / 4 + 1);
               if (s.mirror) want *= 2;
               parse_coo_chunk(b, e, s, static_cast<std::int64_t>(want), c);
             });
  check_count(chunks, h, f, path, "entries");
  out.coo.rows = static_cast<I>(h.rows);
  out.coo.cols = static_cast<I>(h.cols);
  out.coo.row = concat_chunks(chunks, &CooChunk<I>::row, threads, path);
  out.coo.col = concat_chunks(chunks, &CooChunk<I>::col, threads, path);
  out.coo.val = concat_chunks(chunks, &CooChunk<I>::val, threads, path);
  return out;
}

}  // namespace
}  // namespace detail

template <class I>
MatrixMarketCoo<I> read_matrix_market_coo(const std::string& path,
                                          const MatrixMarketOptions& options) {
  detail::MappedFile f(path, detail::Content::Text, detail::mm_stream_check(path, options));
  return detail::with_input_checks(f, path,
                                   [&] { return detail::read_coo<I>(f, path, options, true); });
}

std::int64_t matrix_market_dimension_budget(std::uint64_t file_bytes) {
  const std::uint64_t by_file =
      std::max<std::uint64_t>(kMinDimensionBudget, detail::saturating_mul_add(file_bytes, 8, 0));
  const std::uint64_t avail = detail::available_memory_bytes();
  const std::uint64_t by_memory = avail ? avail / kDimensionBytes : by_file;
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(std::min(by_file, by_memory), static_cast<std::uint64_t>(INT64_MAX)));
}

template <class I, class V>
Graph<I, V> read_matrix_market(const std::string& path, const MatrixMarketOptions& options) {
  Coo<I> coo;
  std::int64_t size_line = 0, file_bytes = 0;
  {
    detail::MappedFile f(path, detail::Content::Text, detail::mm_stream_check(path, options));
    coo = detail::with_input_checks(f, path, [&] {
      auto raw = detail::read_coo<I>(f, path, options, !is_pattern_v<V>);
      size_line = raw.header.size_line;
      return std::move(raw.coo);
    });
    file_bytes = static_cast<std::int64_t>(f.size());
  }
  BuildOptions build = options.build;
  build.allow_nonfinite = true;  // already checked per line while parsing
  const std::int64_t n = coo.size();
  if (!options.trust_dimensions) {
    // A size line is a few bytes; the arrays of one entry per row (CSR offsets, and every
    // vertex-sized vector an algorithm makes) are not. Dimensions far beyond what the file's
    // entries could touch are refused unless the caller vouches for them.
    const std::int64_t budget =
        matrix_market_dimension_budget(static_cast<std::uint64_t>(file_bytes));
    const std::int64_t biggest = std::max<std::int64_t>(coo.rows, coo.cols);
    if (biggest > budget) {
      char need[64];
      std::snprintf(need, sizeof need, "%.3g GB",
                    static_cast<double>(detail::saturating_mul_add(
                        static_cast<std::uint64_t>(biggest), kDimensionBytes, 0)) /
                        1e9);
      throw ParseError(path, size_line,
                       "declares a " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                           " matrix with " + std::to_string(n) + " stored entries in " +
                           std::to_string(file_bytes) +
                           " bytes: its vertex arrays would take about " + need + ", beyond the " +
                           std::to_string(budget) +
                           " rows and columns read from a file of this size on this machine; "
                           "if the dimensions are right, read it with trust_dimensions "
                           "(--trust-dimensions)");
    }
  }
  {
    // CSR needs O(rows) memory however few entries there are: a legal but huge row count
    // (2^31 rows, 3 entries) must fail with numbers, not with the OOM killer. Counted: the
    // builder's per-row offsets and counters, and per entry the COO input, the sorted copy and
    // the output. Saturating: a row count near 2^63 must not wrap to a small number.
    const auto rows = static_cast<std::uint64_t>(coo.rows) + 1;
    const std::uint64_t per_row = 2 * sizeof(std::int64_t) + 3 * sizeof(I);
    const std::uint64_t per_entry = 4 * sizeof(I) + 2 * sizeof(double) + sizeof(double);
    detail::check_memory(
        path,
        detail::saturating_mul_add(
            rows, per_row, detail::saturating_mul_add(static_cast<std::uint64_t>(n), per_entry, 0)),
        "building the graph");
  }
  try {
    return build_graph<I, V>(std::move(coo), build);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory building the graph (" + std::to_string(n) +
                      " entries)");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
}

template <class T>
DenseMatrix<T> read_matrix_market_dense(const std::string& path,
                                        const MatrixMarketOptions& options) {
  using namespace detail;
  MappedFile f(path, Content::Text, mm_stream_check(path, options));
  const MatrixMarketHeader h = with_input_checks(
      f, path, [&] { return parse_mm_header(f.data(), f.size(), path, options.headerless); });
  refuse_unsupported(h, path);
  if (h.format != MmFormat::Array) {
    throw InvalidArgument(path +
                          ": is a sparse 'coordinate' file; read it with "
                          "read_matrix_market (expected 'array')");
  }
  const char* begin = f.data() + h.data_offset;
  const char* end = f.end();
  // Each value takes at least 2 bytes ("1\n", the last may lack its newline): a count the file
  // cannot hold is refused before anything is allocated from it.
  const auto avail = static_cast<std::uint64_t>(end - begin);
  if (static_cast<std::uint64_t>(h.entries) > (avail + 1) / 2) {
    throw ParseError(path, h.size_line,
                     "declares " + std::to_string(h.entries) + " values but only " +
                         std::to_string(avail) +
                         " bytes follow the size line (truncated file or wrong size line)");
  }
  EntrySpec s;
  s.field = h.field;
  s.allow_nonfinite = options.allow_nonfinite;
  const int threads = resolve_threads(options.threads);
  const auto cuts = plan_chunks(begin, end, threads);
  Progress progress(file_label(path), avail, options.progress);
  const std::vector<double> v = with_input_checks(f, path, [&] {
    std::vector<DenseChunk> chunks;
    run_chunks(begin, cuts, threads, progress, path, h.size_line + 1, chunks,
               [&](const char* b, const char* e, DenseChunk& c) { parse_dense_chunk(b, e, s, c); });
    check_count(chunks, h, f, path, "values");
    return concat_chunks(chunks, &DenseChunk::val, threads, path);
  });
  DenseMatrix<T> m(h.rows, h.cols);
  const std::int64_t rows = h.rows, cols = h.cols;
  if (h.symmetry == MmSymmetry::General) {
    // The host array is made here, once, not by the first element each thread writes.
    T* md = m.data();
#pragma omp parallel for num_threads(threads) schedule(static) if (rows * cols > 65536)
    for (std::int64_t j = 0; j < cols; ++j) {
      for (std::int64_t i = 0; i < rows; ++i) md[i * cols + j] = static_cast<T>(v[j * rows + i]);
    }
  } else {
    // Lower triangle stored column by column; mirror it (negated for skew-symmetric).
    const bool skew = h.symmetry == MmSymmetry::SkewSymmetric;
    std::size_t k = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      for (std::int64_t i = skew ? j + 1 : j; i < rows; ++i) {
        const double x = v[k++];
        m(i, j) = static_cast<T>(x);
        if (i != j) m(j, i) = static_cast<T>(skew ? -x : x);
      }
    }
  }
  return m;
}

template MatrixMarketCoo<std::int32_t> read_matrix_market_coo<std::int32_t>(
    const std::string&, const MatrixMarketOptions&);
template MatrixMarketCoo<std::int64_t> read_matrix_market_coo<std::int64_t>(
    const std::string&, const MatrixMarketOptions&);
#define SPINDLE_INSTANTIATE_MM_READ(I, V) \
  template Graph<I, V> read_matrix_market<I, V>(const std::string&, const MatrixMarketOptions&);
SPINDLE_INSTANTIATE_MM_READ(std::int32_t, float)
SPINDLE_INSTANTIATE_MM_READ(std::int32_t, double)
SPINDLE_INSTANTIATE_MM_READ(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_MM_READ(std::int64_t, float)
SPINDLE_INSTANTIATE_MM_READ(std::int64_t, double)
SPINDLE_INSTANTIATE_MM_READ(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_MM_READ
template DenseMatrix<float> read_matrix_market_dense<float>(const std::string&,
                                                            const MatrixMarketOptions&);
template DenseMatrix<double> read_matrix_market_dense<double>(const std::string&,
                                                              const MatrixMarketOptions&);

}  // namespace spindle
