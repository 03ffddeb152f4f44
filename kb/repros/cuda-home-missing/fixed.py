"""The fix applied: build only against a CUDA toolkit that torch can use.

The article's checks, in the order a build script should make them:

1. ``torch.version.cuda`` is None: torch is a CPU-only build and no CUDA
   extension can be built against it, whatever ``CUDA_HOME`` says. Install a
   CUDA build of torch; until then build the extension's CPU path only (what
   setup scripts with optional CUDA kernels do).
2. torch is a CUDA build: point ``CUDA_HOME`` at a toolkit whose major
   version matches ``torch.version.cuda`` (``$CUDA_HOME``, ``nvcc`` on
   ``PATH``, ``/usr/local/cuda*``) and build the CUDA extension.

The script makes those checks, builds the same tiny extension as
``repro.py`` (CUDA or CPU path), imports it and calls it. On a CPU-only
torch it compiles the C++ path with the host compiler; that path includes
``torch/python.h`` (tensors and pybind11) rather than ``torch/extension.h``
(which adds the whole C++ frontend) and is built with ``-O0 -g0``: the same
binding for a third of the CPU time (about 16 s instead of 50 s of g++).

CPU only (launcher: python); needs torch, setuptools and a C++ compiler.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

CPU_BINDING = """\
#include <torch/python.h>

torch::Tensor scale_add(torch::Tensor x, torch::Tensor y, double alpha) {
  return x * alpha + y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale_add", &scale_add); }
"""

CUDA_BINDING = """\
#include <torch/extension.h>

torch::Tensor scale_add_cuda(torch::Tensor x, torch::Tensor y, double alpha);

torch::Tensor scale_add(torch::Tensor x, torch::Tensor y, double alpha) {
  if (!x.is_cuda()) return x * alpha + y;
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

if os.environ.get("SCALE_ADD_CUDA") == "1":
    ext = cpp_extension.CUDAExtension("scale_add_ext", ["scale_add.cpp", "scale_add_kernel.cu"])
else:
    ext = cpp_extension.CppExtension(
        "scale_add_ext", ["scale_add.cpp"], extra_compile_args=["-O0", "-g0"]
    )

setup(name="scale_add_ext", ext_modules=[ext], cmdclass={"build_ext": cpp_extension.BuildExtension})
"""


def nvcc_major(home: str) -> str | None:
    try:
        out = subprocess.run(
            [os.path.join(home, "bin", "nvcc"), "--version"], capture_output=True, text=True
        ).stdout
    except OSError:
        return None
    for word in out.replace(",", " ").split():
        if word[:1] == "V" and word[1:2].isdigit():
            return word[1:].split(".")[0]
    return None


def find_toolkit() -> str | None:
    """A CUDA toolkit whose major version matches torch's, or None."""
    if torch.version.cuda is None:
        return None
    nvcc = shutil.which("nvcc")
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    candidates += [os.path.dirname(os.path.dirname(nvcc)) if nvcc else None]
    candidates += ["/usr/local/cuda", *sorted(glob.glob("/usr/local/cuda-*"), reverse=True)]
    wanted = torch.version.cuda.split(".")[0]
    for home in candidates:
        if home and os.path.exists(os.path.join(home, "bin", "nvcc")) and nvcc_major(home) == wanted:
            return home
    return None


def main() -> int:
    toolkit = find_toolkit()
    env = dict(os.environ)
    if toolkit:
        env["CUDA_HOME"] = toolkit
        env["SCALE_ADD_CUDA"] = "1"
        print(f"torch {torch.__version__} (CUDA {torch.version.cuda}): building with CUDA_HOME={toolkit}")
    elif torch.version.cuda is None:
        env["SCALE_ADD_CUDA"] = "0"
        print(f"torch {torch.__version__} is a CPU-only build: building the CPU path only")
    else:
        env["SCALE_ADD_CUDA"] = "0"
        print(f"no CUDA {torch.version.cuda} toolkit found: building the CPU path only")

    with tempfile.TemporaryDirectory() as work:
        cuda = env["SCALE_ADD_CUDA"] == "1"
        Path(work, "scale_add.cpp").write_text(CUDA_BINDING if cuda else CPU_BINDING)
        if cuda:
            Path(work, "scale_add_kernel.cu").write_text(KERNEL)
        Path(work, "setup.py").write_text(SETUP)
        build = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        if build.returncode != 0:
            return build.returncode
        sys.path.insert(0, work)
        import scale_add_ext

        device = "cuda" if cuda and torch.cuda.is_available() else "cpu"
        x = torch.ones(4, device=device)
        out = scale_add_ext.scale_add(x, x, 2.0)
        assert torch.equal(out.cpu(), torch.full((4,), 3.0)), out
        print(f"scale_add_ext built and ran on {device}: {out.tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
