// SPDX-License-Identifier: Apache-2.0
// The CUDA planner's push-or-pull rule for vxm (ops/core/vxm_push.hpp). A pure function of A's
// statistics, the call and the input's counts, so CPU-only tests check it like the other rules.
#include <string>

#include "ops/core/plan_format.hpp"
#include "ops/core/vxm_push.hpp"

namespace spindle::detail {
namespace {

// With A^T built already, the push runs while its terms are at most this share of A's entries,
// on graphs of at least kPushMinNnzWithTranspose entries (vxm_push.hpp). The pull reads every entry
// of A^T whatever the input (its cost barely moves with a mask or a sparse u); the push costs about
// 0.08 ms of passes over the rows and columns on R-MAT 22 plus its terms, each an atomic or a
// store at a random output. Measured outside `spindle bench` on an H200 (ms per call to its end,
// push / pull over the planner's pull kernel; docs/design/mxv.md):
//   R-MAT 22, any_pair under !struct(u): terms 9.5% of nnz 0.227 / 0.457, 18% 0.329 / 0.458,
//   26% 0.420 / 0.458, 39% 0.527 / 0.458; min_plus: 18% 0.423 / 0.503, 26% 0.542 / 0.508;
//   uniform 22, any_pair: 26% 0.391 / 0.492, 39% 0.497 / 0.491; min_plus: 26% 0.530 / 0.600,
//   39% 0.733 / 0.655.
// A mask that rules out most outputs (a BFS's visited set) makes the push cheaper than its share
// says (R-MAT 22 level 4: 54% of the terms, push 0.368 / pull 0.459); the rule ignores that.
constexpr double kPushEdgeShare = 0.25;
// Without A^T yet, the pull would first build it (R-MAT 22: on CUDA sorted on the device, 50-65
// ms with its download, ops/cuda/transpose.cu; on the host's 16 cores 139-164 ms, then an upload),
// more than all of a BFS's pushes (R-MAT 22, every level pushed: 1.28 ms of device time): the push
// runs up to this share (every input that is not full) from kPushMinNnz entries on. A program that
// will pull many times over one graph can build the transpose first (Graph::transpose()) to get
// the pull for dense inputs.
constexpr double kPushEdgeShareWithoutTranspose = 1.0;

const char* monoid_name(PushMonoid m) {
  switch (m) {
    case PushMonoid::Min:
      return "atomic min";
    case PushMonoid::Max:
      return "atomic max";
    case PushMonoid::Or:
      return "stores of 1 (lor)";
    case PushMonoid::Any:
      return "stores of 1 (any)";
    case PushMonoid::None:
      break;
  }
  return "?";
}

std::string share(std::int64_t part, std::int64_t whole) {
  return format_g3(whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole)
                             : 0.0) +
         "%";
}

}  // namespace

PushDecision plan_vxm_push_cuda(const GraphStats& a, const MxvInfo& info, const PushInput& in,
                                bool transpose_cached, const Descriptor& desc) {
  PushDecision d;
  const PushMonoid m = push_monoid(info.semiring);
  const std::string input = std::to_string(in.present) + " present input entries with " +
                            std::to_string(in.edges) + " out-entries (" + share(in.edges, a.nnz) +
                            " of " + std::to_string(a.nnz) + ")";
  d.plan.op = OpKind::Vxm;
  d.plan.device = Device::Cuda;
  d.plan.mxv = MxvKernel::PushScatter;
  d.plan.params.block_threads = 256;
  if (m == PushMonoid::None || info.op != OpKind::Vxm || info.transpose_a) {
    d.note = "no push: it needs vxm over A with a min, max, lor or any monoid";
    return d;
  }
  if (!info.precompiled) {
    d.note = "no push: push_scatter is specialized per semiring, and this one is not precompiled";
    return d;
  }
  if (desc.mxv_kernel == MxvKernel::PushScatter) {
    d.push = true;
    d.plan.forced = true;
    d.plan.reason = "forced by the descriptor: vxm as a push over the rows of A, " + input + ", " +
                    monoid_name(m);
    return d;
  }
  const double limit = transpose_cached ? kPushEdgeShare : kPushEdgeShareWithoutTranspose;
  const std::string rule =
      transpose_cached ? "the push's " + format_g3(100.0 * limit) + "% share"
                       : "the push's " + format_g3(100.0 * limit) +
                             "% share while the transpose is not built (the pull would build it)";
  if (info.input_full) {
    d.note = "no push: every input entry is present";
  } else if (a.nnz < (transpose_cached ? kPushMinNnzWithTranspose : kPushMinNnz)) {
    d.note = "no push below " +
             std::to_string(transpose_cached ? kPushMinNnzWithTranspose : kPushMinNnz) +
             " entries" + (transpose_cached ? " once the transpose is built" : "") +
             " (the pull is shorter than the push's fixed cost)";
  } else if (static_cast<double>(in.edges) > limit * static_cast<double>(a.nnz)) {
    d.note = "no push: " + input + ", above " + rule;
  } else {
    d.push = true;
    d.plan.reason = "vxm as a push over the rows of A: " + input + ", within " + rule + "; " +
                    monoid_name(m) + " into the outputs";
  }
  return d;
}

}  // namespace spindle::detail
