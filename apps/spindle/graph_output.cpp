// SPDX-License-Identifier: Apache-2.0
#include "graph_output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "common.hpp"
#include "labels_file.hpp"
#include "output_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle::cli {

void add_graph_format_flag(ArgParser& p) {
  p.option("format", "F", "from the output's extension",
           "mtx, spg, txt, el, tsv or csv: the output's format (needed for '-', standard "
           "output)");
}

GraphFileFormat output_format(const ArgParser& p, const std::string& path, char* separator) {
  std::string ext;
  if (p.has("format")) {
    ext = "." + p.choice("format", "mtx", {"mtx", "spg", "txt", "el", "tsv", "csv"});
  } else if (path == "-") {
    p.fail("'-' writes to standard output: give its format with --format mtx|spg|txt|el|tsv|csv");
  } else {
    ext = extension_of(path);
  }
  *separator = ext == ".tsv" ? '\t' : ext == ".csv" ? ',' : ' ';
  if (ext == ".mtx" || ext == ".mm") return GraphFileFormat::MatrixMarket;
  if (ext == ".spg") return GraphFileFormat::Spg;
  if (ext == ".txt" || ext == ".tsv" || ext == ".csv" || ext == ".el" || ext == ".edges") {
    return GraphFileFormat::EdgeList;
  }
  p.fail("cannot tell the format of '" + path +
         "' from its extension: use .mtx or .mm (Matrix Market), .spg (binary CSR) or "
         ".txt/.tsv/.csv/.el (edge list), or --format");
}

std::string labels_file_of(const std::string& path) {
  return path == "-" ? std::string() : path + ".labels";
}

namespace {

std::string name_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A labels file left by an earlier conversion to this path would be stale next to a matrix
// written without labels (the matrix does not name it, so nothing reads it; it goes anyway).
void remove_stale_labels(const std::string& matrix_path) {
  const std::string side = labels_file_of(matrix_path);
  if (side.empty()) return;
  struct stat st {};
  if (::stat(follow_symlinks(matrix_path).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (::lstat(side.c_str(), &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
    if (::unlink(side.c_str()) == 0) {
      note("removed %s, the vertex labels of an earlier %s", side.c_str(), matrix_path.c_str());
    }
  }
}

}  // namespace

void write_graph_file(const std::string& path, const AnyGraph& any, GraphFileFormat format,
                      char separator, const GraphWriteOptions& o) {
  StatusLine status("writing " + (path == "-" ? std::string("standard output") : path));
  visit_graph(any, [&](const auto& g) {
    if (format == GraphFileFormat::Spg) {
      // One file: the labels travel inside it.
      SpgWriteOptions so;
      so.symmetric = o.symmetric;
      write_spg(path, g, o.labels, so);
      return;
    }
    if (format == GraphFileFormat::MatrixMarket) {
      MatrixMarketWriteOptions mo;
      mo.symmetry = o.symmetric ? MmSymmetry::Symmetric : MmSymmetry::General;
      mo.comments = o.comments;
      if (o.labels.empty()) {
        write_matrix_market(path, g, mo);
        remove_stale_labels(path);
        return;
      }
      const std::string side = labels_file_of(path);
      if (side.empty()) {
        throw InvalidArgument(
            "the vertices have labels, which a Matrix Market file keeps in a file beside it: "
            "standard output has no beside; write to a file, or to an edge list");
      }
      const LabelsFile labels = make_labels_file(o.labels);
      mo.comments.push_back(labels_comment(name_of(side), labels));
      // Both files are complete before either is published, the labels first: a matrix is
      // never visible beside labels that are not its own (and if it were, the hash in its
      // comment would tell).
      AtomicFileWriter matrix(path);
      write_matrix_market(matrix, g, mo);
      AtomicFileWriter side_file(side);
      side_file.write(labels.content);
      matrix.finish();
      side_file.finish();
      side_file.publish();
      matrix.publish();
      return;
    }
    if (g.rows() != g.cols()) {
      throw InvalidArgument("cannot write a " + std::to_string(g.rows()) + " x " +
                            std::to_string(g.cols()) +
                            " (rectangular) matrix as an edge list, whose two columns name "
                            "vertices of one graph; write .mtx instead");
    }
    EdgeListWriteOptions eo;
    eo.separator = separator;
    eo.comments = o.comments;
    eo.upper_triangle_only = false;
    if (!o.labels.empty()) {
      write_edge_list(path, g, o.labels, eo);
      return;
    }
    // Numbered vertices are 1-based everywhere spindle writes them (see the file comment).
    std::vector<std::string> ids(static_cast<std::size_t>(g.rows()));
    for (std::size_t v = 0; v < ids.size(); ++v) ids[v] = std::to_string(v + 1);
    write_edge_list(path, g, ids, eo);
  });
}

}  // namespace spindle::cli
