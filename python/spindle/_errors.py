# SPDX-License-Identifier: Apache-2.0
"""Spindle's exceptions.

Every error Spindle raises derives from :class:`spindle.Error`, and also from the builtin
exception it is closest to, so ``except ValueError`` (or ``IndexError``, ``MemoryError``,
``NotImplementedError``, ``OSError``) catches it as well:

================== =============================== ==========================================
class              also a                          raised for
================== =============================== ==========================================
InvalidArgument    ValueError                      a bad option or value
DimensionMismatch  ValueError                      operand shapes that do not agree
IndexOutOfBounds   IndexError                      an index outside [0, n)
VertexNotFound     IndexError, KeyError            a vertex id the graph does not have
ParseError         ValueError                      a malformed file (``file``, ``line``)
Unsupported        NotImplementedError             valid, but not in this build or backend
OutOfMemory        MemoryError                     not enough host or device memory
DeviceError        RuntimeError                    a CUDA / cuBLAS / cuSPARSE failure (``code``)
FileError          OSError                         a file that cannot be read or written
FileNotFound       FileError, FileNotFoundError    a file that does not exist
Cancelled          --                              an algorithm's ``cancel`` callable said stop
================== =============================== ==========================================

Ctrl-C during a long call raises ``KeyboardInterrupt`` between two iterations, as Python does.
"""

__all__ = [
    "Error",
    "InvalidArgument",
    "DimensionMismatch",
    "IndexOutOfBounds",
    "VertexNotFound",
    "ParseError",
    "Unsupported",
    "OutOfMemory",
    "DeviceError",
    "FileError",
    "FileNotFound",
    "Cancelled",
]


class Error(Exception):
    """Base class of every exception Spindle raises."""

    __module__ = "spindle"


class InvalidArgument(Error, ValueError):
    """An argument has a value the operation cannot accept (a bad option, NaN where refused,
    weights of the wrong sign, ...)."""

    __module__ = "spindle"


class DimensionMismatch(Error, ValueError):
    """Operand shapes do not agree (e.g. ``mxv`` with ``len(u) != A.ncols``)."""

    __module__ = "spindle"


class IndexOutOfBounds(Error, IndexError):
    """An index lies outside ``[0, n)``."""

    __module__ = "spindle"


class VertexNotFound(IndexOutOfBounds, KeyError):
    """A vertex id (label) that the graph does not have: a source vertex, a personalization key.
    It is an ``IndexError`` and a ``KeyError``."""

    __module__ = "spindle"

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ParseError(Error, ValueError):
    """A file could not be parsed. ``file`` and ``line`` (1-based; 0 when the error has no
    line) say where; the message says what was expected."""

    __module__ = "spindle"
    file = ""
    line = 0


class Unsupported(Error, NotImplementedError):
    """The request is valid but this build, backend or format does not support it (the CUDA
    device in a build without CUDA, complex Matrix Market files, ...)."""

    __module__ = "spindle"


class OutOfMemory(Error, MemoryError):
    """Not enough host or device memory; the message says how much was needed."""

    __module__ = "spindle"


class DeviceError(Error, RuntimeError):
    """A CUDA runtime, cuBLAS or cuSPARSE call failed; ``code`` keeps the library's status."""

    __module__ = "spindle"
    code = 0


class FileError(Error, OSError):
    """A file could not be opened, read or written."""

    __module__ = "spindle"


class FileNotFound(FileError, FileNotFoundError):
    """A file that does not exist (also a ``FileNotFoundError``)."""

    __module__ = "spindle"


class Cancelled(Error):
    """An algorithm stopped because its ``cancel`` callable returned True."""

    __module__ = "spindle"
