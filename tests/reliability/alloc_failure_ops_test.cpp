// SPDX-License-Identifier: Apache-2.0
// Allocation-failure injection through every operation (mxv, vxm, mxm, sddmm, ewise, apply,
// reduce, assign): for n = 1, 2, ... the n-th checked allocation (host workspaces and outputs,
// graph transposes, GPU buffers) fails until the call succeeds. Each failure must be an
// OutOfMemory, leave every input bit-identical, and leave the output either untouched or fully
// written; the successful call must equal the uninjected result bit for bit (the CPU backend is
// deterministic). Runs on the CPU backend, and on CUDA too when a device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops.hpp"

namespace spindle {
namespace {

// --- snapshots and semantic equality ---------------------------------------------------------

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct VecSnap {
  std::int64_t n = -1;
  std::vector<std::uint8_t> present;
  std::vector<double> values;  // only present entries are meaningful
  bool operator==(const VecSnap& o) const {
    if (n != o.n || present != o.present) return false;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (present[i] && !same_bits(values[i], o.values[i])) return false;
    }
    return true;
  }
};
VecSnap snap(const Vector<double>& v) {
  VecSnap s;
  s.n = v.size();
  for (std::int64_t i = 0; i < v.size(); ++i) {
    s.present.push_back(v.present(i) ? 1 : 0);
    s.values.push_back(v.present(i) ? v[i] : 0.0);
  }
  return s;
}

struct DenseSnap {
  std::int64_t rows = -1, cols = -1;
  std::vector<double> data;
  bool operator==(const DenseSnap& o) const {
    return rows == o.rows && cols == o.cols &&
           (data.empty() || std::memcmp(data.data(), o.data.data(), data.size() * 8) == 0);
  }
};
DenseSnap snap(const DenseMatrix<double>& m) {
  DenseSnap s{m.rows(), m.cols(), {}};
  for (std::int64_t i = 0; i < m.rows(); ++i) {
    for (std::int64_t j = 0; j < m.cols(); ++j) s.data.push_back(m(i, j));
  }
  return s;
}

struct GraphSnap {
  std::vector<std::int64_t> row_ptr, col_idx;
  std::vector<double> values;
  bool operator==(const GraphSnap& o) const {
    if (row_ptr != o.row_ptr || col_idx != o.col_idx || values.size() != o.values.size()) {
      return false;
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (!same_bits(values[k], o.values[k])) return false;
    }
    return true;
  }
};
template <class I, class V>
GraphSnap snap(const Graph<I, V>& g) {
  GraphSnap s;
  s.row_ptr.assign(g.row_ptr().begin(), g.row_ptr().end());
  s.col_idx.assign(g.col_idx().begin(), g.col_idx().end());
  for (I k = 0; k < g.nnz(); ++k) s.values.push_back(g.template value_at<double>(k));
  return s;
}

// --- inputs ------------------------------------------------------------------------------------

constexpr std::int64_t kRows = 23, kCols = 17, kK = 5;

// Empty rows, a dense row, power-law-ish rows; values are small integers so every sum is exact.
Coo<std::int32_t> random_coo(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Coo<std::int32_t> c;
  c.rows = kRows;
  c.cols = kCols;
  auto add = [&](std::int32_t i, std::int32_t j) {
    c.row.push_back(i);
    c.col.push_back(j);
    c.val.push_back(static_cast<double>(static_cast<int>(rng() % 9) - 4));
  };
  for (std::int32_t j = 0; j < kCols; ++j) add(1, j);
  for (std::int32_t i = 2; i < kRows; ++i) {
    if (i % 4 == 0) continue;
    for (std::int64_t t = 0; t < 1 + (kRows / i) % 5; ++t)
      add(i, static_cast<std::int32_t>(rng() % kCols));
  }
  return c;
}

// A graph with fresh storage (no cached transpose / stats), so every attempt allocates them.
Graph<std::int32_t, double> fresh_graph() {
  return build_graph<std::int32_t, double>(random_coo(42));
}

Vector<double> random_vector(std::int64_t n, std::uint64_t seed, bool sparse) {
  std::mt19937_64 rng(seed);
  Vector<double> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(static_cast<int>(rng() % 11) - 5);
  if (sparse) {
    for (std::int64_t i = 0; i < n; i += 3) v.remove(i);
  }
  return v;
}

DenseMatrix<double> random_dense(std::int64_t r, std::int64_t c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  DenseMatrix<double> m(r, c);
  for (std::int64_t i = 0; i < r; ++i) {
    for (std::int64_t j = 0; j < c; ++j)
      m(i, j) = static_cast<double>(static_cast<int>(rng() % 7) - 3);
  }
  return m;
}

struct RankOutputs {
  Vector<double> x_new, leak, w;
};

// On CUDA the harness also reads each output through a device operation (an identity apply on the
// device copy): a device copy written but not marked newer would not show through the host
// accessors, which read the host copy while the state says both are current.
Descriptor on_cuda() {
  Descriptor d;
  d.device = Device::Cuda;
  return d;
}
template <class X>
X through_device(const X& x) {
  return x;  // sddmm's std::vector, graphs and scalars have no device copy to read
}
Vector<double> through_device(const Vector<double>& v) {
  Vector<double> c;
  if (v.size() > 0) apply(c, Mask{}, Accum::none(), Unary<double>{}, v, on_cuda());
  return c;
}
DenseMatrix<double> through_device(const DenseMatrix<double>& m) {
  DenseMatrix<double> c;
  if (m.size() > 0) apply(c, Accum::none(), Unary<double>{}, m, on_cuda());
  return c;
}
RankOutputs through_device(const RankOutputs& o) {
  return {through_device(o.x_new), through_device(o.leak), through_device(o.w)};
}

// --- the injection loop ------------------------------------------------------------------------

class AllocFailureOps : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    if (GetParam() == Device::Cuda && !cuda_available()) GTEST_SKIP() << "no CUDA device";
    desc_.device = GetParam();
  }
  void TearDown() override { debug::reset_allocation_hook(); }

  // Runs `attempt(out)` with the n-th allocation failing, n = 1, 2, ..., until it succeeds.
  // `make_out` gives the output's initial state, `snap_out` its observable state, `snap_in` the
  // observable state of every input. Returns the number of injected failures.
  // `before_each` runs before every attempt (e.g. to give the call a graph with no cached
  // transpose, so that the transpose is allocated inside every attempt).
  template <class Out, class MakeOut, class Attempt, class SnapOut>
  int run(
      const char* what, MakeOut make_out, Attempt attempt, SnapOut snap_out,
      const std::function<std::string()>& snap_in,
      const std::function<void()>& before_each = [] {}) {
    SCOPED_TRACE(what);
    before_each();
    const std::string inputs_before = snap_in();
    Out ref = make_out();
    const auto initial = snap_out(ref);
    attempt(ref);  // uninjected reference
    const auto expect = snap_out(ref);
    EXPECT_TRUE(snap_in() == inputs_before) << "the uninjected call changed an input";
    for (int n = 1; n <= 400; ++n) {
      before_each();
      Out out = make_out();
      debug::fail_nth_allocation(n);
      bool ok = false;
      try {
        attempt(out);
        ok = true;
      } catch (const OutOfMemory& e) {
        EXPECT_NE(std::string(e.what()).find("injected allocation failure"), std::string::npos)
            << e.what();
      } catch (const std::exception& e) {
        debug::reset_allocation_hook();
        ADD_FAILURE() << "allocation " << n << ": non-OutOfMemory exception: " << e.what();
        return -1;
      }
      const bool fired = debug::allocation_failure_fired();
      debug::reset_allocation_hook();
      EXPECT_TRUE(snap_in() == inputs_before) << "allocation " << n << " changed an input";
      const auto got = snap_out(out);
      if (GetParam() == Device::Cuda) {
        EXPECT_TRUE(snap_out(through_device(out)) == got)
            << "allocation " << n << " left the output's device copy unlike its host copy";
      }
      if (ok) {
        EXPECT_FALSE(fired) << "allocation " << n << " failed but the call reported success";
        EXPECT_TRUE(got == expect) << "result after " << n - 1 << " injected failures differs";
        RecordProperty(what, n - 1);
        return n - 1;
      }
      EXPECT_TRUE(got == initial || got == expect)
          << "allocation " << n << " failed and left the output half-written";
    }
    ADD_FAILURE() << "never succeeded";
    return -1;
  }

  Descriptor desc_;
};

// Inputs are compared through a string of their bits (any change shows).
std::string key(const VecSnap& s) {
  std::string k(reinterpret_cast<const char*>(s.present.data()), s.present.size());
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    if (s.present[i]) k.append(reinterpret_cast<const char*>(&s.values[i]), 8);
  }
  return k + "|" + std::to_string(s.n);
}
std::string key(const DenseSnap& s) {
  return std::string(reinterpret_cast<const char*>(s.data.data()), s.data.size() * 8) + "|" +
         std::to_string(s.rows) + "x" + std::to_string(s.cols);
}
std::string key(const GraphSnap& s) {
  std::string k;
  for (auto x : s.row_ptr) k.append(reinterpret_cast<const char*>(&x), 8);
  for (auto x : s.col_idx) k.append(reinterpret_cast<const char*>(&x), 8);
  for (auto x : s.values) k.append(reinterpret_cast<const char*>(&x), 8);
  return k;
}

auto vec_snap = [](const Vector<double>& v) { return snap(v); };
auto dense_snap = [](const DenseMatrix<double>& m) { return snap(m); };

TEST_P(AllocFailureOps, MxvAndVxmFailCleanlyWithAndWithoutMaskAndAccumulator) {
  const Vector<double> u_rows = random_vector(kCols, 1, false);
  const Vector<double> u_rows_sparse = random_vector(kCols, 2, true);
  const Vector<double> u_cols = random_vector(kRows, 3, false);
  const Vector<double> mvec = random_vector(kRows, 4, true);
  const Vector<double> mvec_t = random_vector(kCols, 5, true);
  for (int variant = 0; variant < 4; ++variant) {
    Graph<std::int32_t, double> A = fresh_graph();
    const std::string tag = "variant " + std::to_string(variant);
    const auto in = [&] {
      return key(snap(A)) + key(snap(u_rows)) + key(snap(u_rows_sparse)) + key(snap(u_cols)) +
             key(snap(mvec)) + key(snap(mvec_t));
    };
    const bool masked = variant & 1, presized = variant & 2;
    run<Vector<double>>(("mxv " + tag).c_str(),
                        [&] { return presized ? random_vector(kRows, 9, true) : Vector<double>(); },
                        [&](Vector<double>& w) {
                          if (masked && presized) {
                            mxv(w, Mask::value(mvec), Accum::plus(), semiring::plus_times<double>{},
                                A, u_rows_sparse, desc_);
                          } else {
                            mxv(w, Mask{}, Accum::none(), semiring::plus_times<double>{}, A, u_rows,
                                desc_);
                          }
                        },
                        vec_snap, in);
    // vxm builds the transpose: a fresh graph per attempt allocates it inside every attempt.
    run<Vector<double>>(
        ("vxm " + tag).c_str(),
        [&] { return presized ? random_vector(kCols, 10, true) : Vector<double>(); },
        [&](Vector<double>& w) {
          if (masked && presized) {
            vxm(w, Mask::structural(mvec_t, true), Accum::max(), semiring::min_plus<double>{},
                u_cols, A, desc_);
          } else {
            vxm(w, Mask{}, Accum::none(), semiring::plus_times<double>{}, u_cols, A, desc_);
          }
        },
        vec_snap, in, [&] { A = fresh_graph(); });
    // mxv with transpose_a: the transpose is allocated inside the call, as for vxm.
    Descriptor dt = desc_;
    dt.transpose_a = true;
    run<Vector<double>>(("mxv^T " + tag).c_str(), [&] { return Vector<double>(); },
                        [&](Vector<double>& w) {
                          mxv(w, Mask{}, Accum::none(), semiring::max_plus<double>{}, A, u_cols,
                              dt);
                        },
                        vec_snap, in, [&] { A = fresh_graph(); });
  }
}

// vxm over a graph of more than 2^20 entries: on CUDA its missing transpose is sorted on the GPU
// (ops/cuda/transpose.cu), and every allocation of that build (the uploads, the sort's buffers,
// the host arrays) fails cleanly too: OutOfMemory, nothing cached, the output untouched.
TEST_P(AllocFailureOps, VxmOnALargeGraphFailsCleanly) {
  const std::int64_t rows = 40009, cols = 30011;
  std::mt19937_64 rng(77);
  Coo<std::int32_t> coo;
  coo.rows = static_cast<std::int32_t>(rows);
  coo.cols = static_cast<std::int32_t>(cols);
  for (std::int64_t t = 0; t < 1200000; ++t) {
    coo.row.push_back(static_cast<std::int32_t>(rng() % rows));
    coo.col.push_back(static_cast<std::int32_t>(rng() % cols));
    coo.val.push_back(static_cast<double>(static_cast<int>(rng() % 9) - 4));
  }
  const auto big = build_graph<std::int32_t, double>(std::move(coo));
  ASSERT_GT(big.nnz(), std::int64_t{1} << 20);
  const auto copy = [&big] {  // fresh storage: no cached transpose or device copy
    return Graph<std::int32_t, double>(big.rows(), big.cols(), big.row_ptr(), big.col_idx(),
                                       big.values());
  };
  Graph<std::int32_t, double> A = copy();
  const Vector<double> u = random_vector(rows, 11, false);
  run<Vector<double>>(
      "vxm, large graph", [] { return Vector<double>(); },
      [&](Vector<double>& w) {
        vxm(w, Mask{}, Accum::none(), semiring::plus_times<double>{}, u, A, desc_);
        EXPECT_TRUE(A.has_transpose());
      },
      vec_snap, [&] { return key(snap(A)) + key(snap(u)); }, [&] { A = copy(); });
}

TEST_P(AllocFailureOps, MxmAndSddmmFailCleanly) {
  const auto A = fresh_graph();
  const DenseMatrix<double> B = random_dense(kCols, kK, 11);
  const DenseMatrix<double> X = random_dense(kRows, kK, 12);
  const DenseMatrix<double> Y = random_dense(kCols, kK, 13);
  const auto in = [&] { return key(snap(A)) + key(snap(B)) + key(snap(X)) + key(snap(Y)); };
  run<DenseMatrix<double>>(
      "mxm into a new output", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) { mxm(C, semiring::plus_times<double>{}, A, B, desc_); },
      dense_snap, in);
  run<DenseMatrix<double>>(
      "mxm accumulate", [] { return random_dense(kRows, kK, 14); },
      [&](DenseMatrix<double>& C) {
        mxm(C, Accum::plus(), semiring::min_plus<double>{}, A, B, desc_);
      },
      dense_snap, in);
  {
    // A^T B: the transpose is built inside every attempt (fresh graph each time).
    auto At = fresh_graph();
    const DenseMatrix<double> Bt = random_dense(kRows, kK, 15);
    Descriptor dt = desc_;
    dt.transpose_a = true;
    const auto in_t = [&] { return key(snap(At)) + key(snap(Bt)); };
    run<DenseMatrix<double>>(
        "mxm A^T into a new output", [] { return DenseMatrix<double>(); },
        [&](DenseMatrix<double>& C) { mxm(C, semiring::plus_times<double>{}, At, Bt, dt); },
        dense_snap, in_t, [&] { At = fresh_graph(); });
  }
  // With a fused bias + ReLU epilogue (the GCN layer): fused on CUDA, composed of mxm and
  // add_row_bias on the CPU; a new output is built aside and moved in once both steps are done.
  const Vector<double> bias = random_vector(kK, 16, false);
  const MxmEpilogue<double> epilogue{&bias, UnaryOp::Relu, 0.0};
  const auto in_ep = [&] { return in() + key(snap(bias)); };
  run<DenseMatrix<double>>(
      "mxm with an epilogue into a new output", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) {
        mxm(C, Accum::none(), semiring::plus_times<double>{}, A, B, epilogue, desc_);
      },
      dense_snap, in_ep);
  run<DenseMatrix<double>>(
      "mxm with an epilogue, accumulate", [] { return random_dense(kRows, kK, 17); },
      [&](DenseMatrix<double>& C) {
        mxm(C, Accum::plus(), semiring::plus_times<double>{}, A, B, epilogue, desc_);
      },
      dense_snap, in_ep);
  // In place with a bias whose host array is not made yet: on the CPU it is made before the
  // product writes C (the bias step would otherwise allocate after it).
  Vector<double> deferred_bias;
  run<DenseMatrix<double>>(
      "mxm with an epilogue in place, deferred bias", [] { return random_dense(kRows, kK, 18); },
      [&](DenseMatrix<double>& C) {
        const MxmEpilogue<double> e{&deferred_bias, UnaryOp::Relu, 0.0};
        mxm(C, Accum::none(), semiring::plus_times<double>{}, A, B, e, desc_);
      },
      dense_snap, [&] { return key(snap(deferred_bias)); },
      [&] { deferred_bias = Vector<double>(kK, 0.5); });
  auto vsnap = [](const std::vector<double>& v) {
    DenseSnap s{static_cast<std::int64_t>(v.size()), 1, v};
    return s;
  };
  run<std::vector<double>>(
      "sddmm", [] { return std::vector<double>(); },
      [&](std::vector<double>& out) { sddmm(out, semiring::plus_times<double>{}, A, X, Y, desc_); },
      vsnap, in);
  run<std::vector<double>>(
      "sddmm accumulate",
      [&] { return std::vector<double>(static_cast<std::size_t>(A.nnz()), 2.0); },
      [&](std::vector<double>& out) {
        sddmm(out, Accum::with(BinaryOp::Times), semiring::plus_times<double>{}, A, X, Y, desc_);
      },
      vsnap, in);
}

TEST_P(AllocFailureOps, EwiseApplyReduceAssignFailCleanly) {
  const Vector<double> u = random_vector(kRows, 21, true);
  const Vector<double> v = random_vector(kRows, 22, false);
  const Vector<double> mvec = random_vector(kRows, 23, true);
  const Vector<double> mvec_cols = random_vector(kCols, 29, true);
  const DenseMatrix<double> P = random_dense(kRows, kK, 24);
  const DenseMatrix<double> Q = random_dense(kRows, kK, 25);
  const auto A = fresh_graph();
  const auto in = [&] {
    return key(snap(u)) + key(snap(v)) + key(snap(mvec)) + key(snap(P)) + key(snap(Q)) +
           key(snap(A));
  };
  for (bool presized : {false, true}) {
    auto make = [presized] { return presized ? random_vector(kRows, 26, true) : Vector<double>(); };
    const Mask mask = presized ? Mask::value(mvec) : Mask{};
    const Accum acc = presized ? Accum::plus() : Accum::none();
    run<Vector<double>>(
        presized ? "ewise_add masked" : "ewise_add", make,
        [&](Vector<double>& w) { ewise_add(w, mask, acc, BinaryOp::Max, u, v, desc_); }, vec_snap,
        in);
    run<Vector<double>>(
        presized ? "ewise_mult masked" : "ewise_mult", make,
        [&](Vector<double>& w) { ewise_mult(w, mask, acc, BinaryOp::Times, u, v, desc_); },
        vec_snap, in);
    run<Vector<double>>(
        presized ? "apply masked" : "apply", make,
        [&](Vector<double>& w) { apply(w, mask, acc, Unary<double>::plus(1.5), u, desc_); },
        vec_snap, in);
    run<Vector<double>>(
        presized ? "apply_index masked" : "apply_index", make,
        [&](Vector<double>& w) { apply_index(w, mask, acc, u, 1.0, desc_); }, vec_snap, in);
    run<Vector<double>>(
        presized ? "reduce_rows masked" : "reduce_rows", make,
        [&](Vector<double>& w) { reduce_rows(w, mask, acc, MonoidKind::Plus, A, desc_); }, vec_snap,
        in);
    {
      auto At = fresh_graph();
      Descriptor dt = desc_;
      dt.transpose_a = true;
      const Mask mask_t = presized ? Mask::value(mvec_cols) : Mask{};
      run<Vector<double>>(
          presized ? "reduce_rows of A^T masked" : "reduce_rows of A^T",
          [presized] { return presized ? random_vector(kCols, 28, true) : Vector<double>(); },
          [&](Vector<double>& w) { reduce_rows(w, mask_t, acc, MonoidKind::Max, At, dt); },
          vec_snap, in, [&] { At = fresh_graph(); });
    }
    run<Vector<double>>(
        presized ? "assign vector masked" : "assign vector", make,
        [&](Vector<double>& w) { assign(w, mask, acc, u, desc_); }, vec_snap, in);
    run<Vector<double>>(
        "assign scalar at indices", [] { return random_vector(kRows, 27, true); },
        [&](Vector<double>& w) {
          assign(w, mask, acc, 7.0, std::vector<std::int64_t>{0, 5, 22, 5}, desc_);
        },
        vec_snap, in);
  }
  {
    // Absent values at listed indices remove w's entries: a full w gets its bitmap first.
    Vector<double> u_idx = random_vector(4, 41, false);
    u_idx.remove(1);
    const std::vector<std::int64_t> idx{3, 7, 11, 19};
    run<Vector<double>>(
        "assign vector at indices into a full w", [] { return random_vector(kRows, 40, false); },
        [&](Vector<double>& w) { assign(w, Mask{}, Accum::none(), u_idx, idx, desc_); }, vec_snap,
        [&] { return in() + key(snap(u_idx)); });
  }
  run<DenseMatrix<double>>(
      "ewise dense", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) { ewise(C, Accum::none(), BinaryOp::Minus, P, Q, desc_); },
      dense_snap, in);
  run<DenseMatrix<double>>(
      "apply dense", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) {
        apply(C, Accum::none(), Unary<double>::make(UnaryOp::Relu), P, desc_);
      },
      dense_snap, in);
  // Graph-valued and scalar results: the "output" is a fresh object; inputs must not change.
  run<Graph<std::int32_t, double>>(
      "apply graph", [] { return Graph<std::int32_t, double>(); },
      [&](Graph<std::int32_t, double>& G) { G = apply(Unary<double>::times(2.0), A, desc_); },
      [](const Graph<std::int32_t, double>& G) { return key(snap(G)); }, in);
  run<double>(
      "reduce", [] { return 0.0; }, [&](double& r) { r = reduce(MonoidKind::Plus, u, desc_); },
      [](double r) { return r; }, in);
}

// PageRank's steps resize their outputs (w, leak) and write them on the host (CPU backend) or the
// device: a failed allocation, the making of an output's host array included, leaves every output
// as it was.

TEST_P(AllocFailureOps, RankStepsFailCleanly) {
  const Vector<double> x = random_vector(kRows, 31, false);
  Vector<double> scale = random_vector(kRows, 32, false);
  for (std::int64_t i = 0; i < kRows; i += 7) scale[i] = 0.0;  // dangling vertices
  const Vector<double> teleport = random_vector(kRows, 33, false);
  const auto in = [&] { return key(snap(x)) + key(snap(scale)) + key(snap(teleport)); };
  const auto outs = [](const RankOutputs& o) {
    return key(snap(o.x_new)) + key(snap(o.leak)) + key(snap(o.w));
  };
  for (bool presized : {false, true}) {
    const auto make = [presized] {
      RankOutputs o;
      o.x_new = random_vector(kRows, 34, false);
      o.leak = Vector<double>(1, 0.125);
      if (presized) o.w = random_vector(kRows, 35, true);
      return o;
    };
    run<RankOutputs>(
        presized ? "scale_and_leak into presized outputs" : "scale_and_leak into new outputs",
        [presized] {
          RankOutputs o;
          if (presized) o.w = random_vector(kRows, 36, true);
          return o;
        },
        [&](RankOutputs& o) { scale_and_leak(o.w, o.leak, x, scale, desc_); }, outs, in);
    run<RankOutputs>(
        presized ? "teleport_residual_and_scale, w presized" : "teleport_residual_and_scale", make,
        [&](RankOutputs& o) {
          (void)teleport_residual_and_scale(o.x_new, x, o.leak, 0.15, 0.85, &teleport, o.w, scale,
                                            desc_)
              .get();
        },
        outs, in);
  }
  // The steps that write presized outputs in place: their device scalars' slots are taken before
  // the first kernel writes.
  const auto presized = [] {
    RankOutputs o;
    o.x_new = random_vector(kRows, 37, false);
    o.leak = Vector<double>(1, 0.125);
    return o;
  };
  // Emptying the pool of readback slots (release_device_resources) before every attempt makes each
  // step allocate a page of them (through the hook), as the first step of a process does.
  const auto empty_pool = [] { release_device_resources(); };
  run<RankOutputs>(
      "teleport_and_residual", presized,
      [&](RankOutputs& o) {
        (void)teleport_and_residual(o.x_new, x, o.leak, 0.15, 0.85, &teleport, desc_);
      },
      outs, in, empty_pool);
  run<RankOutputs>(
      "normalize_and_distance", presized,
      [&](RankOutputs& o) {
        NormalizedStep<double> step = normalize_and_distance(o.x_new, x, desc_);
        (void)step.norm.get();
        (void)step.change.get();
      },
      outs, in, empty_pool);
  run<RankOutputs>(
      "teleport_residual_and_scale, presized, an empty slot pool",
      [] {
        RankOutputs o;
        o.x_new = random_vector(kRows, 38, false);
        o.leak = Vector<double>(1, 0.125);
        o.w = random_vector(kRows, 39, false);
        return o;
      },
      [&](RankOutputs& o) {
        (void)teleport_residual_and_scale(o.x_new, x, o.leak, 0.15, 0.85, &teleport, o.w, scale,
                                          desc_)
            .get();
      },
      outs, in, empty_pool);
  // Inputs whose host arrays are not made yet (built with a fill, as PageRank's are): the host
  // steps make them before any output changes. Fresh ones before every attempt.
  Vector<double> xd, sd;
  const auto fresh_inputs = [&] {
    xd = Vector<double>(kRows, 0.25);
    sd = Vector<double>(kRows, 0.85);
  };
  run<RankOutputs>(
      "scale_and_leak with deferred inputs", [] { return RankOutputs{}; },
      [&](RankOutputs& o) { scale_and_leak(o.w, o.leak, xd, sd, desc_); }, outs,
      [&] { return key(snap(xd)) + key(snap(sd)); }, fresh_inputs);
}

// Dense inputs whose host arrays are not made yet: the host operation makes them before the
// output changes.
TEST_P(AllocFailureOps, DeferredDenseInputsFailCleanly) {
  DenseMatrix<double> P, Q;
  const auto fresh_inputs = [&] {
    P = DenseMatrix<double>(kRows, kK, 1.5);
    Q = DenseMatrix<double>(kRows, kK, -0.5);
  };
  const auto in = [&] { return key(snap(P)) + key(snap(Q)); };
  run<DenseMatrix<double>>(
      "ewise dense, deferred inputs", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) { ewise(C, Accum::none(), BinaryOp::Plus, P, Q, desc_); },
      dense_snap, in, fresh_inputs);
  const auto A = fresh_graph();
  DenseMatrix<double> B;
  run<DenseMatrix<double>>(
      "mxm, deferred B", [] { return DenseMatrix<double>(); },
      [&](DenseMatrix<double>& C) { mxm(C, semiring::plus_times<double>{}, A, B, desc_); },
      dense_snap, [&] { return key(snap(B)); }, [&] { B = DenseMatrix<double>(kCols, kK, 2.0); });
}

INSTANTIATE_TEST_SUITE_P(Backends, AllocFailureOps, ::testing::Values(Device::Cpu, Device::Cuda),
                         [](const ::testing::TestParamInfo<Device>& i) {
                           return std::string(i.param == Device::Cpu ? "Cpu" : "Cuda");
                         });

}  // namespace
}  // namespace spindle
