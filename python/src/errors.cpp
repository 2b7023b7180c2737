// SPDX-License-Identifier: Apache-2.0
/// @file errors.cpp
/// @brief spindle::Error and its subclasses raised as the Python classes of spindle._errors
/// (rooted at spindle.Error, each also deriving from the builtin it is closest to).

#include <exception>
#include <new>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

// The classes, looked up once when the module is imported (they live as long as the process).
struct Classes {
  PyObject* error = nullptr;
  PyObject* invalid = nullptr;
  PyObject* dimension = nullptr;
  PyObject* index = nullptr;
  PyObject* parse = nullptr;
  PyObject* unsupported = nullptr;
  PyObject* memory = nullptr;
  PyObject* device = nullptr;
  PyObject* cancelled = nullptr;
};
Classes classes;

// Raises `cls(message)` with extra attributes set on the instance.
void raise_with(PyObject* cls, const char* message,
                std::initializer_list<std::pair<const char*, nb::object>> attrs) {
  nb::object exc = nb::steal(PyObject_CallFunction(cls, "s", message));
  if (!exc.is_valid()) return;  // the constructor failed: its error is set
  for (const auto& [name, value] : attrs) nb::setattr(exc, name, value);
  PyErr_SetObject(cls, exc.ptr());
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const ParseError& e) {
    raise_with(classes.parse, e.what(),
               {{"file", nb::str(e.file().c_str())}, {"line", nb::int_(e.line())}});
  } catch (const DimensionMismatch& e) {
    PyErr_SetString(classes.dimension, e.what());
  } catch (const IndexOutOfBounds& e) {
    PyErr_SetString(classes.index, e.what());
  } catch (const InvalidArgument& e) {
    PyErr_SetString(classes.invalid, e.what());
  } catch (const Unsupported& e) {
    PyErr_SetString(classes.unsupported, e.what());
  } catch (const OutOfMemory& e) {
    PyErr_SetString(classes.memory, e.what());
  } catch (const DeviceError& e) {
    raise_with(classes.device, e.what(), {{"code", nb::int_(e.code())}});
  } catch (const Cancelled& e) {
    PyErr_SetString(classes.cancelled, e.what());
  } catch (const Error& e) {
    PyErr_SetString(classes.error, e.what());
  }
  // Anything else propagates to nanobind's own translators (std::bad_alloc: MemoryError, ...).
}

}  // namespace

void bind_errors(nb::module_& m) {
  nb::module_ errors = nb::module_::import_("spindle._errors");
  auto get = [&](const char* name) { return nb::object(errors.attr(name)).release().ptr(); };
  classes.error = get("Error");
  classes.invalid = get("InvalidArgument");
  classes.dimension = get("DimensionMismatch");
  classes.index = get("IndexOutOfBounds");
  classes.parse = get("ParseError");
  classes.unsupported = get("Unsupported");
  classes.memory = get("OutOfMemory");
  classes.device = get("DeviceError");
  classes.cancelled = get("Cancelled");
  nb::register_exception_translator(translate);
  (void)m;
}

}  // namespace spindle::py
