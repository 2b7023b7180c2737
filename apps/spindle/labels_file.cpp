// SPDX-License-Identifier: Apache-2.0
#include "labels_file.hpp"

#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "common.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/text_file.hpp"

namespace spindle::cli {

namespace {

constexpr const char* kPrefix = "vertex labels: ";

std::uint64_t fnv1a64(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

LabelsFile make_labels_file(const std::vector<std::string>& labels) {
  LabelsFile f;
  std::size_t bytes = 0;
  for (const auto& l : labels) bytes += l.size() + 1;
  f.content.reserve(bytes);
  for (const auto& l : labels) {
    if (l.find('\n') != std::string::npos) {
      throw InvalidArgument(
          "a vertex label holds a line break and cannot be kept in a labels file");
    }
    f.content += l;
    f.content += '\n';
  }
  f.hash = fnv1a64(f.content);
  f.count = labels.size();
  return f;
}

std::string labels_comment(const std::string& file_name, const LabelsFile& labels) {
  char tail[96];
  std::snprintf(tail, sizeof tail, "; %zu labels, fnv1a64 %016" PRIx64 ")", labels.count,
                labels.hash);
  return std::string(kPrefix) + file_name + " (line k = the label of vertex k" + tail;
}

std::optional<std::vector<std::string>> read_declared_labels(const std::string& path,
                                                             const MatrixMarketHeader& header,
                                                             std::int64_t rows,
                                                             std::string* labels_path) {
  const std::string* found = nullptr;
  for (const auto& c : header.comments) {
    const std::size_t b = c.find_first_not_of(' ');
    if (b != std::string::npos && c.compare(b, std::strlen(kPrefix), kPrefix) == 0) found = &c;
  }
  if (!found) return std::nullopt;
  const std::string rest = found->substr(found->find(kPrefix) + std::strlen(kPrefix));
  const std::size_t paren = rest.find(" (");
  const std::string name = rest.substr(0, paren);
  long long count = -1;
  std::uint64_t hash = 0;
  bool has_hash = false;
  if (paren != std::string::npos) {
    const std::size_t semi = rest.find("; ", paren);
    if (semi != std::string::npos) {
      unsigned long long h = 0;
      has_hash = std::sscanf(rest.c_str() + semi, "; %lld labels, fnv1a64 %llx", &count, &h) == 2;
      hash = h;
    }
  }
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    warn(
        "%s names its vertex labels in %s, but it was read from a stream, which has nothing "
        "beside it: vertices keep their 1-based numbers",
        path.c_str(), name.c_str());
    return std::nullopt;
  }
  const std::string file = folder_of(path) + name;
  if (labels_path) *labels_path = file;
  if (::stat(file.c_str(), &st) != 0) {
    warn(
        "%s names its vertex labels in %s, which is missing: vertices keep their 1-based "
        "numbers",
        path.c_str(), file.c_str());
    return std::nullopt;
  }
  const std::string text = read_text_file(file);
  const auto stale = [&](const std::string& why) {
    return Error(file + " does not belong to " + path + " (" + why +
                 "): it was replaced or edited since the matrix was written; convert the graph "
                 "again, or remove " +
                 file + " to number the vertices 1.." + std::to_string(rows));
  };
  if (has_hash && fnv1a64(text) != hash) throw stale("its contents differ");
  std::vector<std::string> labels;
  labels.reserve(static_cast<std::size_t>(rows));
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    labels.emplace_back(text, pos, eol - pos);
    pos = eol + 1;
  }
  if (has_hash && static_cast<long long>(labels.size()) != count) {
    throw stale(std::to_string(labels.size()) + " labels where " + std::to_string(count) +
                " were written");
  }
  if (static_cast<std::int64_t>(labels.size()) != rows) {
    throw stale(std::to_string(labels.size()) + " labels for " + std::to_string(rows) +
                " vertices");
  }
  return labels;
}

}  // namespace spindle::cli
