// SPDX-License-Identifier: Apache-2.0
#include "graph_output.hpp"

#include "output_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace spindle::cli {

GraphFileFormat output_format(const ArgParser& p, const std::string& path) {
  const std::string ext = extension_of(path);
  if (ext == ".mtx" || ext == ".mm") return GraphFileFormat::MatrixMarket;
  if (ext == ".txt" || ext == ".tsv" || ext == ".csv" || ext == ".el" || ext == ".edges") {
    return GraphFileFormat::EdgeList;
  }
  p.fail("cannot tell the format of '" + path +
         "' from its extension: use .mtx or .mm (Matrix Market) or .txt/.tsv/.csv/.el (edge list)");
}

void write_graph_file(const std::string& path, const AnyGraph& any, GraphFileFormat format,
                      const GraphWriteOptions& o) {
  visit_graph(any, [&](const auto& g) {
    if (format == GraphFileFormat::MatrixMarket) {
      MatrixMarketWriteOptions mo;
      mo.symmetry = o.symmetric ? MmSymmetry::Symmetric : MmSymmetry::General;
      mo.comments = o.comments;
      write_matrix_market(path, g, mo);
      return;
    }
    if (g.rows() != g.cols()) {
      throw InvalidArgument("cannot write a " + std::to_string(g.rows()) + " x " +
                            std::to_string(g.cols()) +
                            " (rectangular) matrix as an edge list, whose two columns name "
                            "vertices of one graph; write .mtx instead");
    }
    EdgeListWriteOptions eo;
    const std::string ext = extension_of(path);
    eo.separator = ext == ".tsv" ? '\t' : ext == ".csv" ? ',' : ' ';
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
