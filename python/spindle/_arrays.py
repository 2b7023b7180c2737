# SPDX-License-Identifier: Apache-2.0
"""Array conversions between numpy, DLPack producers (torch, cupy, jax, ...) and the engine.

The engine's vectors and matrices own host arrays: an input is copied into them once (numpy
arrays of the right dtype and layout are read in place for that copy), and results come back as
numpy arrays that took over the engine's storage, without a copy.

On the CUDA backend the engine keeps vectors and matrices on the device between operations, but
its public C++ API has no hook yet to adopt foreign device memory or to hand out its own, so a
tensor on a GPU is staged through host memory on the way in, and a result asked for "like" a GPU
tensor is moved back to that tensor's device on the way out. Host tensors are read without a
copy through DLPack.
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


def like(result, template):
    """`result` (a numpy array) as the same kind of array as `template`: a torch tensor on
    template's device for a torch input, a cupy array for a cupy input, else numpy."""
    mod = type(template).__module__.split(".")[0]
    if mod == "torch":
        import torch

        return torch.from_numpy(result).to(template.device)
    if mod == "cupy":
        import cupy

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
