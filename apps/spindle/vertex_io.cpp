// SPDX-License-Identifier: Apache-2.0
#include "vertex_io.hpp"

#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <future>
#include <numeric>

#include "common.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/text_file.hpp"

namespace spindle::cli {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

// TSV has no quoting: a tab, line break or backslash in a field is written as a backslash escape
// (the "linear TSV" convention: \t \n \r \\).
std::string tsv_field(const std::string& s) {
  if (s.find_first_of("\t\n\r\\") == std::string::npos) return s;
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return format_number(v);
}

std::string format_value(float v) {
  if (!std::isfinite(v)) return format_value(static_cast<double>(v));
  return shortest_g(v, 9);
}

void add_vertex_format_flag(ArgParser& p) {
  p.option("format", "F", "from the --output extension",
           "csv, tsv or json: the format of --output (needed for -o -, standard output)");
}

VertexFormat check_vertex_output(const ArgParser& p, const std::string& flag) {
  const auto path = p.get(flag);
  std::string name;
  if (p.has("format")) {
    name = p.choice("format", "csv", {"csv", "tsv", "json"});
  } else if (path && *path == "-") {
    p.fail("-o - writes to standard output: give its format with --format csv|tsv|json");
  } else if (path) {
    name = extension_of(*path);
    if (!name.empty()) name.erase(0, 1);
    if (name != "csv" && name != "tsv" && name != "json") {
      p.fail("--" + flag + " must end in .csv, .tsv or .json, or --format must say which (got '" +
             *path + "')");
    }
  }
  // Standard output then carries the file alone: the report is not printed.
  if (path && *path == "-") set_report_enabled(false);
  return name == "json"  ? VertexFormat::Json
         : name == "tsv" ? VertexFormat::Tsv
                         : VertexFormat::Csv;
}

namespace {

/// Writes emit(v, text) for v in [0, n) to f, in order. The text is made in blocks of vertices
/// on all OpenMP threads (each block into its own buffer) and written block by block: formatting
/// millions of numbers on one thread took longer than the whole GPU PageRank it reports. A window
/// of four blocks per thread is formatted, then written, so the buffers hold about 0.7 MB per
/// thread (a line is 20-25 bytes) whatever n is. If blocks throw, the exception of the first such
/// block in vertex order is rethrown after its window (the one a serial writer would have met).
void put(AtomicFileWriter* f, const std::string& s) { f->write(s); }

template <class Emit>
void write_in_blocks(AtomicFileWriter* f, std::int64_t n, const Emit& emit) {
  // Big enough that a block's scheduling costs nothing beside its formatting (8192 lines take
  // about 2-4 ms on one core), small enough that the last window's blocks spread over the threads.
  constexpr std::int64_t kBlock = 8192;
  const int threads = std::max(1, omp_get_max_threads());
  // Two windows of text: the threads format one while a writer thread writes the other, so the
  // file's serial write (about 100 MB for 4M ranks) hides behind the formatting.
  std::vector<std::string> text[2] = {
      std::vector<std::string>(static_cast<std::size_t>(threads) * 4),
      std::vector<std::string>(static_cast<std::size_t>(threads) * 4)};
  std::vector<std::exception_ptr> error(text[0].size());
  const auto window = static_cast<std::int64_t>(text[0].size()) * kBlock;
  // Declared after the text: destroyed (and so waited for) before it.
  std::future<void> writing;
  int buffer = 0;
  for (std::int64_t w0 = 0; w0 < n; w0 += window, buffer ^= 1) {
    const std::int64_t w1 = std::min(n, w0 + window);
    const std::int64_t blocks = (w1 - w0 + kBlock - 1) / kBlock;
    std::vector<std::string>& t_all = text[buffer];
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::string& t = t_all[static_cast<std::size_t>(b)];
      t.clear();
      try {
        const std::int64_t v1 = std::min(w1, w0 + (b + 1) * kBlock);
        for (std::int64_t v = w0 + b * kBlock; v < v1; ++v) emit(v, t);
      } catch (...) {
        error[static_cast<std::size_t>(b)] = std::current_exception();
      }
    }
    for (std::int64_t b = 0; b < blocks; ++b) {
      if (error[static_cast<std::size_t>(b)])
        std::rethrow_exception(error[static_cast<std::size_t>(b)]);
    }
    if (writing.valid()) writing.get();  // the other buffer is written (its error, if any, here)
    writing = std::async(std::launch::async, [f, &t_all, blocks] {
      for (std::int64_t b = 0; b < blocks; ++b) put(f, t_all[static_cast<std::size_t>(b)]);
    });
  }
  if (writing.valid()) writing.get();
}

}  // namespace

void write_vertex_file(const std::string& path, VertexFormat format, const Input& in,
                       const std::vector<VertexColumn>& columns,
                       const std::vector<std::pair<std::string, std::string>>& meta) {
  const std::int64_t n = in.rows();
  StatusLine status("writing " + (path == "-" ? std::string("standard output") : path));
  AtomicFileWriter out(path);
  AtomicFileWriter* f = &out;
  if (format == VertexFormat::Json) {
    // Streamed by hand: a JsonWriter string would double the memory for millions of vertices.
    put(f, "{\n");
    for (const auto& [k, v] : meta) put(f, "  " + json_string(k) + ": " + v + ",\n");
    put(f, "  \"ids\": " + json_string(in.id_convention()) + ",\n");
    for (std::size_t c = 0; c < columns.size(); ++c) {
      put(f, "  " + json_string(columns[c].name) + ": {");
      const VertexColumn& col = columns[c];
      write_in_blocks(f, n, [&](std::int64_t v, std::string& t) {
        std::string value = col.format(v);
        if (value.empty()) {
          value = "null";
        } else if (col.is_vertex_id) {
          value = json_string(value);  // ids are the maps' keys, which JSON makes strings
        } else if (value == "inf" || value == "-inf" || value == "nan") {
          value = "null";  // JSON has no infinities; null reads as "unreachable"
        }
        t += v ? ",\n    " : "\n    ";
        t += json_string(in.vertex_id(v));
        t += ": ";
        t += value;
      });
      put(f, n ? "\n  }" : "}");
      put(f, c + 1 < columns.size() ? ",\n" : "\n");
    }
    put(f, "}\n");
  } else {
    const bool tsv = format == VertexFormat::Tsv;
    const char sep = tsv ? '\t' : ',';
    const auto field = [tsv](const std::string& x) { return tsv ? tsv_field(x) : csv_field(x); };
    std::string header = "vertex";
    for (const auto& c : columns) header += sep + field(c.name);
    put(f, header + "\n");
    write_in_blocks(f, n, [&](std::int64_t v, std::string& t) {
      t += field(in.vertex_id(v));
      for (const auto& c : columns) {
        t += sep;
        t += field(c.format(v));
      }
      t += '\n';
    });
  }
  out.commit();
}

std::vector<std::int64_t> top_k(const std::vector<double>& score, std::int64_t k) {
  std::vector<std::int64_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), std::int64_t{0});
  const auto kk = static_cast<std::size_t>(std::min<std::int64_t>(k, idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      return score[a] != score[b] ? score[a] > score[b] : a < b;
                    });
  idx.resize(kk);
  return idx;
}

std::vector<std::int64_t> top_k_where(const std::vector<double>& score, std::int64_t k,
                                      const std::function<bool(std::int64_t)>& keep) {
  std::vector<std::int64_t> idx;
  for (std::size_t v = 0; v < score.size(); ++v) {
    const auto vv = static_cast<std::int64_t>(v);
    if (std::isfinite(score[v]) && keep(vv)) idx.push_back(vv);
  }
  const auto kk = static_cast<std::size_t>(std::min<std::int64_t>(k, idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(kk), idx.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      return score[a] != score[b] ? score[a] > score[b] : a < b;
                    });
  idx.resize(kk);
  return idx;
}

std::string printable(const std::string& label) {
  std::string out;
  for (unsigned char c : label) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void print_top_table(const Input& in, const std::vector<std::int64_t>& order,
                     const std::vector<double>& score, const std::string& score_name) {
  std::size_t width = 6;
  std::vector<std::string> shown;
  for (auto v : order) {
    shown.push_back(printable(in.vertex_id(v)));
    width = std::max(width, shown.back().size());
  }
  report("%6s  %*s  %s\n", "rank", static_cast<int>(width), "vertex", score_name.c_str());
  for (std::size_t r = 0; r < order.size(); ++r) {
    report("%6zu  %*s  %.6g\n", r + 1, static_cast<int>(width), shown[r].c_str(),
           score[static_cast<std::size_t>(order[r])]);
  }
}

std::vector<double> read_vertex_weights(const std::string& path, const Input& in) {
  const std::string text = read_text_file(path);
  std::vector<double> w(static_cast<std::size_t>(in.rows()), 0.0);
  std::vector<std::int64_t> seen_on(w.size(), 0);
  std::int64_t lineno = 0;
  bool any_data = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == '%') continue;
    std::size_t cut = t.find(',');
    if (cut == std::string::npos) cut = t.find_first_of(" \t");
    if (cut == std::string::npos) {
      throw ParseError(path, lineno, "expected 'vertex,weight', got '" + printable(t) + "'");
    }
    std::string id = trim(t.substr(0, cut));
    std::string weight_text = trim(t.substr(cut + 1));
    double weight = 0.0;
    const NumberStatus st = parse_number(weight_text, weight);
    const bool first = !any_data;
    any_data = true;
    if (st == NumberStatus::Overflow) {
      throw ParseError(path, lineno, "weight " + printable(weight_text) + " overflows a double");
    }
    if (st == NumberStatus::NonFinite) {
      throw ParseError(path, lineno,
                       "weight " + printable(weight_text) +
                           " is not finite (weights must be "
                           "finite numbers >= 0)");
    }
    if (st != NumberStatus::Ok) {
      // A header row names its columns: two words, neither a number nor a vertex.
      double ignored = 0.0;
      bool id_is_vertex = true;
      try {
        (void)in.find_vertex(id, "vertex");
      } catch (const InvalidArgument&) {
        id_is_vertex = false;
      }
      if (first && !id_is_vertex && parse_number(id, ignored) == NumberStatus::Malformed &&
          !weight_text.empty() && std::isalpha(static_cast<unsigned char>(weight_text[0]))) {
        note("%s:%lld: skipped the header row '%s'", path.c_str(), static_cast<long long>(lineno),
             printable(t).c_str());
        continue;
      }
      throw ParseError(path, lineno, "weight '" + printable(weight_text) + "' is not a number");
    }
    if (weight < 0) throw ParseError(path, lineno, "weight " + weight_text + " is negative");
    std::int64_t v = 0;
    try {
      v = in.find_vertex(id, "vertex");
    } catch (const InvalidArgument& e) {
      throw ParseError(path, lineno, e.what());
    }
    auto& first_line = seen_on[static_cast<std::size_t>(v)];
    if (first_line) {
      throw ParseError(path, lineno,
                       "vertex " + printable(id) + " is listed again (first on line " +
                           std::to_string(first_line) + ")");
    }
    first_line = lineno;
    w[static_cast<std::size_t>(v)] = weight;
  }
  if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0.0; })) {
    throw InvalidArgument(path + ": personalization weights are all zero (need a positive sum)");
  }
  return w;
}

}  // namespace spindle::cli
