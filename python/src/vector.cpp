// SPDX-License-Identifier: Apache-2.0
/// @file vector.cpp
/// @brief `spindle.Vector`: the engine's vector (every index has a value slot, and a presence
/// bitmap says which entries exist), with numpy and DLPack conversions.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

template <class F>
decltype(auto) visit_vector_dtype(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(float{});
  if (dtype == "float64") return f(double{});
  if (dtype == "int32") return f(std::int32_t{});
  if (dtype == "int64") return f(std::int64_t{});
  throw InvalidArgument("vector dtype must be float32, float64, int32 or int64, got " + dtype);
}

// The vector dtype name (visit_vector_dtype's) of a DLPack dtype; "" for any other.
std::string vector_dtype_name(const nb::dlpack::dtype& t) {
  if (t == nb::dtype<float>()) return "float32";
  if (t == nb::dtype<double>()) return "float64";
  if (t == nb::dtype<std::int32_t>()) return "int32";
  if (t == nb::dtype<std::int64_t>()) return "int64";
  return "";
}

template <class T>
T scalar_as(const nb::handle& h) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(nb::cast<double>(h));
  } else {
    return static_cast<T>(nb::cast<std::int64_t>(h));
  }
}

// A copy of v's values with absent entries set to `fill` (None: refused unless v is full).
template <class T>
nb::object to_numpy_typed(const Vector<T>& v, const nb::handle& fill) {
  std::vector<T> values = v.values();
  const std::vector<std::uint8_t>& present = v.bitmap();
  if (!present.empty()) {
    if (fill.is_none()) {
      const std::int64_t absent = v.size() - v.nvals();
      if (absent > 0) {
        throw InvalidArgument("the vector has " + std::to_string(absent) +
                              " absent entries: pass fill= (the value they should take) or use "
                              "to_masked()");
      }
    } else {
      const T f = scalar_as<T>(fill);
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (present[i] == 0) values[i] = f;
      }
    }
  }
  return numpy_from(std::move(values));
}

std::string residency_name(Residency r) {
  switch (r) {
    case Residency::Host:
      return "host";
    case Residency::Both:
      return "both";
    case Residency::Device:
      return "device";
  }
  return "?";
}

}  // namespace

void bind_vector(nb::module_& m) {
  nb::class_<PyVector>(
      m, "Vector",
      "A vector of the engine: n value slots and a presence bitmap (GraphBLAS 'bitmap'\n"
      "storage). A full vector has every entry present; operations follow GraphBLAS\n"
      "semantics on absent entries (they take no part, and an output entry computed from no\n"
      "terms is absent). Element types: float32, float64, int32, int64.\n\n"
      "Make one with spindle.Vector.from_numpy(array) (a numpy masked array gives absent\n"
      "entries), Vector.full(n, fill) or Vector.empty(n); read it with to_numpy(fill=...),\n"
      "to_masked(), np.asarray(v) (full vectors only) or v[i] (None when absent). On the CUDA\n"
      "backend an operation's output stays on the device until the host reads it, so chained\n"
      "operations move no vector between host and device.")
      .def_static(
          "_from_arrays",
          [](const Array1& values, const std::optional<Array1>& present, const std::string& dtype) {
            return visit_vector_dtype(dtype, [&](auto t) {
              using T = decltype(t);
              Vector<T> v(to_std<T>(values, "values"));
              if (present) {
                std::vector<std::uint8_t> bitmap = to_std<std::uint8_t>(*present, "present");
                if (static_cast<std::int64_t>(bitmap.size()) != v.size()) {
                  throw DimensionMismatch("Vector: " + std::to_string(bitmap.size()) +
                                          " presence flags for " + std::to_string(v.size()) +
                                          " values");
                }
                for (auto& b : bitmap) b = b != 0 ? 1 : 0;
                v.bitmap() = std::move(bitmap);
                v.compact();
              }
              return PyVector{std::move(v)};
            });
          },
          nb::arg("values"), nb::arg("present").none(), nb::arg("dtype"))
      .def_static(
          "_from_device",
          [](const nb::handle& capsule) {
            DeviceArray1 d;
            if (!is_capsule(capsule) || !nb::try_cast(capsule, d)) {
              throw InvalidArgument(
                  "a vector from device memory needs a 1-D C-contiguous CUDA array");
            }
            const auto n = static_cast<std::int64_t>(d.shape(0));
            const std::string dtype = vector_dtype_name(d.dtype());
            if (dtype.empty()) {
              throw InvalidArgument(
                  "a vector holds float32, float64, int32 or int64 (internal conversion error)");
            }
            nb::gil_scoped_release release;
            return visit_vector_dtype(dtype, [&](auto x) {
              using T = decltype(x);
              return PyVector{vector_from_device(static_cast<const T*>(d.data()), n)};
            });
          },
          nb::arg("capsule"),
          "A full vector copied on the device from a DLPack capsule of CUDA memory (internal:\n"
          "spindle.vector(tensor) calls it).")
      .def(
          "_device_export",
          [](const PyVector& v) {
            return std::visit(
                [](const auto& x) {
                  auto copy = x;  // a device-to-device copy the exported array owns
                  const auto n = static_cast<std::size_t>(copy.size());
                  return device_array_owning(std::move(copy), {n});
                },
                v.v);
          },
          "A DLPack capsule of CUDA memory owning a device copy of a full vector's values\n"
          "(internal: the DLPack protocol of a vector whose newest copy is on the device).")
      .def_static(
          "full",
          [](std::int64_t n, const nb::handle& fill, const std::string& dtype) {
            return visit_vector_dtype(dtype, [&](auto t) {
              using T = decltype(t);
              return PyVector{Vector<T>(n, scalar_as<T>(fill))};
            });
          },
          nb::arg("n"), nb::arg("fill") = 0, nb::arg("dtype") = "float64",
          "A full vector of n entries, all equal to fill (no memory is touched until used).")
      .def_static(
          "empty",
          [](std::int64_t n, const std::string& dtype) {
            return visit_vector_dtype(dtype, [&](auto t) {
              using T = decltype(t);
              return PyVector{Vector<T>::empty(n)};
            });
          },
          nb::arg("n"), nb::arg("dtype") = "float64",
          "A vector of n absent entries (an empty GraphBLAS vector).")
      .def_prop_ro(
          "size",
          [](const PyVector& v) { return std::visit([](const auto& x) { return x.size(); }, v.v); },
          "Number of entries (present or not).")
      .def(
          "__len__",
          [](const PyVector& v) { return std::visit([](const auto& x) { return x.size(); }, v.v); })
      .def_prop_ro(
          "dtype",
          [](const PyVector& v) {
            return std::visit(
                [](const auto& x) {
                  return std::string(dtype_name<typename std::decay_t<decltype(x)>::value_type>());
                },
                v.v);
          },
          "'float32', 'float64', 'int32' or 'int64'.")
      .def_prop_ro(
          "nvals",
          [](const PyVector& v) {
            return std::visit([](const auto& x) { return x.nvals(); }, v.v);
          },
          "Number of present entries.")
      .def_prop_ro(
          "is_full",
          [](const PyVector& v) {
            return std::visit([](const auto& x) { return x.is_full(); }, v.v);
          },
          "True when every entry is present.")
      .def_prop_ro(
          "residency",
          [](const PyVector& v) {
            return std::visit([](const auto& x) { return residency_name(x.residency()); }, v.v);
          },
          "Where the current data lives: 'host', 'device' or 'both'.")
      .def(
          "to_numpy",
          [](const PyVector& v, const nb::handle& fill) {
            return std::visit([&](const auto& x) { return to_numpy_typed(x, fill); }, v.v);
          },
          nb::arg("fill").none() = nb::none(),
          "A numpy copy of the values. Absent entries take `fill`; without it a vector with\n"
          "absent entries raises spindle.InvalidArgument (a ValueError).")
      .def(
          "present",
          [](const PyVector& v) {
            return std::visit(
                [](const auto& x) {
                  const std::vector<std::uint8_t>& b = x.bitmap();
                  std::vector<std::uint8_t> out =
                      b.empty() ? std::vector<std::uint8_t>(static_cast<std::size_t>(x.size()), 1)
                                : b;
                  return numpy_from(std::move(out));
                },
                v.v);
          },
          "A uint8 numpy array: 1 where the entry is present.")
      .def(
          "__getitem__",
          [](const PyVector& v, std::int64_t i) -> nb::object {
            return std::visit(
                [&](const auto& x) -> nb::object {
                  if (i < 0) i += x.size();
                  if (i < 0 || i >= x.size()) {
                    throw IndexOutOfBounds("Vector index " + std::to_string(i) +
                                           " is outside [0, " + std::to_string(x.size()) + ")");
                  }
                  if (!x.present(i)) return nb::none();
                  return nb::cast(x[i]);
                },
                v.v);
          },
          nb::arg("i"), "Entry i, or None when it is absent.")
      .def(
          "copy", [](const PyVector& v) { return PyVector{v.v}; },
          "A copy (on the device when the device copy is current).")
      .def(
          "sync_to_host",
          [](const PyVector& v) {
            nb::gil_scoped_release release;
            std::visit([](const auto& x) { x.sync_to_host(); }, v.v);
          },
          "Downloads the device copy now if it is newer (reads do it lazily).")
      .def("__repr__", [](const PyVector& v) {
        return std::visit(
            [](const auto& x) {
              using T = typename std::decay_t<decltype(x)>::value_type;
              return "<spindle.Vector size=" + std::to_string(x.size()) +
                     " nvals=" + std::to_string(x.nvals()) + " dtype=" + dtype_name<T>() +
                     " residency=" + residency_name(x.residency()) + ">";
            },
            v.v);
      });
}

}  // namespace spindle::py
