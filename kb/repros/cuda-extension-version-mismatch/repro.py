"""Reproduce: building a CUDA extension with a toolkit whose CUDA major differs from torch's.

``BuildExtension.build_extensions`` (``torch.utils.cpp_extension``, every
``setup.py`` with a ``CUDAExtension``: apex, flash-attn and xformers from
source, ``DS_BUILD_OPS=1 pip install deepspeed``, mmcv) asks the toolkit's
``nvcc --version`` for its release before compiling anything, and
``_check_cuda_version`` raises when its major differs from
``torch.version.cuda`` (``The detected CUDA version (13.0) mismatches the
version that was used to compile PyTorch (12.8)``); a minor difference is a
warning. CPU only, so two parts are simulated and said so: the toolkit is a
folder whose ``bin/nvcc`` prints the release line of CUDA 13.0, and torch's
CPU build (``torch.version.cuda`` is None, which skips the check) is told it
was built with CUDA 12.8 (``ERRKB_TORCH_CUDA``) and finds the toolkit in
``CUDA_HOME`` as a CUDA build does at import. The check itself runs as
torch ships it. Compiling is skipped (there is no real nvcc): the check comes
first.

CPU only (launcher: python); needs torch and setuptools.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

TORCH_CUDA = "12.8"
TOOLKIT = "13.0"

BINDING = """\
#include <torch/extension.h>
torch::Tensor scale(torch::Tensor x);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale); }
"""

KERNEL = """\
#include <torch/extension.h>
__global__ void scale_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
torch::Tensor scale(torch::Tensor x) { return x; }
"""

NVCC = """\
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release {release}, V{release}.48"
"""

SETUP = """\
import os

import torch
import torch.utils.cpp_extension as cpp_extension
from setuptools import setup

if torch.version.cuda is None:  # the CPU build: act as the CUDA build named in the variable
    torch.version.cuda = os.environ["ERRKB_TORCH_CUDA"]
    cpp_extension.CUDA_HOME = os.environ["CUDA_HOME"]  # what a CUDA build finds at import


class CheckOnly(cpp_extension.BuildExtension):
    def build_extension(self, ext):  # the toolkit check has run; there is no real nvcc
        print(f"toolkit check passed; compiling {ext.name} skipped")


setup(
    name="scale_ext",
    ext_modules=[cpp_extension.CUDAExtension("scale_ext", ["scale.cpp", "scale_kernel.cu"])],
    cmdclass={"build_ext": CheckOnly},
)
"""


def build(toolkit: str) -> int:
    """Run ``setup.py build_ext`` against a toolkit folder whose nvcc reports ``toolkit``."""
    with tempfile.TemporaryDirectory() as work:
        cuda = Path(work, "cuda")
        nvcc = cuda / "bin" / "nvcc"
        nvcc.parent.mkdir(parents=True)
        (cuda / "lib64").mkdir()
        nvcc.write_text(NVCC.format(release=toolkit))
        nvcc.chmod(0o755)
        Path(work, "scale.cpp").write_text(BINDING)
        Path(work, "scale_kernel.cu").write_text(KERNEL)
        Path(work, "setup.py").write_text(SETUP)
        env = {**os.environ, "CUDA_HOME": str(cuda), "ERRKB_TORCH_CUDA": TORCH_CUDA}
        env.pop("CUDA_PATH", None)
        done = subprocess.run([sys.executable, "setup.py", "build_ext"], cwd=work, env=env)
    return done.returncode


if __name__ == "__main__":
    sys.exit(build(TOOLKIT))
