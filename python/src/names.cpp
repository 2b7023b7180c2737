// SPDX-License-Identifier: Apache-2.0
/// @file names.cpp
/// @brief Run-time names of the engine's enums (as the engine's to_string spells them), the mask
/// and cancellation helpers shared by the binding sources.

#include <nanobind/stl/string.h>

#include <string>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

// The enum value whose to_string is `name`, trying `first`..`last` in order.
template <class E>
E parse_enum(const std::string& name, E first, E last, const char* what) {
  std::string known;
  for (int k = static_cast<int>(first); k <= static_cast<int>(last); ++k) {
    const E e = static_cast<E>(k);
    if (name == to_string(e)) return e;
    known += (known.empty() ? "" : ", ") + std::string(to_string(e));
  }
  throw InvalidArgument("unknown " + std::string(what) + " '" + name + "' (known: " + known + ")");
}

}  // namespace

SemiringKind parse_semiring(const std::string& name) {
  return parse_enum(name, SemiringKind::PlusTimes, SemiringKind::MaxMin, "semiring");
}
BinaryOp parse_binary(const std::string& name) {
  return parse_enum(name, BinaryOp::First, BinaryOp::Pair, "binary operator");
}
UnaryOp parse_unary(const std::string& name) {
  return parse_enum(name, UnaryOp::Identity, UnaryOp::IsNonzero, "unary operator");
}
MonoidKind parse_monoid(const std::string& name) {
  if (name == "plus") return MonoidKind::Plus;
  if (name == "times") return MonoidKind::Times;
  if (name == "min") return MonoidKind::Min;
  if (name == "max") return MonoidKind::Max;
  if (name == "lor") return MonoidKind::LOr;
  if (name == "land") return MonoidKind::LAnd;
  if (name == "any") return MonoidKind::Any;
  throw InvalidArgument("unknown monoid '" + name +
                        "' (known: plus, times, min, max, lor, land, any)");
}
Device parse_device_name(const std::string& name) {
  if (auto d = parse_device(name)) return *d;
  throw InvalidArgument("unknown device '" + name + "' (known: auto, cpu, cuda)");
}
MxvKernel parse_mxv(const std::string& name) {
  if (auto k = parse_mxv_kernel(name)) return *k;
  return parse_enum(name, MxvKernel::Auto, MxvKernel::Cusparse, "mxv kernel");
}
MxmKernel parse_mxm(const std::string& name) {
  if (auto k = parse_mxm_kernel(name)) return *k;
  return parse_enum(name, MxmKernel::Auto, MxmKernel::Spmv, "mxm kernel");
}
SddmmKernel parse_sddmm(const std::string& name) {
  if (auto k = parse_sddmm_kernel(name)) return *k;
  return parse_enum(name, SddmmKernel::Auto, SddmmKernel::Cusparse, "sddmm kernel");
}
SpgemmKernel parse_spgemm(const std::string& name) {
  if (auto k = parse_spgemm_kernel(name)) return *k;
  return parse_enum(name, SpgemmKernel::Auto, SpgemmKernel::MaskedDot, "sparse mxm kernel");
}

Accum parse_accum(const nb::handle& accum) {
  if (accum.is_none()) return Accum::none();
  return Accum::with(parse_binary(nb::cast<std::string>(accum)));
}

std::function<bool()> cancel_hook(PyObject* user) {
  return [user]() -> bool {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    if (user == nullptr || user == Py_None) return false;
    PyObject* r = PyObject_CallNoArgs(user);
    if (r == nullptr) throw nb::python_error();
    const int stop = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (stop < 0) throw nb::python_error();
    return stop != 0;
  };
}

Mask make_mask(const PyVector* vector, bool structural, bool complement) {
  if (vector == nullptr) return Mask();
  return std::visit(
      [&](const auto& v) {
        return structural ? Mask::structural(v, complement) : Mask::value(v, complement);
      },
      vector->v);
}

}  // namespace spindle::py
