// SPDX-License-Identifier: Apache-2.0
// CPU builds: the CUDA backend's element-wise, reduction, assignment and graph-building entries
// (backend.hpp), each throwing Unsupported.
#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/index_backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/rank_backend.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw Unsupported(std::string("spindle was built without CUDA: ") + op + " needs --device cpu");
}
}  // namespace

template <class T>
void ewise_add(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&, const Vector<T>&, bool) {
  no_cuda("ewise_add");
}
template <class T>
void ewise_mult(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&, const Vector<T>&,
                bool) {
  no_cuda("ewise_mult");
}
template <class T>
void ewise(DenseMatrix<T>&, Accum, BinaryOp, const DenseMatrix<T>&, const DenseMatrix<T>&) {
  no_cuda("ewise");
}
template <class T>
void apply(Vector<T>&, const Mask&, Accum, Unary<T>, const Vector<T>&, bool) {
  no_cuda("apply");
}
template <class T>
void apply(DenseMatrix<T>&, Accum, Unary<T>, const DenseMatrix<T>&) {
  no_cuda("apply");
}
template <class T>
void add_row_bias(DenseMatrix<T>&, const Vector<T>&, Unary<T>) {
  no_cuda("add_row_bias");
}
template <class T, class I, class V>
Graph<I, T> apply(Unary<T>, const Graph<I, V>&) {
  no_cuda("apply");
}
template <class T, class I, class V>
Graph<I, T> scale(const Vector<T>&, const Graph<I, V>&, const Vector<T>&) {
  no_cuda("scale");
}
template <class I, class V>
Graph<I, V> add_identity(const Graph<I, V>&) {
  no_cuda("add_identity");
}
template <class T>
T reduce(MonoidKind, const Vector<T>&) {
  no_cuda("reduce");
}
template <class T>
T l1_distance(const Vector<T>&, const Vector<T>&) {
  no_cuda("l1_distance");
}
template <class T, class I, class V>
void reduce_rows(Vector<T>&, const Mask&, Accum, MonoidKind, const Graph<I, V>&, bool, bool) {
  no_cuda("reduce_rows");
}
template <class T>
void apply_index(Vector<T>&, const Mask&, Accum, const Vector<T>&, T, bool) {
  no_cuda("apply_index");
}
template <class T>
void assign(Vector<T>&, const Mask&, Accum, T, bool) {
  no_cuda("assign");
}
template <class T>
void assign(Vector<T>&, const Mask&, Accum, T, const std::vector<std::int64_t>&, bool) {
  no_cuda("assign");
}
template <class T>
void assign(Vector<T>&, const Mask&, Accum, const Vector<T>&, const std::vector<std::int64_t>&,
            bool) {
  no_cuda("assign");
}
template <class T>
void assign(Vector<T>&, const Mask&, Accum, const Vector<T>&, bool) {
  no_cuda("assign");
}

#define SPINDLE_INSTANTIATE_STUB_VECTOR_(T)                                                    \
  template void ewise_add<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,       \
                             const Vector<T>&, bool);                                          \
  template void ewise_mult<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,      \
                              const Vector<T>&, bool);                                         \
  template void apply<T>(Vector<T>&, const Mask&, Accum, Unary<T>, const Vector<T>&, bool);    \
  template T reduce<T>(MonoidKind, const Vector<T>&);                                          \
  template T l1_distance<T>(const Vector<T>&, const Vector<T>&);                               \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, bool);                            \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, const std::vector<std::int64_t>&, \
                          bool);                                                               \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&,                    \
                          const std::vector<std::int64_t>&, bool);                             \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, bool);             \
  SPINDLE_INSTANTIATE_INDEX_APPLY_BACKEND(T)
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_STUB_VECTOR_)

#define SPINDLE_INSTANTIATE_STUB_DENSE_(T)                                         \
  template void ewise<T>(DenseMatrix<T>&, Accum, BinaryOp, const DenseMatrix<T>&,  \
                         const DenseMatrix<T>&);                                   \
  template void apply<T>(DenseMatrix<T>&, Accum, Unary<T>, const DenseMatrix<T>&); \
  template void add_row_bias<T>(DenseMatrix<T>&, const Vector<T>&, Unary<T>);
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_STUB_DENSE_)

#define SPINDLE_INSTANTIATE_STUB_GRAPH_RESULT_(T, I, V)                                        \
  template Graph<I, T> apply<T, I, V>(Unary<T>, const Graph<I, V>&);                           \
  template Graph<I, T> scale<T, I, V>(const Vector<T>&, const Graph<I, V>&, const Vector<T>&); \
  template void reduce_rows<T, I, V>(Vector<T>&, const Mask&, Accum, MonoidKind,               \
                                     const Graph<I, V>&, bool, bool);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_INSTANTIATE_STUB_GRAPH_RESULT_)

#define SPINDLE_INSTANTIATE_STUB_GRAPH_(I, V) \
  template Graph<I, V> add_identity<I, V>(const Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_INSTANTIATE_STUB_GRAPH_)

}  // namespace spindle::detail::cuda

namespace spindle::detail::cuda {

template <class T>
void scale_and_leak(Vector<T>&, Vector<T>&, const Vector<T>&, const Vector<T>&) {
  throw Unsupported("spindle was built without CUDA: scale_and_leak needs --device cpu");
}
template <class T>
T teleport_and_residual(Vector<T>&, const Vector<T>&, const Vector<T>&, double, double,
                        const Vector<T>*) {
  throw Unsupported("spindle was built without CUDA: teleport_and_residual needs --device cpu");
}
template <class T>
PendingScalar<T> teleport_residual_and_scale(Vector<T>&, const Vector<T>&, Vector<T>&, double,
                                             double, const Vector<T>*, Vector<T>&,
                                             const Vector<T>&) {
  throw Unsupported(
      "spindle was built without CUDA: teleport_residual_and_scale needs --device cpu");
}
template <class T>
NormalizedStep<T> normalize_and_distance(Vector<T>&, const Vector<T>&) {
  throw Unsupported("spindle was built without CUDA: normalize_and_distance needs --device cpu");
}
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_BACKEND)
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_STEP_BACKEND)

}  // namespace spindle::detail::cuda
