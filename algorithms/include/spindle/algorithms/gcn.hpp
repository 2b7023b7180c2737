// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file gcn.hpp
/// @brief Graph convolutional network inference (Kipf & Welling), written against the ops/ API
/// (SpMM through spindle::mxm) and the swappable dense gemm().

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// The weights of a GCN: layer l maps width d_l to d_{l+1} with H' = σ(Â H W_l + b_l).
template <class T>
struct GcnModel {
  /// W_l, each d_l × d_{l+1} (row-major). weights[l].cols() == weights[l+1].rows().
  std::vector<DenseMatrix<T>> weights;
  /// b_l, each of size d_{l+1} (full vectors). Same count as weights.
  std::vector<Vector<T>> biases;
  std::size_t num_layers() const noexcept { return weights.size(); }
};

/// Per-layer multiplication order.
enum class GcnOrder : std::uint8_t {
  Auto,            ///< per layer, the one with fewer flops (aggregate on the narrower side)
  AggregateFirst,  ///< (Â H) W
  TransformFirst,  ///< Â (H W)
};

/// One step of gcn_inference_normalized(), as reported to GcnOptions::on_stage.
struct GcnStage {
  enum class Kind : std::uint8_t {
    Transform,  ///< dense product H W (gemm)
    Aggregate,  ///< SpMM Â H (mxm), possibly with the bias and ReLU fused into its stores
    Bias,       ///< bias (and ReLU) added on their own, after an aggregate-first layer
  };
  Kind kind = Kind::Transform;
  std::size_t layer = 0;       ///< 0-based
  std::int64_t in_width = 0;   ///< columns of the step's input
  std::int64_t out_width = 0;  ///< columns of its output
  bool bias = false;           ///< the bias is applied in this step
  bool relu = false;           ///< ReLU is applied in this step
  /// An Aggregate step that also applied the next layer's dense product in its epilogue
  /// (GcnOptions::fuse), or a Transform step that applied this layer's and the next layer's
  /// (GcnOptions::fuse_dense; bias and ReLU between them): out_width is the next layer's
  /// width, and the next layer reports no Transform step.
  bool project = false;
  /// In tuning mode (GcnOptions::tune) on CUDA: for Aggregate steps the SpMM kernel tuning
  /// picked (tune_summary), for Transform steps the GEMM algorithm (gemm_tuned); empty
  /// otherwise.
  std::string tuned;
};

/// Options of gcn_inference() and gcn_normalize().
struct GcnOptions {
  /// Multiplication order per layer (results agree up to rounding).
  GcnOrder order = GcnOrder::Auto;
  /// Build Â from the graph's values instead of its structure (every edge 1).
  bool weighted = false;
  /// Aggregate over in-neighbors: use Aᵀ (PyTorch Geometric's GCNConv with the default
  /// source_to_target flow, whose degrees are in-degrees). Off: Â is built from A's rows and
  /// row i aggregates its out-neighbors (Kipf's formula). Same result on symmetric graphs.
  bool in_edges = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an SpMM kernel (Auto: the planner decides).
  MxmKernel mxm_kernel = MxmKernel::Auto;
  /// Tuning mode (spindle/cuda/tune.hpp): before each aggregation, time the CUDA SpMM kernels
  /// once for Â at that width and run the fastest instead of the planner's pick (cached with Â:
  /// repeated gcn_inference_normalized() calls on the same Â time nothing; not when mxm_kernel
  /// forces a kernel); and run each dense product through gemm_tuned (cuBLAS's algorithms timed
  /// once per shape for the process). Ignored on the CPU.
  bool tune = false;
  /// On CUDA, a hidden layer whose next layer transforms first computes ReLU(Â H W + b)·W_next
  /// in one SpMM, the dense product applied as each row is finished, where the SpMM kernel
  /// for Â at that width has that form (nnz_balanced_seq's group form, which the planner picks
  /// on large skewed graphs; ops/cuda/mxm/mxm_project.hpp): the layer's output is never
  /// written and the next layer's GEMM is skipped. Results agree with the unfused order up to
  /// rounding. Off by default: on R-MAT 22, 128-128-32 (H100) the fused SpMM took 10.9 ms
  /// against 7.6 ms for the SpMM plus 1.1 ms for the GEMM it replaces, so the inference took
  /// 16.6 ms against 14.5 (docs/design/mxm.md). Ignored on the CPU.
  bool fuse = false;
  /// On a compute capability 9.0 GPU (float, order Auto, fuse and tune off), a hidden layer whose
  /// input is no wider than its output, before a layer that transforms first, aggregates first and
  /// computes ReLU((Â H) W + b)·W_next in one kernel whose hidden rows stay in registers (the
  /// split-TF32 GEMM pair, FP32-class accuracy): the layer's output is never written nor read
  /// back, and the next layer starts from its SpMM. Results agree with the unfused order up to
  /// rounding. On by default (R-MAT 22, 128-128-32: docs/design/gemm.md); ignored
  /// elsewhere.
  bool fuse_dense = true;
  /// Called after each step of gcn_inference_normalized() is issued (on the CUDA backend:
  /// enqueued on the context's stream, not necessarily finished), e.g. to record CUDA events
  /// or profiler ranges between the steps. Empty: not called.
  std::function<void(const GcnStage&)> on_stage;
  /// Cooperative cancellation (progress bars, time limits, Ctrl-C in the Python bindings): called
  /// on the calling thread before every layer, never inside an operation; returning true stops the
  /// call with spindle::Cancelled, and an exception it throws propagates unchanged. Empty: never
  /// called.
  std::function<bool()> cancel = nullptr;
};

/// Â = D^-1/2 (A + I) D^-1/2, with D the row sums of A + I. A + I adds a unit self-loop only
/// where the diagonal entry is missing (existing self-loops keep their value, as PyTorch
/// Geometric's add_remaining_self_loops). Built once through add_identity, reduce_rows, apply
/// (RSqrt) and scale. A row whose sum is 0 gets D^-1/2 = 0.
/// @throws InvalidArgument on a non-square graph.
template <class T, class I, class V>
Graph<I, T> gcn_normalize(const Graph<I, V>& A, const GcnOptions& options = {});

/// True when layer (in_width -> out_width) aggregates before transforming under `order`
/// (Auto: when in_width < out_width, since aggregation costs nnz × width; on a tie the layer
/// transforms first, so the bias and activation fuse into the SpMM's epilogue).
bool gcn_aggregate_first(std::int64_t in_width, std::int64_t out_width, GcnOrder order) noexcept;

/// Runs every layer: H_0 = X, H_{l+1} = ReLU(Â H_l W_l + b_l) between layers, no activation after
/// the last (logits / embeddings). Â is computed once (gcn_normalize).
/// @param A  square graph
/// @param X  features, A.rows() × d_0
/// @return   A.rows() × d_L
/// @throws InvalidArgument on a non-square graph or an empty model; DimensionMismatch when X or a
///         layer's shapes do not chain; Unsupported / DeviceError as the ops.
template <class T, class I, class V>
DenseMatrix<T> gcn_inference(const Graph<I, V>& A, const DenseMatrix<T>& X,
                             const GcnModel<T>& model, const GcnOptions& options = {});

/// The same, with Â already normalized (gcn_normalize), e.g. to reuse it across calls.
template <class T, class I>
DenseMatrix<T> gcn_inference_normalized(const Graph<I, T>& A_hat, const DenseMatrix<T>& X,
                                        const GcnModel<T>& model, const GcnOptions& options = {});

/// Buffers that gcn_inference_normalized() reuses across calls (repeated inference, servers,
/// benchmarks): from the second call on with the same shapes no layer allocates memory, and on
/// the CUDA backend every intermediate stays on the device.
template <class T>
struct GcnWorkspace {
  std::vector<DenseMatrix<T>> tmp;  ///< per layer: the product computed before the other one
  /// per layer: the layer's output (out.back(): the result); left empty for a layer whose
  /// output went straight into the next layer's product (GcnOptions::fuse)
  std::vector<DenseMatrix<T>> out;
};

/// As gcn_inference_normalized() above, with the buffers of `ws`; returns ws.out.back().
template <class T, class I>
const DenseMatrix<T>& gcn_inference_normalized(const Graph<I, T>& A_hat, const DenseMatrix<T>& X,
                                               const GcnModel<T>& model, GcnWorkspace<T>& ws,
                                               const GcnOptions& options = {});

/// Glorot-uniform weights (U(±√(6/(d_in+d_out)))) and zero biases for widths
/// in_dim -> layer_sizes[0] -> layer_sizes[1] ... from a seed (std::mt19937_64; the same seed
/// gives the same model on every platform).
/// @throws InvalidArgument when a width is < 1 or layer_sizes is empty.
template <class T>
GcnModel<T> glorot_model(std::int64_t in_dim, const std::vector<std::int64_t>& layer_sizes,
                         std::uint64_t seed);

/// rows × cols features drawn uniformly from [-1, 1) from a seed (std::mt19937_64).
template <class T>
DenseMatrix<T> random_features(std::int64_t rows, std::int64_t cols, std::uint64_t seed);

}  // namespace spindle
