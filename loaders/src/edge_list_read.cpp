// SPDX-License-Identifier: Apache-2.0
// Edge-list reader: parallel tokenizing in chunks, then a sequential (deterministic) label remap.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "chunked.hpp"
#include "label_map.hpp"
#include "mapped_file.hpp"
#include "progress.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "stream_checks.hpp"
#include "text_scan.hpp"

namespace spindle {
namespace detail {
namespace {

constexpr std::size_t kMaxFields = 16;

// Splits one line (without its '\n' and '\r') into fields. Returns the field count (up to
// kMaxFields; more are counted but not stored) or -1 for an empty field between commas.
int split_fields(const char* b, const char* e, std::string_view* out) {
  int n = 0;
  const bool csv = std::memchr(b, ',', static_cast<std::size_t>(e - b)) != nullptr;
  if (csv) {
    const char* p = b;
    for (;;) {
      const char* comma =
          static_cast<const char*>(std::memchr(p, ',', static_cast<std::size_t>(e - p)));
      const char* fe = comma ? comma : e;
      const char* fb = skip_blanks(p, fe);
      const char* fz = fe;
      while (fz > fb && is_blank(fz[-1])) --fz;
      if (fz == fb) return -1;
      if (static_cast<std::size_t>(n) < kMaxFields)
        out[n] = std::string_view(fb, static_cast<std::size_t>(fz - fb));
      ++n;
      if (!comma) break;
      p = comma + 1;
    }
    return n;
  }
  const char* p = skip_blanks(b, e);
  while (p < e) {
    const char* q = p;
    while (q < e && !is_blank(*q)) ++q;
    if (static_cast<std::size_t>(n) < kMaxFields)
      out[n] = std::string_view(p, static_cast<std::size_t>(q - p));
    ++n;
    p = skip_blanks(q, e);
  }
  return n;
}

// Canonical decimal integer ("0", "-12", not "007", "+1", "-0"): the only tokens whose integer
// value identifies them as well as their text does.
bool canonical_int(std::string_view t, std::int64_t& v) {
  if (t.empty()) return false;
  std::size_t i = t[0] == '-' ? 1 : 0;
  if (i == t.size()) return false;
  if (t[i] == '0' && (t.size() != i + 1 || i == 1)) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

struct EdgeSpec {
  int columns = 2;  // fields per edge line, fixed by the first edge line
  bool weighted = false;
  bool allow_nonfinite = false;
  std::int64_t first_edge_line = 0;
  bool extra_ok = false;  // ignore_extra_columns: any line with >= min_fields() fields is fine
  int min_fields() const { return weighted ? 3 : 2; }
};

struct EdgeChunk {
  ChunkStatus st;
  std::vector<std::string_view> ends;  // src, dst, src, dst, ...
  std::vector<std::int64_t> ids;       // their integer values while all_int holds
  std::vector<double> w;
  bool all_int = true;
};

inline bool is_comment(char c) { return c == '#' || c == '%'; }

std::string field_count_message(int got, const EdgeSpec& s) {
  if (got < 2) return "missing destination column: expected 'src dst' or 'src dst weight'";
  if (s.extra_ok) {
    return "line has " + std::to_string(got) + " fields, expected at least 3: the first edge " +
           "line (line " + std::to_string(s.first_edge_line) + ") has a weight column";
  }
  return "line has " + std::to_string(got) + " fields, expected " + std::to_string(s.columns) +
         " like the first edge line (line " + std::to_string(s.first_edge_line) + ")" +
         (got > s.columns ? "; ignore_extra_columns (--ignore-extra-columns) ignores the rest"
                          : "");
}

constexpr const char* kNulMessage = "NUL byte in the line: binary data, not an edge list";

void parse_edge_chunk(const char* p, const char* e, const EdgeSpec& s, EdgeChunk& out) {
  ChunkStatus& st = out.st;
  std::int64_t line = 0;
  std::string_view f[kMaxFields];
  while (p < e) {
    const char* eol = find_eol(p, e);
    const char* vis = eol;
    if (vis > p && vis[-1] == '\r') --vis;
    const char* q = skip_blanks(p, vis);
    if (std::memchr(p, '\0', static_cast<std::size_t>(eol - p))) {
      st.fail(line, kNulMessage);
      return;
    }
    if (q < vis && !is_comment(*q)) {
      const int n = split_fields(q, vis, f);
      if (n < 0) {
        st.fail(line, "empty field between commas: expected 'src,dst' or 'src,dst,weight'");
        return;
      }
      if (n != s.columns && !(s.extra_ok && n >= s.min_fields())) {
        st.fail(line, field_count_message(n, s));
        return;
      }
      out.ends.push_back(f[0]);
      out.ends.push_back(f[1]);
      if (out.all_int) {
        std::int64_t a = 0, b = 0;
        if (canonical_int(f[0], a) && canonical_int(f[1], b)) {
          out.ids.push_back(a);
          out.ids.push_back(b);
        } else {
          out.all_int = false;
          std::vector<std::int64_t>().swap(out.ids);
        }
      }
      if (s.weighted) {
        const char* wb = f[2].data();
        const char* we = wb + f[2].size();
        double v = 0.0;
        const char* wp = wb;
        if (!parse_double(wp, we, v) || wp != we) {
          st.fail(line, "expected a numeric weight in column 3, found " + token_at(wb, we));
          return;
        }
        if (!s.allow_nonfinite && !std::isfinite(v)) {
          const std::string text = token_at(wb, we);
          const std::string what =
              text.find_first_of("nNiI") == std::string::npos
                  ? "weight " + text + " overflows a double"
                  : std::string("weight ") + (std::isnan(v) ? "NaN" : "Inf") + " is not finite";
          st.fail(line, what +
                            " (NaN/Inf weights are refused unless allow_nonfinite, "
                            "--allow-nonfinite, is set)");
          return;
        }
        out.w.push_back(v);
      }
      ++st.entries;
    }
    if (eol == e) break;
    p = eol + 1;
    ++line;
  }
  st.lines = line;
}

std::string file_label(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

template <class I>
I next_id(std::size_t count, const std::string& path) {
  if (count > static_cast<std::size_t>(std::numeric_limits<I>::max())) {
    throw InvalidArgument(path + ": more than " + std::to_string(std::numeric_limits<I>::max()) +
                          " distinct vertices; read it with int64 indices");
  }
  return static_cast<I>(count);
}

}  // namespace
}  // namespace detail

namespace detail {
namespace {
// A token that reads as a number (an id or a weight), for header detection.
bool is_number(std::string_view t) {
  const char* p = t.data();
  const char* e = p + t.size();
  double v = 0.0;
  return !t.empty() && parse_double(p, e, v) && p == e;
}

// Words a header row uses for its first two columns (compared case-insensitively). Single
// letters (u v, i j) are left out: they are as likely to be vertex names.
bool is_header_word(std::string_view t) {
  static constexpr const char* kWords[] = {
      "source",   "target",      "src",         "dst",       "dest",    "destination", "from",
      "to",       "node1",       "node2",       "node_1",    "node_2",  "source_id",   "target_id",
      "sourceid", "targetid",    "from_id",     "to_id",     "fromid",  "toid",        "id1",
      "id2",      "head",        "tail",        "start",     "end",     "start_node",  "end_node",
      "vertex1",  "vertex2",     "vertex_1",    "vertex_2",  "node_a",  "node_b",      "in",
      "out",      "source_node", "target_node", "from_node", "to_node", "sender",      "receiver"};
  for (const char* w : kWords) {
    if (iequals(t, w)) return true;
  }
  return false;
}

// The first and second edge lines (after blank and comment lines), for the column count and
// the header decision.
struct EdgeLine {
  std::int64_t line = 0;  // 1-based; 0: none
  const char* begin = nullptr;
  const char* next = nullptr;  // the start of the following line
  int n = 0;
  std::string_view f[kMaxFields];
};

EdgeLine next_edge_line(const char* p, const char* end, std::int64_t line,
                        const std::string& path) {
  EdgeLine out;
  for (; p < end; ++line) {
    const char* eol = find_eol(p, end);
    const char* vis = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    if (std::memchr(p, '\0', static_cast<std::size_t>(eol - p))) {
      throw ParseError(path, line, kNulMessage);
    }
    const char* q = skip_blanks(p, vis);
    if (q < vis && !is_comment(*q)) {
      out.line = line;
      out.begin = p;
      out.next = eol < end ? eol + 1 : end;
      out.n = split_fields(q, vis, out.f);
      return out;
    }
    p = eol < end ? eol + 1 : end;
  }
  return out;
}

bool looks_like_header(const EdgeLine& a, const EdgeLine& b) {
  if (a.n < 2) return false;
  if (is_header_word(a.f[0]) && is_header_word(a.f[1])) return true;
  if (b.line == 0 || b.n < 2) return false;
  // Names where the data has numbers: ids...
  if (!is_number(a.f[0]) && !is_number(a.f[1]) && is_number(b.f[0]) && is_number(b.f[1])) {
    return true;
  }
  // ...or the weight column.
  return a.n >= 3 && b.n >= 3 && !is_number(a.f[2]) && is_number(b.f[2]);
}

template <class I>
EdgeListCoo<I> read_edge_list_coo_from(const MappedFile& f, const std::string& path,
                                       const EdgeListOptions& options) {
  const char* begin = f.data();
  const char* end = f.end();
  if (end - begin >= 3 && std::string_view(begin, 3) == "\xEF\xBB\xBF") begin += 3;  // BOM
  EdgeListCoo<I> out;
  EdgeSpec s;
  s.allow_nonfinite = options.allow_nonfinite;
  std::int64_t first_line = 1;
  EdgeLine first = next_edge_line(begin, end, 1, path);
  if (first.line != 0 && options.header != EdgeListHeader::Absent) {
    const EdgeLine second =
        first.n >= 2 ? next_edge_line(first.next, end, first.line + 1, path) : EdgeLine{};
    if (options.header == EdgeListHeader::Present || looks_like_header(first, second)) {
      out.header = std::string(line_view(first.begin, find_eol(first.begin, end)));
      out.header_line = first.line;
      // Parsing starts after the header, line numbers going on from it.
      begin = first.next;
      first_line = first.line + 1;
      first = second.line != 0 ? second : next_edge_line(begin, end, first_line, path);
    }
  }
  if (first.line != 0) {
    // The first edge line fixes the column count for the whole file.
    const int n = first.n;
    if (n < 0) {
      throw ParseError(path, first.line,
                       "empty field between commas: expected 'src,dst' or 'src,dst,weight'");
    }
    if (n < 2) {
      throw ParseError(path, first.line,
                       "missing destination column: expected 'src dst' or 'src dst weight'");
    }
    if (n > 3 && !options.ignore_extra_columns) {
      throw ParseError(
          path, first.line,
          "line has " + std::to_string(n) +
              " fields, expected 2 ('src dst') or 3 ('src dst weight'); extra "
              "columns are ignored only with ignore_extra_columns (--ignore-extra-columns)");
    }
    s.columns = n;
    s.weighted = n >= 3;
    s.extra_ok = options.ignore_extra_columns;
    s.first_edge_line = first.line;
  } else if (!options.allow_empty) {
    throw ParseError(path, 0,
                     std::string(f.size() == 0 ? "empty input"
                                               : "no edges (only comments and "
                                                 "blank lines)") +
                         ": expected 'src dst [weight]' lines; an empty graph is read only "
                         "with allow_empty (--allow-empty)");
  }
  const int threads = resolve_threads(options.threads);
  const auto cuts = plan_chunks(begin, end, threads);
  Progress progress(file_label(path), static_cast<std::uint64_t>(end - begin), options.progress);
  std::vector<EdgeChunk> chunks;
  run_chunks(begin, cuts, threads, progress, path, first_line, chunks,
             [&](const char* b, const char* e, EdgeChunk& c) { parse_edge_chunk(b, e, s, c); });

  std::size_t edges = 0;
  bool all_int = true;
  for (const auto& c : chunks) {
    edges += c.ends.size() / 2;
    all_int = all_int && c.all_int;
  }
  out.weighted = s.weighted;
  out.labels_are_integers = true;
  out.coo.row.resize(edges);
  out.coo.col.resize(edges);
  // Remap in file order (sequential: first appearance decides the id).
  std::size_t k = 0;
  if (all_int) {
    IntLabelMap map(edges / 4 + 16);
    for (auto& c : chunks) {
      for (std::size_t t = 0; t < c.ids.size(); t += 2) {
        for (int side = 0; side < 2; ++side) {
          const std::int64_t key = c.ids[t + side];
          std::int64_t& slot =
              map.find_or_insert(key, static_cast<std::int64_t>(out.labels.size()));
          if (slot == static_cast<std::int64_t>(out.labels.size())) {
            next_id<I>(out.labels.size(), path);
            out.labels.emplace_back(c.ends[t + side]);
          }
          (side == 0 ? out.coo.row : out.coo.col)[k] = static_cast<I>(slot);
        }
        ++k;
      }
      std::vector<std::int64_t>().swap(c.ids);
    }
  } else {
    std::unordered_map<std::string_view, I> map;
    map.reserve(edges / 4 + 16);
    for (auto& c : chunks) {
      for (std::size_t t = 0; t < c.ends.size(); t += 2) {
        for (int side = 0; side < 2; ++side) {
          const std::string_view key = c.ends[t + side];
          auto it = map.find(key);
          I id;
          if (it == map.end()) {
            id = next_id<I>(out.labels.size(), path);
            map.emplace(key, id);
            out.labels.emplace_back(key);
          } else {
            id = it->second;
          }
          (side == 0 ? out.coo.row : out.coo.col)[k] = id;
        }
        ++k;
      }
    }
    for (const std::string& l : out.labels) {
      std::int64_t v = 0;
      const char* p = l.data();
      if (parse_int64(p, l.data() + l.size(), v) != NumStatus::Ok || p != l.data() + l.size()) {
        out.labels_are_integers = false;
        break;
      }
    }
  }
  const I n = static_cast<I>(out.labels.size());
  out.coo.rows = n;
  out.coo.cols = n;
  if (s.weighted) out.coo.val = concat_chunks(chunks, &EdgeChunk::w, threads, path);
  return out;
}
}  // namespace
}  // namespace detail

namespace detail {

void check_edge_list_prefix(const char* data, std::size_t size, bool eof, const std::string& path) {
  const char* end = data + size;
  if (!eof) {
    const char* last_nl = static_cast<const char*>(::memrchr(data, '\n', size));
    if (!last_nl) {
      throw ParseError(path, 1,
                       "no line break in the first " + std::to_string(size) +
                           " bytes: expected 'src dst [weight]' lines");
    }
    end = last_nl + 1;
  }
  if (end - data >= 3 && std::string_view(data, 3) == "\xEF\xBB\xBF") data += 3;
  const EdgeLine first = next_edge_line(data, end, 1, path);
  if (first.line == 0) return;  // only comments so far (the reader decides about empty input)
  if (first.n < 0) {
    throw ParseError(path, first.line,
                     "empty field between commas: expected 'src,dst' or 'src,dst,weight'");
  }
  if (first.n < 2) {
    throw ParseError(path, first.line,
                     "missing destination column: expected 'src dst' or 'src dst weight'");
  }
}

}  // namespace detail

template <class I>
EdgeListCoo<I> read_edge_list_coo(const std::string& path, const EdgeListOptions& options) {
  detail::MappedFile f(path, detail::Content::Text,
                       [&path](const char* d, std::size_t n, bool eof) -> std::uint64_t {
                         detail::check_edge_list_prefix(d, n, eof, path);
                         return 0;
                       });
  return detail::with_input_checks(
      f, path, [&] { return detail::read_edge_list_coo_from<I>(f, path, options); });
}

template <class I, class V>
EdgeListResult<I, V> read_edge_list(const std::string& path, const EdgeListOptions& options) {
  EdgeListCoo<I> raw = read_edge_list_coo<I>(path, options);
  EdgeListResult<I, V> out;
  out.labels = std::move(raw.labels);
  out.labels_are_integers = raw.labels_are_integers;
  out.weighted = raw.weighted;
  out.header = std::move(raw.header);
  out.header_line = raw.header_line;
  if constexpr (is_pattern_v<V>) std::vector<double>().swap(raw.coo.val);
  BuildOptions build = options.build;
  build.symmetrize = build.symmetrize || options.undirected;
  build.allow_nonfinite = true;  // checked per line while parsing
  const std::int64_t n = raw.coo.size();
  try {
    out.graph = build_graph<I, V>(std::move(raw.coo), build);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path + ": out of memory building the graph (" + std::to_string(n) +
                      " edges)");
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(path + ": " + e.what());
  }
  return out;
}

template EdgeListCoo<std::int32_t> read_edge_list_coo<std::int32_t>(const std::string&,
                                                                    const EdgeListOptions&);
template EdgeListCoo<std::int64_t> read_edge_list_coo<std::int64_t>(const std::string&,
                                                                    const EdgeListOptions&);
#define SPINDLE_INSTANTIATE_EL_READ(I, V) \
  template EdgeListResult<I, V> read_edge_list<I, V>(const std::string&, const EdgeListOptions&);
SPINDLE_INSTANTIATE_EL_READ(std::int32_t, float)
SPINDLE_INSTANTIATE_EL_READ(std::int32_t, double)
SPINDLE_INSTANTIATE_EL_READ(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_EL_READ(std::int64_t, float)
SPINDLE_INSTANTIATE_EL_READ(std::int64_t, double)
SPINDLE_INSTANTIATE_EL_READ(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_EL_READ

}  // namespace spindle
