// SPDX-License-Identifier: Apache-2.0
#include "vertex_io.hpp"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <numeric>

#include "common.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void put(std::FILE* f, const std::string& s) { std::fwrite(s.data(), 1, s.size(), f); }

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
  char buf[32];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

bool is_vertex_file_extension(const std::string& path) {
  std::string ext = extension_of(path);
  return ext == ".csv" || ext == ".json" || ext == ".tsv";
}

void check_vertex_output(const ArgParser& p, const std::string& flag) {
  auto path = p.get(flag);
  if (!path) return;
  if (!is_vertex_file_extension(*path)) {
    p.fail("--" + flag + " must end in .csv, .tsv or .json (got '" + *path + "')");
  }
  AtomicOutput probe(*path);  // throws if the folder is missing or read-only; removed at once
}

namespace {

/// Writes emit(v, text) for v in [0, n) to f, in order. The text is made in blocks of vertices
/// on all OpenMP threads (each block into its own buffer) and written block by block: formatting
/// millions of numbers on one thread took longer than the whole GPU PageRank it reports. A window
/// of four blocks per thread is formatted, then written, so the buffers hold about 0.7 MB per
/// thread (a line is 20-25 bytes) whatever n is. If blocks throw, the exception of the first such
/// block in vertex order is rethrown after its window (the one a serial writer would have met).
template <class Emit>
void write_in_blocks(std::FILE* f, std::int64_t n, const Emit& emit) {
  // Big enough that a block's scheduling costs nothing beside its formatting (8192 lines take
  // about 2-4 ms on one core), small enough that the last window's blocks spread over the threads.
  constexpr std::int64_t kBlock = 8192;
  const int threads = std::max(1, omp_get_max_threads());
  std::vector<std::string> text(static_cast<std::size_t>(threads) * 4);
  std::vector<std::exception_ptr> error(text.size());
  const auto window = static_cast<std::int64_t>(text.size()) * kBlock;
  for (std::int64_t w0 = 0; w0 < n; w0 += window) {
    const std::int64_t w1 = std::min(n, w0 + window);
    const std::int64_t blocks = (w1 - w0 + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(dynamic, 1) if (blocks > 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      std::string& t = text[static_cast<std::size_t>(b)];
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
    for (std::int64_t b = 0; b < blocks; ++b) put(f, text[static_cast<std::size_t>(b)]);
  }
}

}  // namespace

void write_vertex_file(const std::string& path, const Input& in,
                       const std::vector<VertexColumn>& columns,
                       const std::vector<std::pair<std::string, std::string>>& meta) {
  const std::int64_t n = in.rows();
  AtomicOutput out(path);
  std::FILE* f = out.file();
  const std::string ext = extension_of(path);
  if (ext == ".json") {
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
    const char sep = ext == ".tsv" ? '\t' : ',';
    std::string header = "vertex";
    for (const auto& c : columns) header += sep + c.name;
    put(f, header + "\n");
    write_in_blocks(f, n, [&](std::int64_t v, std::string& t) {
      t += sep == ',' ? csv_field(in.vertex_id(v)) : in.vertex_id(v);
      for (const auto& c : columns) {
        t += sep;
        t += sep == ',' ? csv_field(c.format(v)) : c.format(v);
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

void print_top_table(const Input& in, const std::vector<std::int64_t>& order,
                     const std::vector<double>& score, const std::string& score_name) {
  std::size_t width = 6;
  for (auto v : order) width = std::max(width, in.vertex_id(v).size());
  std::printf("%6s  %*s  %s\n", "rank", static_cast<int>(width), "vertex", score_name.c_str());
  for (std::size_t r = 0; r < order.size(); ++r) {
    std::printf("%6zu  %*s  %.6g\n", r + 1, static_cast<int>(width), in.vertex_id(order[r]).c_str(),
                score[static_cast<std::size_t>(order[r])]);
  }
}

std::vector<double> read_vertex_weights(const std::string& path, const Input& in) {
  std::ifstream file(path);
  if (!file) throw Error(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
  std::vector<double> w(static_cast<std::size_t>(in.rows()), 0.0);
  std::vector<std::int64_t> seen_on(w.size(), 0);
  std::string line;
  std::int64_t lineno = 0;
  bool any_data = false;
  while (std::getline(file, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == '%') continue;
    std::size_t cut = t.find(',');
    if (cut == std::string::npos) cut = t.find_first_of(" \t");
    if (cut == std::string::npos) {
      throw ParseError(path, lineno, "expected 'vertex,weight', got '" + t + "'");
    }
    std::string id = trim(t.substr(0, cut));
    std::string weight_text = trim(t.substr(cut + 1));
    auto weight = parse_double(weight_text);
    if (!weight) {
      if (!any_data) {  // a header line such as "vertex,weight"
        any_data = true;
        continue;
      }
      throw ParseError(path, lineno, "weight '" + weight_text + "' is not a number");
    }
    any_data = true;
    if (*weight < 0) throw ParseError(path, lineno, "weight " + weight_text + " is negative");
    std::int64_t v = 0;
    try {
      v = in.find_vertex(id, "vertex");
    } catch (const InvalidArgument& e) {
      throw ParseError(path, lineno, e.what());
    }
    auto& first = seen_on[static_cast<std::size_t>(v)];
    if (first) {
      throw ParseError(
          path, lineno,
          "vertex " + id + " is listed again (first on line " + std::to_string(first) + ")");
    }
    first = lineno;
    w[static_cast<std::size_t>(v)] = *weight;
  }
  if (std::all_of(w.begin(), w.end(), [](double x) { return x == 0.0; })) {
    throw InvalidArgument(path + ": personalization weights are all zero (need a positive sum)");
  }
  return w;
}

}  // namespace spindle::cli
