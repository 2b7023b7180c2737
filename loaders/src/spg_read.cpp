// SPDX-License-Identifier: Apache-2.0
// The .spg reader: header checks before any allocation, then one parallel pass that copies the
// sections into the graph's arrays and hashes the same bytes, then the structure checks.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "mapped_file.hpp"
#include "spg_layout.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"
#include "stream_checks.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .spg reader assumes a little-endian host"
#endif

namespace spindle {

namespace detail {
namespace spg {

// The header, checked field by field, and where each section lies.
struct Layout {
  SpgHeader header;
  std::uint64_t offset[kSections] = {};
  std::uint64_t size[kSections] = {};
};

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ParseError(path, 0, ".spg: " + what);
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string& path) {
  std::uint64_t s = 0;
  if (__builtin_add_overflow(a, b, &s)) fail(path, "header sizes overflow 64 bits");
  return s;
}
std::uint64_t mul(std::uint64_t a, std::uint64_t b, const std::string& path) {
  std::uint64_t m = 0;
  if (__builtin_mul_overflow(a, b, &m)) fail(path, "header sizes overflow 64 bits");
  return m;
}
std::uint64_t aligned(std::uint64_t x, const std::string& path) {
  if (x > (std::uint64_t{1} << 62)) fail(path, "header sizes overflow 64 bits");
  return align_up(x);
}

}  // namespace

// Checks everything the header says against itself; `actual` is the file's size when known
// (0: a stream's prefix, whose total the caller holds the stream to).
Layout parse_header(const char* d, std::size_t size, const std::string& path,
                    std::uint64_t actual) {
  if (size < sizeof kMagic || std::memcmp(d, kMagic, sizeof kMagic) != 0) {
    fail(path, "bad magic: not a .spg file (expected the bytes 89 53 50 47 0d 0a 1a 0a)");
  }
  if (size < kHeaderBytes) {
    fail(path, "truncated header: " + std::to_string(size) + " bytes, the header has " +
                   std::to_string(kHeaderBytes));
  }
  Layout L;
  SpgHeader& h = L.header;
  const std::uint32_t bom = load32(d + kOffByteOrder);
  if (bom != kByteOrderMark) {
    fail(path, bom == 0x04030201u ? "written with big-endian byte order, which is not supported"
                                  : "bad byte-order mark 0x" + hex(bom));
  }
  h.version = load32(d + kOffVersion);
  if (h.version != kSpgVersion) {
    fail(path, "unsupported version " + std::to_string(h.version) + " (this build reads version " +
                   std::to_string(kSpgVersion) + ")");
  }
  const auto ib = static_cast<unsigned char>(d[kOffIndexBytes]);
  if (ib != 4 && ib != 8) {
    fail(path, "unsupported index type: " + std::to_string(ib) + "-byte indices (expected 4 or 8)");
  }
  h.index = ib == 4 ? IndexKind::Int32 : IndexKind::Int64;
  const auto vc = static_cast<unsigned char>(d[kOffValueCode]);
  if (vc > kValueDouble) {
    fail(path, "unsupported value type code " + std::to_string(vc) +
                   " (0 pattern, 1 float32, 2 float64)");
  }
  h.values = vc == kValuePattern ? ValueKind::Pattern
             : vc == kValueFloat ? ValueKind::Float
                                 : ValueKind::Double;
  if (d[kOffReserved] != 0 || d[kOffReserved + 1] != 0) fail(path, "reserved header bytes not 0");
  const std::uint32_t flags = load32(d + kOffFlags);
  if (flags & ~kKnownFlags) fail(path, "unknown flags 0x" + hex(flags & ~kKnownFlags));
  h.symmetric = (flags & kFlagSymmetric) != 0;
  h.labels_are_integers = (flags & kFlagIntegerLabels) != 0;
  const auto rows = static_cast<std::int64_t>(load64(d + kOffRows));
  const auto cols = static_cast<std::int64_t>(load64(d + kOffCols));
  const auto nnz = static_cast<std::int64_t>(load64(d + kOffNnz));
  if (rows < 0 || cols < 0 || nnz < 0) {
    fail(path, "negative size in the header (rows " + std::to_string(rows) + ", cols " +
                   std::to_string(cols) + ", nnz " + std::to_string(nnz) + ")");
  }
  const std::int64_t imax = ib == 4 ? std::numeric_limits<std::int32_t>::max()
                                    : std::numeric_limits<std::int64_t>::max() - 1;
  if (rows > imax || cols > imax || nnz > imax) {
    fail(path, "rows " + std::to_string(rows) + ", cols " + std::to_string(cols) + " or nnz " +
                   std::to_string(nnz) + " does not fit its " + std::to_string(8 * ib) +
                   "-bit index type");
  }
  h.rows = rows;
  h.cols = cols;
  h.nnz = nnz;
  h.file_bytes = load64(d + kOffFileBytes);
  h.checksum = load64(d + kOffChecksum);
  for (int s = 0; s < kSections; ++s) {
    L.offset[s] = load64(d + kOffSections + 16 * s);
    L.size[s] = load64(d + kOffSections + 16 * s + 8);
  }
  // The sizes the counts imply, and the one layout a writer produces: each section where the
  // previous one ends, rounded up to 64 bytes.
  const std::uint64_t vb = vc == kValuePattern ? 0 : vc == kValueFloat ? 4 : 8;
  const std::uint64_t want[3] = {mul(add(static_cast<std::uint64_t>(rows), 1, path), ib, path),
                                 mul(static_cast<std::uint64_t>(nnz), ib, path),
                                 mul(static_cast<std::uint64_t>(nnz), vb, path)};
  std::uint64_t at = kHeaderBytes;
  for (int s = 0; s < kSections; ++s) {
    if (L.offset[s] != at) {
      fail(path, std::string("size mismatch: the ") + section_name(s) + " section starts at byte " +
                     std::to_string(L.offset[s]) + ", expected " + std::to_string(at));
    }
    if (s < kLabels && L.size[s] != want[s]) {
      fail(path, std::string("size mismatch: the ") + section_name(s) + " section holds " +
                     std::to_string(L.size[s]) + " bytes, its counts need " +
                     std::to_string(want[s]));
    }
    at = aligned(add(at, L.size[s], path), path);
  }
  if (h.file_bytes != at) {
    fail(path, "size mismatch: the header declares " + std::to_string(h.file_bytes) +
                   " bytes, its sections end at " + std::to_string(at));
  }
  if (actual != 0 && actual != h.file_bytes) {
    fail(path, std::string(actual < h.file_bytes ? "truncated file" : "trailing bytes") +
                   ": size mismatch: the header declares " + std::to_string(h.file_bytes) +
                   " bytes, the file holds " + std::to_string(actual));
  }
  h.has_labels = L.size[kLabels] != 0;
  if (h.has_labels) {
    if (rows != cols) fail(path, "labels for a rectangular matrix");
    // u64 count, u64 offsets[count + 1], the bytes.
    const std::uint64_t need = add(16, mul(static_cast<std::uint64_t>(rows), 8, path), path);
    if (L.size[kLabels] < need) {
      fail(path, "size mismatch: the labels section holds " + std::to_string(L.size[kLabels]) +
                     " bytes, " + std::to_string(rows) + " labels need at least " +
                     std::to_string(need));
    }
  }
  return L;
}

}  // namespace spg

std::uint64_t check_spg_prefix(const char* data, std::size_t size, const std::string& path) {
  return spg::parse_header(data, size, path, 0).header.file_bytes;
}

}  // namespace detail

namespace {

using namespace detail::spg;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point& t) {
  const auto now = Clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

detail::StreamCheck spg_stream_check(const std::string& path) {
  return [&path](const char* d, std::size_t n, bool) -> std::uint64_t {
    return detail::check_spg_prefix(d, n, path);
  };
}

template <class T>
std::vector<T> make_array(std::size_t n, const char* where) {
  std::vector<T> v;
  detail::large_reserve(v, n, where);
  v.resize(n);
  return v;
}

// Copies every section into its destination (nullptr: not copied) in blocks of kHashBlock
// bytes on all threads, hashing each block of the body as it goes; returns the checksum (0 when
// not verified). `bad_value` gets the first non-finite value's entry (or -1) when checked.
template <class V>
std::uint64_t copy_and_hash(const char* file, const Layout& L, char* const dest[kSections],
                            bool verify, bool check_finite, int threads, std::int64_t* bad_value) {
  const std::uint64_t body = L.header.file_bytes - kHeaderBytes;
  const auto blocks = static_cast<std::int64_t>((body + kHashBlock - 1) / kHashBlock);
  std::vector<std::uint64_t> hashes(verify ? static_cast<std::size_t>(blocks) : 0);
  std::int64_t first_bad = std::numeric_limits<std::int64_t>::max();
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : first_bad)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::uint64_t lo = kHeaderBytes + static_cast<std::uint64_t>(b) * kHashBlock;
    const std::uint64_t hi = std::min<std::uint64_t>(lo + kHashBlock, L.header.file_bytes);
    if (verify) {
      hashes[static_cast<std::size_t>(b)] =
          block_hash(file + lo, static_cast<std::size_t>(hi - lo), static_cast<std::uint64_t>(b));
    }
    for (int s = 0; s < kSections; ++s) {
      if (!dest[s]) continue;
      const std::uint64_t s_lo = std::max(lo, L.offset[s]);
      const std::uint64_t s_hi = std::min(hi, L.offset[s] + L.size[s]);
      if (s_lo >= s_hi) continue;
      char* out = dest[s] + (s_lo - L.offset[s]);
      std::memcpy(out, file + s_lo, static_cast<std::size_t>(s_hi - s_lo));
      if constexpr (!is_pattern_v<V>) {
        if (s == kValues && check_finite) {
          // The block's values are in cache now. No value straddles two blocks: sections start
          // on kAlign boundaries and blocks are multiples of it (static_assert in spg_layout.hpp).
          const std::uint64_t first = (s_lo - L.offset[s] + sizeof(V) - 1) / sizeof(V);
          const std::uint64_t last = (s_hi - L.offset[s]) / sizeof(V);
          const V* vals = reinterpret_cast<const V*>(dest[s]);
          for (std::uint64_t k = first; k < last; ++k) {
            if (!std::isfinite(vals[k])) {
              first_bad = std::min(first_bad, static_cast<std::int64_t>(k));
              break;
            }
          }
        }
      }
    }
  }
  *bad_value = first_bad == std::numeric_limits<std::int64_t>::max() ? -1 : first_bad;
  if (!verify) return 0;
  std::uint64_t h = fold_start(file);
  for (const std::uint64_t x : hashes) h = fold(h, x);
  return h;
}

std::vector<std::string> read_labels(const char* sec, std::uint64_t bytes, std::int64_t rows,
                                     const std::string& path) {
  const std::uint64_t count = load64(sec);
  if (count != static_cast<std::uint64_t>(rows)) {
    throw ParseError(path, 0,
                     ".spg: the labels section holds " + std::to_string(count) + " labels for " +
                         std::to_string(rows) + " vertices");
  }
  const char* offs = sec + 8;
  const std::uint64_t text_bytes = bytes - 16 - 8 * count;
  const char* text = offs + 8 * (count + 1);
  if (load64(offs) != 0 || load64(offs + 8 * count) != text_bytes) {
    throw ParseError(path, 0,
                     ".spg: label offsets must start at 0 and end at the " +
                         std::to_string(text_bytes) + " bytes of label text");
  }
  std::vector<std::string> labels(static_cast<std::size_t>(count));
  std::int64_t bad = -1;
  for (std::uint64_t v = 0; v < count; ++v) {
    const std::uint64_t a = load64(offs + 8 * v), b = load64(offs + 8 * (v + 1));
    if (b < a || b > text_bytes) {
      bad = static_cast<std::int64_t>(v);
      break;
    }
    labels[static_cast<std::size_t>(v)].assign(text + a, static_cast<std::size_t>(b - a));
  }
  if (bad >= 0) {
    throw ParseError(path, 0, ".spg: label offsets not monotone at label " + std::to_string(bad));
  }
  return labels;
}

// Reads the file's own types (FI, FV) into a graph.
template <class FI, class FV>
SpgResult<FI, FV> read_native(const detail::MappedFile& f, const Layout& L, const std::string& path,
                              const SpgReadOptions& o, SpgReadTimes& t, Clock::time_point& clock) {
  using S = typename Graph<FI, FV>::stored_value_type;
  const SpgHeader& h = L.header;
  const auto rows = static_cast<std::size_t>(h.rows);
  const auto nnz = static_cast<std::size_t>(h.nnz);
  std::vector<FI> row_ptr = make_array<FI>(rows + 1, "reading a .spg file's row offsets");
  std::vector<FI> col_idx = make_array<FI>(nnz, "reading a .spg file's column indices");
  std::vector<S> values = make_array<S>(is_pattern_v<FV> ? 0 : nnz, "reading a .spg file's values");
  t.allocate = since(clock);
  char* dest[kSections] = {
      reinterpret_cast<char*>(row_ptr.data()), reinterpret_cast<char*>(col_idx.data()),
      is_pattern_v<FV> ? nullptr : reinterpret_cast<char*>(values.data()), nullptr};
  const int threads = detail::resolve_threads(o.threads);
  std::int64_t bad_value = -1;
  const std::uint64_t sum = copy_and_hash<FV>(f.data(), L, dest, o.verify_checksum,
                                              !o.allow_nonfinite, threads, &bad_value);
  if (o.verify_checksum && sum != h.checksum) {
    throw ParseError(path, 0,
                     ".spg: checksum mismatch: the header says " + hex(h.checksum) +
                         ", the bytes hash to " + hex(sum) + " (the file is corrupted)");
  }
  t.copy = since(clock);
  if (bad_value >= 0) {
    throw ParseError(path, 0,
                     ".spg: the value of entry " + std::to_string(bad_value) +
                         " is NaN or infinite (refused unless allow_nonfinite)");
  }
  // Offsets first: the column check below walks each row's range, which must lie in the array.
  if (row_ptr[0] != 0 || static_cast<std::uint64_t>(row_ptr[rows]) != nnz) {
    throw ParseError(path, 0,
                     ".spg: row offsets must start at 0 and end at nnz = " + std::to_string(nnz) +
                         " (they run from " + std::to_string(row_ptr[0]) + " to " +
                         std::to_string(row_ptr[rows]) + ")");
  }
  std::int64_t bad_row = std::numeric_limits<std::int64_t>::max();
  const auto n = static_cast<std::int64_t>(rows);
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : bad_row)
  for (std::int64_t i = 0; i < n; ++i) {
    if (row_ptr[i + 1] < row_ptr[i]) bad_row = std::min(bad_row, i);
  }
  if (bad_row != std::numeric_limits<std::int64_t>::max()) {
    throw ParseError(path, 0,
                     ".spg: row offsets not monotone: row " + std::to_string(bad_row) +
                         " starts at " + std::to_string(row_ptr[bad_row]) + " and ends at " +
                         std::to_string(row_ptr[bad_row + 1]));
  }
  SpgResult<FI, FV> r;
  try {
    r.graph = Graph<FI, FV>(static_cast<FI>(h.rows), static_cast<FI>(h.cols), std::move(row_ptr),
                            std::move(col_idx), std::move(values));
  } catch (const IndexOutOfBounds& e) {
    throw ParseError(path, 0, std::string(".spg: column out of range: ") + e.what());
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, std::string(".spg: columns not strictly increasing: ") + e.what());
  }
  t.validate = since(clock);
  r.header = h;
  if (h.has_labels) {
    r.labels = read_labels(f.data() + L.offset[kLabels], L.size[kLabels], h.rows, path);
  }
  t.labels = since(clock);
  return r;
}

template <class I, class FI>
std::vector<I> convert_indices(const std::vector<FI>& in) {
  if constexpr (std::is_same_v<I, FI>) {
    return in;
  } else {
    std::vector<I> out(in.size());
    const auto n = static_cast<std::int64_t>(in.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k) out[k] = static_cast<I>(in[k]);
    return out;
  }
}

template <class I, class V, class FI, class FV>
Graph<I, V> convert_graph(const Graph<FI, FV>& g, const std::string& path) {
  if constexpr (std::is_same_v<I, FI>) {
    if constexpr (std::is_same_v<V, FV>) {
      return g;
    } else {
      return g.template with_values<V>();
    }
  } else {
    if (sizeof(I) < sizeof(FI) &&
        (static_cast<std::int64_t>(g.rows()) > std::numeric_limits<I>::max() ||
         static_cast<std::int64_t>(g.cols()) > std::numeric_limits<I>::max() ||
         static_cast<std::int64_t>(g.nnz()) > std::numeric_limits<I>::max())) {
      throw InvalidArgument(path + ": a " + std::to_string(g.rows()) + " x " +
                            std::to_string(g.cols()) + " graph with " + std::to_string(g.nnz()) +
                            " entries does not fit 32-bit indices");
    }
    const Graph<FI, V> typed = convert_graph<FI, V>(g, path);
    return Graph<I, V>(static_cast<I>(g.rows()), static_cast<I>(g.cols()),
                       convert_indices<I>(typed.row_ptr()), convert_indices<I>(typed.col_idx()),
                       typed.values());
  }
}

template <class I, class V, class FI, class FV>
SpgResult<I, V> read_as(const detail::MappedFile& f, const Layout& L, const std::string& path,
                        const SpgReadOptions& o, SpgReadTimes& t, Clock::time_point& clock) {
  SpgResult<FI, FV> native = read_native<FI, FV>(f, L, path, o, t, clock);
  if constexpr (std::is_same_v<I, FI> && std::is_same_v<V, FV>) {
    return native;
  } else {
    SpgResult<I, V> r;
    r.graph = convert_graph<I, V>(native.graph, path);
    r.header = native.header;
    r.labels = std::move(native.labels);
    t.convert = since(clock);
    return r;
  }
}

template <class I, class V, class FI>
SpgResult<I, V> read_with_index(const detail::MappedFile& f, const Layout& L,
                                const std::string& path, const SpgReadOptions& o, SpgReadTimes& t,
                                Clock::time_point& clock) {
  switch (L.header.values) {
    case ValueKind::Pattern:
      return read_as<I, V, FI, Pattern>(f, L, path, o, t, clock);
    case ValueKind::Float:
      return read_as<I, V, FI, float>(f, L, path, o, t, clock);
    default:
      return read_as<I, V, FI, double>(f, L, path, o, t, clock);
  }
}

}  // namespace

bool is_spg_magic(const char* data, std::size_t size) noexcept {
  return size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

SpgHeader read_spg_header(const std::string& path) {
  detail::MappedFile f(path, detail::Content::Binary, spg_stream_check(path));
  return detail::with_input_checks(
      f, path, [&] { return parse_header(f.data(), f.size(), path, f.size()).header; });
}

std::uint64_t spg_checksum(const char* data, std::size_t size, int threads) {
  if (size < kHeaderBytes) return 0;
  Layout L;
  L.header.file_bytes = size;
  char* none[kSections] = {nullptr, nullptr, nullptr, nullptr};
  std::int64_t bad = -1;
  return copy_and_hash<Pattern>(data, L, none, true, false, detail::resolve_threads(threads), &bad);
}

// The stored graph with the reverse of every edge added, rebuilt through build_graph so that
// the duplicate policy and its report apply as for a text file read undirected.
template <class I, class V>
Graph<I, V> symmetrized(const Graph<I, V>& g, const BuildOptions& options) {
  Coo<I> coo;
  coo.rows = g.rows();
  coo.cols = g.cols();
  coo.row.reserve(static_cast<std::size_t>(g.nnz()));
  coo.col = g.col_idx();
  for (I i = 0; i < g.rows(); ++i) {
    coo.row.insert(coo.row.end(), static_cast<std::size_t>(g.row_length(i)), i);
  }
  if constexpr (!is_pattern_v<V>) coo.val.assign(g.values().begin(), g.values().end());
  return build_graph<I, V>(std::move(coo), options);
}

template <class I, class V>
SpgResult<I, V> read_spg(const std::string& path, const SpgReadOptions& o, SpgReadTimes* times) {
  SpgReadTimes t;
  Clock::time_point clock = Clock::now();
  detail::MappedFile f(path, detail::Content::Binary, spg_stream_check(path));
  SpgResult<I, V> r = detail::with_input_checks(f, path, [&] {
    const Layout L = parse_header(f.data(), f.size(), path, f.size());
    const SpgHeader& h = L.header;
    if (!o.trust_dimensions) {
      const std::int64_t budget = matrix_market_dimension_budget(h.file_bytes);
      if (std::max(h.rows, h.cols) > budget) {
        throw ParseError(path, 0,
                         ".spg: declares a " + std::to_string(h.rows) + " x " +
                             std::to_string(h.cols) + " matrix in " + std::to_string(h.file_bytes) +
                             " bytes, beyond the " + std::to_string(budget) +
                             " rows and columns read from a file of this size on this machine; "
                             "if the dimensions are right, read it with trust_dimensions "
                             "(--trust-dimensions)");
      }
    }
    // The arrays the graph needs (the file's sections, as I and V when they differ).
    const std::uint64_t need = detail::saturating_mul_add(
        static_cast<std::uint64_t>(h.rows) + 1, sizeof(I),
        detail::saturating_mul_add(static_cast<std::uint64_t>(h.nnz),
                                   sizeof(I) + (is_pattern_v<V> ? 0 : sizeof(V)),
                                   L.size[kLabels] * 2));
    detail::check_memory(path, need, "the graph");
    t.header = since(clock);
    if (h.index == IndexKind::Int32) {
      return read_with_index<I, V, std::int32_t>(f, L, path, o, t, clock);
    }
    return read_with_index<I, V, std::int64_t>(f, L, path, o, t, clock);
  });
  if (o.build.symmetrize) r.graph = symmetrized(r.graph, o.build);
  if (times) *times = t;
  return r;
}

#define SPINDLE_INSTANTIATE_SPG_READ(I, V) \
  template SpgResult<I, V> read_spg<I, V>(const std::string&, const SpgReadOptions&, SpgReadTimes*);
SPINDLE_INSTANTIATE_SPG_READ(std::int32_t, float)
SPINDLE_INSTANTIATE_SPG_READ(std::int32_t, double)
SPINDLE_INSTANTIATE_SPG_READ(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_SPG_READ(std::int64_t, float)
SPINDLE_INSTANTIATE_SPG_READ(std::int64_t, double)
SPINDLE_INSTANTIATE_SPG_READ(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_SPG_READ

}  // namespace spindle
