"""Reproduce: building a CUDA extension where torch finds no CUDA toolkit.

``torch.utils.cpp_extension`` decides once, at import, where the CUDA
toolkit is: ``$CUDA_HOME`` or ``$CUDA_PATH``, else the folder above ``nvcc``
on ``PATH``, else ``/usr/local/cuda`` if it exists; with a CPU-only torch
build it is always None. The first CUDA-specific path a build needs
(``CUDAExtension``'s library dirs, nvcc for ``load()``) then raises
``OSError: CUDA_HOME environment variable is not set. Please set it to your
CUDA install root.`` This is what ``pip install flash-attn``, DeepSpeed op
builds, apex and every ``setup.py`` with a ``CUDAExtension`` run into on a
machine or image with the CUDA runtime wheels but no toolkit (no ``nvcc``).

The script writes a tiny extension (a C++ binding and a ``.cu`` kernel) and
runs its ``setup.py build_ext`` in a child process whose environment has no
``CUDA_HOME``/``CUDA_PATH`` and a ``PATH`` without any folder that holds
``nvcc``. On a CPU-only torch build that is already the whole story. With a
CUDA build of torch on a host that has a toolkit in ``/usr/local/cuda``, torch
would still find it through that last fallback, so the child is told to hide
it (``ERRKB_HIDE_CUDA_TOOLKIT=1``: the generated ``setup.py`` resets
``cpp_extension.CUDA_HOME`` to None, as on a host without a toolkit).

CPU only (launcher: python); needs torch and setuptools.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

BINDING = """\
#include <torch/extension.h>

torch::Tensor scale_add_cuda(torch::Tensor x, torch::Tensor y, double alpha);

torch::Tensor scale_add(torch::Tensor x, torch::Tensor y, double alpha) {
  TORCH_CHECK(x.is_cuda() && y.is_cuda(), "scale_add expects CUDA tensors");
  return scale_add_cuda(x, y, alpha);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale_add", &scale_add); }
"""

KERNEL = """\
#include <torch/extension.h>

__global__ void scale_add_kernel(const float* x, const float* y, float* out, float alpha, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}

torch::Tensor scale_add_cuda(torch::Tensor x, torch::Tensor y, double alpha) {
  auto out = torch::empty_like(x);
  int64_t n = x.numel();
  scale_add_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                             out.data_ptr<float>(), (float)alpha, n);
  return out;
}
"""

SETUP = """\
import os

import torch.utils.cpp_extension as cpp_extension
from setuptools import setup

if os.environ.get("ERRKB_HIDE_CUDA_TOOLKIT") == "1" and cpp_extension.CUDA_HOME:
    cpp_extension.CUDA_HOME = None  # a host without a CUDA toolkit

setup(
    name="scale_add_ext",
    ext_modules=[
        cpp_extension.CUDAExtension("scale_add_ext", ["scale_add.cpp", "scale_add_kernel.cu"])
    ],
    cmdclass={"build_ext": cpp_extension.BuildExtension},
)
"""


def scrubbed_env() -> dict[str, str]:
    """The caller's environment without any way for torch to find a CUDA toolkit."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    folders = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(f for f in folders if f and not Path(f, "nvcc").exists())
    env["ERRKB_HIDE_CUDA_TOOLKIT"] = "1"
    return env


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        Path(work, "scale_add.cpp").write_text(BINDING)
        Path(work, "scale_add_kernel.cu").write_text(KERNEL)
        Path(work, "setup.py").write_text(SETUP)
        build = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            env=scrubbed_env(),
        )
    return build.returncode


if __name__ == "__main__":
    sys.exit(main())
