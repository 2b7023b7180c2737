// SPDX-License-Identifier: Apache-2.0
/// @file gcn.cpp
/// @brief GCN inference over the ops/ API: Â once, then per layer SpMM (mxm) and gemm().

#include "spindle/algorithms/gcn.hpp"

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include "algorithms/src/detail_common.hpp"
#include "spindle/cuda/tune.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/gemm.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

/// Uniform double in [0, 1) from the top 53 bits: unlike std::uniform_real_distribution, whose
/// algorithm is implementation-defined, this gives the same numbers with every standard library.
inline double unit_uniform(std::mt19937_64& gen) {
  return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}

template <class T, class G>
Graph<typename G::index_type, T> normalize(const G& A, const Descriptor& desc) {
  const auto A_tilde = add_identity(A);
  const std::int64_t n = A_tilde.rows();
  Vector<T> deg = Vector<T>::empty(n);
  reduce_rows(deg, Mask{}, Accum::none(), MonoidKind::Plus, A_tilde, desc);
  // Every row of A + I has its diagonal entry, so deg is present everywhere (and scale's
  // "absent counts as 1" never applies); RSqrt maps a zero row sum to 0.
  Vector<T> dinv = Vector<T>::empty(n);
  apply(dinv, Mask{}, Accum::none(), Unary<T>::make(UnaryOp::RSqrt), deg, desc);
  return scale(dinv, A_tilde, dinv, desc);
}

void check_model_shapes(std::size_t layers, std::size_t biases) {
  if (layers == 0) throw InvalidArgument("gcn: the model has no layers");
  if (biases != layers) {
    throw InvalidArgument("gcn: the model has " + std::to_string(layers) + " weight matrices but " +
                          std::to_string(biases) + " bias vectors");
  }
}

}  // namespace

bool gcn_aggregate_first(std::int64_t in_width, std::int64_t out_width, GcnOrder order) noexcept {
  switch (order) {
    case GcnOrder::AggregateFirst:
      return true;
    case GcnOrder::TransformFirst:
      return false;
    case GcnOrder::Auto:
      break;
  }
  // Both orders cost the same GEMM (n·in·out); the SpMM costs nnz·width of the side it runs on.
  // On a tie, transforming first lets the SpMM's epilogue apply the bias and activation.
  return in_width < out_width;
}

template <class T, class I, class V>
Graph<I, T> gcn_normalize(const Graph<I, V>& A, const GcnOptions& options) {
  detail::require_square(A, "gcn");
  const Descriptor desc =
      detail::algorithm_descriptor(options.device, MxvKernel::Auto, options.mxm_kernel);
  const Graph<I, V>& base = options.in_edges ? A.transpose() : A;
  // Â is built once from the structure: a pattern copy for this call, not one kept with A.
  return detail::with_operand_graph(
      base, options.weighted, [&](const auto& G) { return normalize<T>(G, desc); },
      /*keep=*/false);
}

template <class T, class I>
const DenseMatrix<T>& gcn_inference_normalized(const Graph<I, T>& A_hat, const DenseMatrix<T>& X,
                                               const GcnModel<T>& model, GcnWorkspace<T>& ws,
                                               const GcnOptions& options) {
  detail::require_square(A_hat, "gcn");
  check_model_shapes(model.weights.size(), model.biases.size());
  if (X.rows() != A_hat.rows()) {
    throw DimensionMismatch("gcn: the features have " + std::to_string(X.rows()) +
                            " rows for a graph of " + std::to_string(A_hat.rows()) + " vertices");
  }
  const Descriptor desc =
      detail::algorithm_descriptor(options.device, MxvKernel::Auto, options.mxm_kernel);
  const semiring::plus_times<T> plus_times{};
  const std::size_t layers = model.weights.size();
  ws.tmp.resize(layers);
  ws.out.resize(layers);
  const DenseMatrix<T>* in = &X;
  std::int64_t in_width = X.cols();
  // The previous layer's SpMM already wrote this layer's H·W into ws.tmp[l] (options.fuse).
  bool transformed = false;
  for (std::size_t l = 0; l < layers; ++l) {
    detail::check_cancel(options.cancel, "gcn");
    const DenseMatrix<T>& W = model.weights[l];
    const Vector<T>& b = model.biases[l];
    if (W.rows() != in_width) {
      throw DimensionMismatch("gcn: layer " + std::to_string(l) + " expects width " +
                              std::to_string(W.rows()) + " but its input has width " +
                              std::to_string(in_width));
    }
    if (b.size() != W.cols()) {
      throw DimensionMismatch("gcn: layer " + std::to_string(l) + " has " +
                              std::to_string(W.cols()) + " outputs but a bias of size " +
                              std::to_string(b.size()));
    }
    const bool last = l + 1 == layers;
    const Unary<T> act = Unary<T>::make(last ? UnaryOp::Identity : UnaryOp::Relu);
    DenseMatrix<T>& tmp = ws.tmp[l];
    DenseMatrix<T>& out = ws.out[l];
    // Tuning mode: the aggregation's SpMM at its width, timed once per (Â, width).
    std::string tuned;
    auto tune_aggregate = [&](std::int64_t width) {
      if (options.tune && desc.device == Device::Cuda && options.mxm_kernel == MxmKernel::Auto) {
        tuned = tune_summary(tune_mxm<semiring::plus_times<T>>(A_hat, width));
      }
    };
    // Tuning mode: the dense product's cuBLAS algorithm, timed once per shape.
    std::string tuned_gemm;
    auto transform = [&](DenseMatrix<T>& C, const DenseMatrix<T>& H) {
      if (options.tune) {  // on the CPU gemm_tuned is gemm and reports nothing
        tuned_gemm = gemm_tuned(C, H, W, desc.device);
      } else {
        gemm(C, H, W, desc.device);
      }
    };
    auto report = [&](GcnStage::Kind kind, std::int64_t in_w, std::int64_t out_w, bool bias,
                      bool project = false) {
      if (!options.on_stage) return;
      GcnStage st;
      if (kind == GcnStage::Kind::Aggregate) st.tuned = tuned;
      if (kind == GcnStage::Kind::Transform) st.tuned = tuned_gemm;
      st.kind = kind;
      st.layer = l;
      st.in_width = in_w;
      st.out_width = out_w;
      st.bias = bias;
      st.relu = bias && !last;
      st.project = project;
      options.on_stage(st);
    };
    // A hidden layer no wider at its input than at its output, before a layer that transforms
    // first: on Hopper (float) Â H first, then ReLU((Â H) W + b) W_next in one kernel
    // (ops/cuda/gemm/split_tf32.hpp, gemm_split_tf32_mlp), so the layer's output is never
    // written nor read back. R-MAT 22, 128-128-32, H200: see docs/design/gemm.md.
    const bool pair = options.fuse_dense && !options.fuse && !options.tune &&
                      options.order == GcnOrder::Auto && desc.device == Device::Cuda &&
                      std::is_same_v<T, float> && !last && !transformed && W.rows() <= W.cols() &&
                      model.weights[l + 1].rows() == W.cols() &&
                      !gcn_aggregate_first(W.cols(), model.weights[l + 1].cols(), options.order) &&
                      gemm_relu_gemm_applies<T>(A_hat.rows(), W.rows(), W.cols(),
                                                model.weights[l + 1].cols(), desc);
    if (pair || gcn_aggregate_first(W.rows(), W.cols(), options.order)) {
      tune_aggregate(in->cols());
      mxm(tmp, plus_times, A_hat, *in, desc);  // Â H
      report(GcnStage::Kind::Aggregate, W.rows(), W.rows(), false);
      if (pair && gemm_relu_gemm(ws.tmp[l + 1], tmp, W, &b, true, model.weights[l + 1], desc)) {
        out = DenseMatrix<T>();  // not computed: see GcnWorkspace::out
        report(GcnStage::Kind::Transform, W.rows(), model.weights[l + 1].cols(), true, true);
        transformed = true;
        in_width = W.cols();
        continue;
      }
      // (Where the pair declined after all, the layer ends as aggregated first.)
      transform(out, tmp);  // (Â H) W
      report(GcnStage::Kind::Transform, W.rows(), W.cols(), false);
      add_row_bias(out, b, act, desc);
      report(GcnStage::Kind::Bias, W.cols(), W.cols(), true);
    } else {
      if (!transformed) {
        transform(tmp, *in);  // H W
        report(GcnStage::Kind::Transform, W.rows(), W.cols(), false);
      }
      tune_aggregate(tmp.cols());
      // A hidden layer before a transform-first layer: ReLU(Â (H W) + b) W_next in one SpMM
      // where its kernel has that form (the next layer then starts from its SpMM).
      const bool next_transforms_first =
          !last && model.weights[l + 1].rows() == W.cols() &&
          !gcn_aggregate_first(W.cols(), model.weights[l + 1].cols(), options.order);
      if (options.fuse && desc.device == Device::Cuda && next_transforms_first &&
          mxm_relu_project(ws.tmp[l + 1], A_hat, tmp, b, model.weights[l + 1], desc)) {
        out = DenseMatrix<T>();  // not computed: see GcnWorkspace::out
        report(GcnStage::Kind::Aggregate, W.cols(), model.weights[l + 1].cols(), true, true);
        transformed = true;
        in_width = W.cols();
        continue;
      }
      // Â (H W), with the bias and activation applied as the SpMM stores each row.
      MxmEpilogue<T> epilogue;
      epilogue.bias = &b;
      epilogue.act = act.op;
      mxm(out, plus_times, A_hat, tmp, epilogue, desc);
      report(GcnStage::Kind::Aggregate, W.cols(), W.cols(), true);
    }
    transformed = false;
    in = &out;
    in_width = out.cols();
  }
  return ws.out.back();
}

template <class T, class I>
DenseMatrix<T> gcn_inference_normalized(const Graph<I, T>& A_hat, const DenseMatrix<T>& X,
                                        const GcnModel<T>& model, const GcnOptions& options) {
  GcnWorkspace<T> ws;
  gcn_inference_normalized(A_hat, X, model, ws, options);
  return std::move(ws.out.back());
}

template <class T, class I, class V>
DenseMatrix<T> gcn_inference(const Graph<I, V>& A, const DenseMatrix<T>& X,
                             const GcnModel<T>& model, const GcnOptions& options) {
  detail::require_square(A, "gcn");
  check_model_shapes(model.weights.size(), model.biases.size());
  const Graph<I, T> A_hat = gcn_normalize<T>(A, options);
  return gcn_inference_normalized(A_hat, X, model, options);
}

template <class T>
GcnModel<T> glorot_model(std::int64_t in_dim, const std::vector<std::int64_t>& layer_sizes,
                         std::uint64_t seed) {
  if (layer_sizes.empty()) throw InvalidArgument("gcn: at least one layer size is needed");
  if (in_dim < 1) throw InvalidArgument("gcn: the input width must be >= 1");
  for (std::int64_t s : layer_sizes) {
    if (s < 1) throw InvalidArgument("gcn: layer widths must be >= 1, got " + std::to_string(s));
  }
  std::mt19937_64 gen(seed);
  GcnModel<T> model;
  std::int64_t d_in = in_dim;
  for (std::int64_t d_out : layer_sizes) {
    const double limit = std::sqrt(6.0 / double(d_in + d_out));
    DenseMatrix<T> W(d_in, d_out);
    for (std::int64_t e = 0; e < W.size(); ++e) {
      W.data()[e] = static_cast<T>((2.0 * unit_uniform(gen) - 1.0) * limit);
    }
    model.weights.push_back(std::move(W));
    model.biases.emplace_back(d_out, T(0));
    d_in = d_out;
  }
  return model;
}

template <class T>
DenseMatrix<T> random_features(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  DenseMatrix<T> X(rows, cols);
  for (std::int64_t e = 0; e < X.size(); ++e) {
    X.data()[e] = static_cast<T>(2.0 * unit_uniform(gen) - 1.0);
  }
  return X;
}

#define SPINDLE_GCN_INST(T, I, V)                                                           \
  template Graph<I, T> gcn_normalize<T, I, V>(const Graph<I, V>&, const GcnOptions&);       \
  template DenseMatrix<T> gcn_inference<T, I, V>(const Graph<I, V>&, const DenseMatrix<T>&, \
                                                 const GcnModel<T>&, const GcnOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_GCN_INST)
#undef SPINDLE_GCN_INST

#define SPINDLE_GCN_NORM_INST(T, I)                                                      \
  template DenseMatrix<T> gcn_inference_normalized<T, I>(                                \
      const Graph<I, T>&, const DenseMatrix<T>&, const GcnModel<T>&, const GcnOptions&); \
  template const DenseMatrix<T>& gcn_inference_normalized<T, I>(                         \
      const Graph<I, T>&, const DenseMatrix<T>&, const GcnModel<T>&, GcnWorkspace<T>&,   \
      const GcnOptions&);
SPINDLE_GCN_NORM_INST(float, std::int32_t)
SPINDLE_GCN_NORM_INST(float, std::int64_t)
SPINDLE_GCN_NORM_INST(double, std::int32_t)
SPINDLE_GCN_NORM_INST(double, std::int64_t)
#undef SPINDLE_GCN_NORM_INST

template GcnModel<float> glorot_model<float>(std::int64_t, const std::vector<std::int64_t>&,
                                             std::uint64_t);
template GcnModel<double> glorot_model<double>(std::int64_t, const std::vector<std::int64_t>&,
                                               std::uint64_t);
template DenseMatrix<float> random_features<float>(std::int64_t, std::int64_t, std::uint64_t);
template DenseMatrix<double> random_features<double>(std::int64_t, std::int64_t, std::uint64_t);

}  // namespace spindle
