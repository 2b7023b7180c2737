# SPDX-License-Identifier: Apache-2.0
"""Array conversions between numpy, DLPack producers (torch, cupy, jax, ...) and the engine.

The engine's vectors and matrices own their storage: a host input is copied into them once
(numpy arrays of the right dtype and layout are read in place for that copy), and host results
come back as numpy arrays that took over the engine's storage, without a copy. Host tensors are
read without a copy through DLPack.

On a CUDA build with a GPU, a torch or cupy tensor in CUDA memory goes to the engine without a
host round trip: the producer is asked for a DLPack capsule on the engine's CUDA stream
(``__dlpack__(stream=...)``, so its pending work is ordered before the engine reads it), and the
engine copies it device to device (spindle/cuda/external.hpp). Dense results of such inputs come
back as tensors of the same library on the same device that own the engine's device memory (no
copy); a spindle.Vector whose newest copy is on the device exports a device copy through DLPack.
Other GPU producers (jax, ...) and builds without CUDA stage through host memory.
"""

import numpy as np

from ._errors import InvalidArgument, Unsupported

_DLPACK_CPU = 1
_DLPACK_CUDA = 2
_DLPACK_CUDA_HOST = 3
_DLPACK_ROCM = 10
_DLPACK_CUDA_MANAGED = 13


def dlpack_device(x):
    """(device_type, device_id) of a DLPack producer, or None for other objects."""
    get = getattr(x, "__dlpack_device__", None)
    if get is None or isinstance(x, np.ndarray):
        return None
    try:
        kind, index = get()
    except Exception:  # noqa: BLE001 - a producer that cannot say is treated as host data
        return None
    return int(kind), int(index)


def is_device_array(x):
    """True for a DLPack producer whose data lives in GPU memory (CUDA, ROCm, managed)."""
    dev = dlpack_device(x)
    return dev is not None and dev[0] in (_DLPACK_CUDA, _DLPACK_ROCM, _DLPACK_CUDA_MANAGED)


def _framework(x):
    return type(x).__module__.split(".")[0]


def device_capsule(x, dtype=None, *, ndim=None, name="array"):
    """A DLPack capsule of x's CUDA memory, C-contiguous, of `dtype` (converted on the device),
    ready on the engine's stream; None when x is not a torch / cupy CUDA array or the engine has
    no CUDA device (the caller then stages x through the host)."""
    dev = dlpack_device(x)
    if dev is None or dev[0] != _DLPACK_CUDA:  # managed memory is staged through the host
        return None
    mod = _framework(x)
    if mod not in ("torch", "cupy"):
        return None
    from . import _core

    if not _core.cuda_available():
        return None
    if dev[1] != 0:
        raise Unsupported(
            f"{name} is on cuda:{dev[1]}: Spindle runs on the current CUDA device (cuda:0 here); "
            "select another GPU with CUDA_VISIBLE_DEVICES before importing spindle"
        )
    if ndim is not None and x.ndim != ndim:
        raise InvalidArgument(f"{name} must have {ndim} dimension(s), got shape {tuple(x.shape)}")
    if mod == "torch":
        import torch

        x = x.detach()
        if dtype is not None:
            x = x.to(getattr(torch, np.dtype(dtype).name))
        x = x.contiguous()
    else:
        import cupy

        x = cupy.ascontiguousarray(x, dtype=None if dtype is None else np.dtype(dtype))
    return x.__dlpack__(stream=_core._engine_stream())


def host_array(x, dtype=None, *, ndim=None, name="array"):
    """A C-contiguous numpy array holding x (numpy, DLPack producer, list, scalar sequence).

    No copy when x already is a contiguous host array of that dtype (numpy, or a CPU tensor
    through DLPack). GPU tensors are copied to the host (see the module docstring).
    """
    if not isinstance(x, np.ndarray):
        if hasattr(x, "detach") and callable(x.detach):  # torch: drop autograd first
            x = x.detach()
        dev = dlpack_device(x)
        if dev is not None:
            if dev[0] in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
                x = np.from_dlpack(x)
            else:
                x = _device_to_host(x)
        else:
            x = np.asarray(x)
    if dtype is not None:
        x = np.ascontiguousarray(x, dtype=dtype)
    else:
        x = np.ascontiguousarray(x)
    if ndim is not None and x.ndim != ndim:
        raise InvalidArgument(f"{name} must have {ndim} dimension(s), got shape {x.shape}")
    return x


def _device_to_host(x):
    """A host numpy copy of a GPU tensor."""
    if hasattr(x, "cpu") and callable(x.cpu):  # torch
        return x.cpu().numpy()
    if hasattr(x, "get") and callable(x.get):  # cupy
        return x.get()
    try:
        return np.from_dlpack(x, device="cpu", copy=True)
    except Exception as exc:  # noqa: BLE001
        raise Unsupported(
            f"cannot copy a {type(x).__name__} from its device to the host: {exc}"
        ) from exc


class _DeviceResult:
    """A CUDA array the engine made, as a DLPack producer (the C++ side hands over a capsule,
    whose data is ready on every stream: the engine synchronized before exporting it)."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack_device__(self):
        return (_DLPACK_CUDA, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("this engine result was exported already")
        return capsule


def like(result, template):
    """`result` (a numpy array, or a CUDA array the engine made from a CUDA input) as the same
    kind of array as `template`: a torch tensor on template's device for a torch input, a cupy
    array for a cupy input, else numpy. A CUDA result is taken over without a copy."""
    mod = _framework(template)
    on_device = not isinstance(result, np.ndarray)
    if on_device:
        result = _DeviceResult(result)
    if mod == "torch":
        import torch

        if on_device:
            return torch.from_dlpack(result)
        return torch.from_numpy(result).to(template.device)
    if mod == "cupy":
        import cupy

        if on_device:
            return cupy.from_dlpack(result)
        with cupy.cuda.Device(template.device.id):
            return cupy.asarray(result)
    return result


def check_device_argument(device):
    """The engine's device name for `device` ('auto', 'cpu', 'cuda', 'cuda:0', a torch.device).

    The engine runs on the calling thread's current CUDA device: naming another one raises
    Unsupported (there is no public device-selection hook yet)."""
    if device is None:
        return "auto"
    text = str(device)
    if text in ("auto", "cpu", "cuda"):
        return text
    if text.startswith("cuda:"):
        try:
            index = int(text[5:])
        except ValueError:
            raise InvalidArgument(f"unknown device {device!r}") from None
        if index != 0:
            raise Unsupported(
                f"device {text!r}: Spindle runs on the current CUDA device (cuda:0 here); "
                "select another GPU with CUDA_VISIBLE_DEVICES before importing spindle"
            )
        return "cuda"
    raise InvalidArgument(f"unknown device {device!r} (use 'auto', 'cpu' or 'cuda')")


def real_dtype(dtype, default="float64"):
    """'float32' or 'float64' for a numpy dtype-like (None: default)."""
    if dtype is None:
        return default
    d = np.dtype(dtype)
    if d == np.float32:
        return "float32"
    if d == np.float64:
        return "float64"
    raise InvalidArgument(f"dtype must be float32 or float64, got {d}")
