// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file bind.hpp
/// @brief What the binding sources of the `spindle._core` extension share: the type-erased graph
/// and vector, the numpy conversions, run-time names of the enums, and the cancellation hook that
/// lets Ctrl-C stop an algorithm between two iterations.
///
/// The Python layer (python/spindle/*.py) hands this module contiguous arrays of the exact dtypes
/// asked for; the module copies them into the engine's containers once (the engine's graphs and
/// vectors own their storage and adopt no foreign memory), and hands results back by moving their
/// std::vector into the numpy array (no copy). On CUDA, vectors and dense operands may come as
/// DLPack capsules of device memory instead (the Python layer asks the producer for one on the
/// engine's stream): they are copied device to device (spindle/cuda/external.hpp), and results
/// asked for on the device go back as a DLPack-capable array that owns the engine's container.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "spindle/spindle.hpp"

namespace spindle::py {

namespace nb = nanobind;

/// The largest int32 index: beyond it a graph needs int64 indices.
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

/// Every graph type the library instantiates.
using AnyGraph = std::variant<Graph<std::int32_t, float>, Graph<std::int32_t, double>,
                              Graph<std::int32_t, Pattern>, Graph<std::int64_t, float>,
                              Graph<std::int64_t, double>, Graph<std::int64_t, Pattern>>;

/// The engine graph behind a Python `spindle.Graph` (copies share storage).
struct PyGraph {
  AnyGraph g;
};

/// Every vector element type the library instantiates.
using AnyVector =
    std::variant<Vector<float>, Vector<double>, Vector<std::int32_t>, Vector<std::int64_t>>;

/// A `spindle.Vector`: an engine vector (dense values plus an optional presence bitmap).
struct PyVector {
  AnyVector v;
};

/// A 1-D read-only host array of any dtype (the Python layer picks the dtype).
using Array1 = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
/// A 2-D read-only host array of any dtype, row-major.
using Array2 = nb::ndarray<nb::ro, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

/// Throws InvalidArgument naming `what` unless `a` holds elements of type T.
template <class T>
void require_dtype(const nb::dlpack::dtype& d, const char* what) {
  if (d != nb::dtype<T>()) {
    throw InvalidArgument(std::string(what) +
                          ": unexpected array dtype (internal conversion error)");
  }
}

/// A copy of a 1-D array as std::vector<T> (the dtype must be T).
template <class T>
std::vector<T> to_std(const Array1& a, const char* what) {
  require_dtype<T>(a.dtype(), what);
  const T* p = static_cast<const T*>(a.data());
  return std::vector<T>(p, p + a.shape(0));
}

/// A copy of a 2-D row-major array as a DenseMatrix<T> (the dtype must be T).
template <class T>
DenseMatrix<T> to_dense(const Array2& a, const char* what) {
  require_dtype<T>(a.dtype(), what);
  const T* p = static_cast<const T*>(a.data());
  const std::size_t n = a.shape(0) * a.shape(1);
  return DenseMatrix<T>(static_cast<std::int64_t>(a.shape(0)),
                        static_cast<std::int64_t>(a.shape(1)), std::vector<T>(p, p + n));
}

/// A numpy array that takes over `v`'s storage (no copy); the array owns it from now on.
template <class T>
nb::object numpy_from(std::vector<T>&& v, std::vector<std::size_t> shape = {}) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if (shape.empty()) shape.push_back(heap->size());
  return nb::cast(nb::ndarray<nb::numpy, T>(heap->data(), shape.size(), shape.data(), owner));
}

/// A numpy array that takes over a dense matrix's host storage (downloaded first if newer on the
/// device).
template <class T>
nb::object numpy_from(DenseMatrix<T>&& m) {
  const auto rows = static_cast<std::size_t>(m.rows());
  const auto cols = static_cast<std::size_t>(m.cols());
  return numpy_from(std::move(m.storage()), {rows, cols});
}

/// A read-only C-contiguous array in CUDA device memory (imported from a DLPack capsule).
using DeviceArray1 = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cuda>;
using DeviceArray2 = nb::ndarray<nb::ro, nb::ndim<2>, nb::c_contig, nb::device::cuda>;

/// True for a DLPack capsule (the Python layer's form of a CUDA array).
inline bool is_capsule(const nb::handle& h) { return PyCapsule_CheckExact(h.ptr()) != 0; }

/// A dense operand: a host array (copied once) or a DLPack capsule of CUDA memory (copied on the
/// device, no host round trip). The dtype must be T (the Python layer converts).
template <class T>
DenseMatrix<T> dense_arg(const nb::handle& h, const char* what) {
  if (is_capsule(h)) {
    DeviceArray2 d;
    if (!nb::try_cast(h, d)) {
      throw InvalidArgument(std::string(what) +
                            ": expected a 2-D C-contiguous array in CUDA memory");
    }
    require_dtype<T>(d.dtype(), what);
    return dense_from_device(static_cast<const T*>(d.data()), static_cast<std::int64_t>(d.shape(0)),
                             static_cast<std::int64_t>(d.shape(1)));
  }
  return to_dense<T>(nb::cast<Array2>(h), what);
}

/// A DLPack capsule of CUDA memory that owns `c`, a container whose newest copy is on the device:
/// no copy, and nothing else can change it. `shape` as numpy's. The engine's stream has drained,
/// so the data is ready on any stream (spindle._arrays wraps the capsule as a DLPack producer).
template <class C>
nb::object device_array_owning(C&& c, std::vector<std::size_t> shape) {
  using T = typename C::value_type;
  auto* heap = new C(std::move(c));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<C*>(p); });
  const T* p = device_pointer(*heap);  // synchronizes: the data is ready on every stream
  return nb::cast(nb::ndarray<T>(const_cast<T*>(p), shape.size(), shape.data(), owner, nullptr,
                                 nb::dtype<T>(), nb::device::cuda::value, 0));
}

/// A dense result: a DLPack capsule of CUDA memory owning it when `on_device`, else a numpy
/// array.
template <class T>
nb::object dense_result(DenseMatrix<T>&& m, bool on_device) {
  if (on_device) {
    std::vector<std::size_t> shape{static_cast<std::size_t>(m.rows()),
                                   static_cast<std::size_t>(m.cols())};
    return device_array_owning(std::move(m), std::move(shape));
  }
  return numpy_from(std::move(m));
}

/// "float32", "float64", "int32", "int64" or "pattern" for a C++ element type.
template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, float>) {
    return "float32";
  } else if constexpr (std::is_same_v<T, double>) {
    return "float64";
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return "int32";
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return "int64";
  } else {
    static_assert(std::is_same_v<T, Pattern>);
    return "pattern";
  }
}

/// Calls f(T{}) for T named by "float32" / "float64".
template <class F>
decltype(auto) visit_real(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(float{});
  if (dtype == "float64") return f(double{});
  throw InvalidArgument("dtype must be float32 or float64, got " + dtype);
}

/// Calls f(I{}) for I named by "int32" / "int64".
template <class F>
decltype(auto) visit_index(const std::string& dtype, F&& f) {
  if (dtype == "int32") return f(std::int32_t{});
  if (dtype == "int64") return f(std::int64_t{});
  throw InvalidArgument("index dtype must be int32 or int64, got " + dtype);
}

/// Calls f(V{}) for V named by "float32" / "float64" / "pattern".
template <class F>
decltype(auto) visit_value(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(float{});
  if (dtype == "float64") return f(double{});
  if (dtype == "pattern") return f(Pattern{});
  throw InvalidArgument("value dtype must be float32, float64 or pattern, got " + dtype);
}

SemiringKind parse_semiring(const std::string& name);
BinaryOp parse_binary(const std::string& name);
UnaryOp parse_unary(const std::string& name);
MonoidKind parse_monoid(const std::string& name);
Device parse_device_name(const std::string& name);
MxvKernel parse_mxv(const std::string& name);
MxmKernel parse_mxm(const std::string& name);
SddmmKernel parse_sddmm(const std::string& name);
SpgemmKernel parse_spgemm(const std::string& name);
/// Accum::none() for None, else the accumulator of that binary operator's name.
Accum parse_accum(const nb::handle& accum);

/// The hook an algorithm calls before every iteration, while the binding has released the GIL:
/// it takes the GIL back, lets Python run its signal handlers (a pending Ctrl-C raises
/// KeyboardInterrupt, which propagates out of the algorithm as nb::python_error), then asks the
/// user's `cancel` callable, if any (true: the algorithm throws spindle::Cancelled). `user` is
/// borrowed: the calling binding keeps it alive for the call.
std::function<bool()> cancel_hook(PyObject* user);

/// The mask of an operation: Mask{} when `vector` is null.
Mask make_mask(const PyVector* vector, bool structural, bool complement);

void bind_errors(nb::module_& m);
void bind_types(nb::module_& m);
void bind_graph(nb::module_& m);
void bind_vector(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_algorithms(nb::module_& m);
void bind_structure(nb::module_& m);
void bind_centrality(nb::module_& m);
void bind_networkx(nb::module_& m);

}  // namespace spindle::py
