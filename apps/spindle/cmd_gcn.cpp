// SPDX-License-Identifier: Apache-2.0
// spindle gcn [FILE]: GCN inference (Kipf & Welling) with features and weights from .npy files
// or seeded random ones; the output embeddings/logits go to a .npy file.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/gcn.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/npy.hpp"
#include "spindle/ops/gemm.hpp"

namespace spindle::cli {

namespace {

constexpr const char* kSemantics =
    "  H_0 = X, H_(l+1) = ReLU(A_hat H_l W_l + b_l) between layers, and no\n"
    "  activation after the last (logits/embeddings). A_hat = D^-1/2 (A + I) D^-1/2\n"
    "  with D the row sums of A + I (a unit self-loop is added only where the\n"
    "  diagonal is missing), computed once. Each layer multiplies in the cheaper\n"
    "  order: (A_hat H) W when d_in <= d_out, else A_hat (H W).\n"
    "\n"
    "  --weights DIR holds layer0_W.npy (d_0 x d_1), layer0_b.npy (d_1),\n"
    "  layer1_W.npy, ... as float32 or float64 in C order; a missing layerN_b.npy\n"
    "  means a zero bias. PyTorch's Linear stores W as (d_out x d_in): save\n"
    "  weight.T. Random inputs: features uniform in [-1, 1), Glorot-uniform\n"
    "  weights, zero biases, all from --seed (same numbers on every machine).\n"
    "\n"
    "  On CUDA, float dense products (H W) run on tensor cores with each operand\n"
    "  split into two TF32 halves: FP32 accuracy, not cuBLAS's exact rounding.\n"
    "  SPINDLE_GEMM_SPLIT_TF32=0 uses cublasSgemm instead; SPINDLE_GEMM_TF32=1\n"
    "  allows plain TF32 (faster, about 1e-3 relative error). SPINDLE_LOG=plan\n"
    "  prints each product's path and each SpMM's kernel.\n";

struct Settings {
  GcnOptions opt;
  Execution ex;
  std::optional<std::string> features;
  std::int64_t feature_dim = 64;
  std::uint64_t seed = 1;
  std::optional<std::string> weights_dir;
  std::vector<std::int64_t> layers{128, 128, 32};
  std::optional<std::string> output;
};

template <class T>
GcnModel<T> read_model(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw Error(dir + ": not a folder (--weights DIR)");
  GcnModel<T> m;
  for (int l = 0;; ++l) {
    const std::string w = (fs::path(dir) / ("layer" + std::to_string(l) + "_W.npy")).string();
    const std::string b = (fs::path(dir) / ("layer" + std::to_string(l) + "_b.npy")).string();
    if (!fs::exists(w)) {
      if (l == 0) throw Error(dir + ": no layer0_W.npy (expected layer0_W.npy, layer0_b.npy, ...)");
      break;
    }
    DenseMatrix<T> W = read_npy<T>(w);
    Vector<T> bias = fs::exists(b) ? read_npy_vector<T>(b) : Vector<T>(W.cols(), T(0));
    if (bias.size() != W.cols()) {
      throw DimensionMismatch(b + ": " + std::to_string(bias.size()) + " values for a layer of " +
                              std::to_string(W.cols()) + " outputs (" + w + " is " +
                              std::to_string(W.rows()) + " x " + std::to_string(W.cols()) + ")");
    }
    if (l > 0 && m.weights.back().cols() != W.rows()) {
      throw DimensionMismatch(w + " has " + std::to_string(W.rows()) +
                              " rows but the previous layer outputs " +
                              std::to_string(m.weights.back().cols()));
    }
    m.weights.push_back(std::move(W));
    m.biases.push_back(std::move(bias));
  }
  return m;
}

// The .npy files of a --weights folder, in layer order (what read_model reads).
std::vector<std::string> model_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (int l = 0;; ++l) {
    const std::string w = (fs::path(dir) / ("layer" + std::to_string(l) + "_W.npy")).string();
    const std::string b = (fs::path(dir) / ("layer" + std::to_string(l) + "_b.npy")).string();
    if (!fs::exists(w)) break;
    files.push_back(w);
    if (fs::exists(b)) files.push_back(b);
  }
  return files;
}

template <class T>
int run(const Input& in, const Settings& s) {
  const std::int64_t n = in.rows();
  DenseMatrix<T> X;
  if (s.features) {
    X = read_npy<T>(input_path(*s.features));
    if (X.rows() != n) {
      throw DimensionMismatch(*s.features + ": " + std::to_string(X.rows()) +
                              " rows of features for a graph of " + std::to_string(n) +
                              " vertices (row i belongs to vertex i in internal order)");
    }
  } else {
    X = random_features<T>(n, s.feature_dim, s.seed);
  }
  GcnModel<T> model =
      s.weights_dir ? read_model<T>(*s.weights_dir) : glorot_model<T>(X.cols(), s.layers, s.seed);
  if (model.weights.front().rows() != X.cols()) {
    throw DimensionMismatch("layer 0 expects " + std::to_string(model.weights.front().rows()) +
                            " input features but the features have " + std::to_string(X.cols()) +
                            " columns");
  }
  warn_if_forced_mxm_kernel_falls_back(in, s.ex, s.opt.mxm_kernel, model.weights.front().cols());
  // Printed once the inputs are known to fit, so a failed run prints only its error.
  print_graph_header("GCN on", in.name, in.rows(), in.nnz());
  std::string shape = std::to_string(X.cols());
  for (const auto& W : model.weights) shape += " -> " + std::to_string(W.cols());
  report("layers %s (%s), features %s, dense products by %s; %s\n", shape.c_str(),
         s.weights_dir ? s.weights_dir->c_str() : "Glorot-random weights",
         s.features ? s.features->c_str() : "random",
         s.ex.device == Device::Cuda
             ? (s.ex.use_double ? "cuBLAS"
                                : "split-TF32 tensor cores (FP32 accuracy) or cuBLAS "
                                  "(SPINDLE_LOG=plan says which)")
         : gemm_uses_blas() ? "BLAS"
                            : "blocked loops",
         execution_text(s.ex).c_str());

  GcnOptions opt = s.opt;
  const std::size_t layers = model.weights.size();
  StatusLine status("gcn");
  status.set("normalizing the adjacency");
  opt.on_stage = [&](const GcnStage& st) {
    status.set("layer " + std::to_string(st.layer + 1) + " of " + std::to_string(layers) + " (" +
               (st.kind == GcnStage::Kind::Transform   ? "transform"
                : st.kind == GcnStage::Kind::Aggregate ? "aggregate"
                                                       : "bias") +
               " done)");
    if (!opt.tune || st.tuned.empty()) return;
    if (st.kind == GcnStage::Kind::Transform) {
      report("tuned GEMM, layer %zu (%lld x %lld weights): %s\n", st.layer,
             static_cast<long long>(st.in_width), static_cast<long long>(st.out_width),
             st.tuned.c_str());
    } else {
      report("tuned SpMM, layer %zu (N = %lld): %s\n", st.layer,
             static_cast<long long>(st.in_width), st.tuned.c_str());
    }
  };
  Stopwatch clock;
  DenseMatrix<T> H =
      visit_graph(in.graph, [&](const auto& g) { return gcn_inference<T>(g, X, model, opt); });
  const double seconds = clock.seconds();
  status.set("done");
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (T v : H.storage()) {
    lo = std::min(lo, static_cast<double>(v));
    hi = std::max(hi, static_cast<double>(v));
    sum += static_cast<double>(v);
  }
  const double mean = H.size() ? sum / static_cast<double>(H.size()) : 0.0;
  report("output %lld x %lld, min %.6g, max %.6g, mean %.6g, time %s\n",
         static_cast<long long>(H.rows()), static_cast<long long>(H.cols()), H.size() ? lo : 0.0,
         H.size() ? hi : 0.0, mean, format_seconds(seconds).c_str());
  if (s.opt.tune) progress("the time includes tuning (--tune)");
  if (s.output) {
    write_npy(*s.output, H);
    progress("wrote %s", s.output->c_str());
  } else {
    progress("not saved: add --output FILE.npy to keep the %lld x %lld result",
             static_cast<long long>(H.rows()), static_cast<long long>(H.cols()));
  }
  return 0;
}

}  // namespace

int cmd_gcn(const std::vector<std::string>& args) {
  ArgParser p("gcn", "[FILE] [options]",
              "Graph convolutional network inference (Kipf & Welling): runs every layer over "
              "the normalized adjacency and writes the last layer's output. Without FILE it "
              "runs on the built-in R-MAT graph (scale 16, edge factor 16, seed 1).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", false);
  add_input_flags(p, "build A_hat from the edge values instead of the structure");
  p.flag("in-edges",
         "aggregate over in-neighbors (A^T, PyTorch Geometric's default flow); same result on "
         "undirected graphs");
  p.group("Model");
  p.option("features", "FILE.npy", "",
           "n x d feature matrix, row i for vertex i ('-': standard input)");
  p.option("feature-dim", "D", "64", "width of random features when --features is not given");
  p.option("weights", "DIR", "", "folder with layer0_W.npy, layer0_b.npy, layer1_W.npy, ...");
  p.option("layers", "W1,W2,...", "128,128,32",
           "output widths of Glorot-random layers when --weights is not given");
  p.option("seed", "S", "1", "seed for random features and weights");
  p.option("order", "O", "auto",
           "auto|aggregate-first|transform-first multiplication order per layer");
  p.group("Output");
  p.option("output", "FILE.npy", "",
           "write the n x d_last result (.npy, the precision's dtype; '-': standard output)", 'o');
  p.group("Execution");
  p.option("kernel", "NAME", "auto", "force the SpMM (mxm) kernel, e.g. cpu_row_balanced");
  add_exec_flags(p, ExecFlags{true, true, false, true, false});
  p.section("Semantics", kSemantics);
  p.section("Examples",
            "  spindle gcn                                   # built-in graph, random model\n"
            "  spindle gcn cora.mtx --features x.npy --weights model/ -o logits.npy\n"
            "  spindle gcn g.mtx --layers 64,16 --seed 3 -o - > emb.npy\n");
  if (!p.parse(args)) return 0;

  Settings s;
  s.features = p.get("features");
  if (s.features && p.has("feature-dim")) p.fail("give --features or --feature-dim, not both");
  s.feature_dim = p.integer("feature-dim", 64, 1, 1 << 24);
  s.weights_dir = p.get("weights");
  if (s.weights_dir && p.has("layers")) p.fail("give --weights or --layers, not both");
  if (auto text = p.get("layers")) {
    auto list = parse_int_list(*text);
    if (!list || list->empty())
      p.fail("--layers expects widths like 128,128,32, got '" + *text + "'");
    for (auto w : *list) {
      if (w < 1 || w > (1 << 24)) p.fail("--layers widths must be >= 1, got '" + *text + "'");
    }
    s.layers = *list;
  }
  s.seed = static_cast<std::uint64_t>(p.integer("seed", 1, 0, INT64_MAX));
  std::string order = p.choice("order", "auto", {"auto", "aggregate-first", "transform-first"});
  s.opt.order = order == "aggregate-first"   ? GcnOrder::AggregateFirst
                : order == "transform-first" ? GcnOrder::TransformFirst
                                             : GcnOrder::Auto;
  s.opt.weighted = p.has("weighted");
  s.opt.in_edges = p.has("in-edges");
  s.output = p.get("output");
  if (s.output) {
    if (*s.output != "-" && extension_of(*s.output) != ".npy")
      p.fail("--output must end in .npy (or be '-', standard output), got '" + *s.output + "'");
  }
  // Fail now, not after the run, when the output cannot be written or would replace an input.
  {
    std::vector<NamedPath> inputs = {{"the graph", p.operand_value(0).value_or("")},
                                     {"--features", s.features.value_or("")}};
    if (s.weights_dir) {
      for (const auto& f : model_files(*s.weights_dir)) inputs.push_back({"--weights file", f});
    }
    check_outputs(inputs, {{"-o", s.output.value_or("")}});
    if (s.output && *s.output == "-") set_report_enabled(false);
  }
  s.ex = apply_exec_flags(p, ExecFlags{true, true, false, true, false});
  s.opt.device = s.ex.device;
  s.opt.tune = s.ex.tune;
  if (auto k = p.get("kernel")) {
    auto kk = parse_mxm_kernel(*k);
    if (!kk) {
      std::string list;
      for (auto m : {MxmKernel::Auto, MxmKernel::CpuRowBalanced, MxmKernel::ParallelReduceVec,
                     MxmKernel::RowCacheSeq, MxmKernel::NnzBalancedSeq, MxmKernel::AsptTiled,
                     MxmKernel::Cusparse, MxmKernel::RowBlock, MxmKernel::Spmv}) {
        list += (list.empty() ? "" : "|") + std::string(to_string(m));
      }
      p.fail("--kernel must be an mxm kernel: " + list + ", got '" + *k + "'");
    }
    s.opt.mxm_kernel = *kk;
  }

  const InputOptions io =
      input_options(p, s.opt.weighted ? ValueMode::Weighted : ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("gcn needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  return s.ex.use_double ? run<double>(in, s) : run<float>(in, s);
}

}  // namespace spindle::cli
