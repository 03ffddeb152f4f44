"""Reproduce: a CUDA kernel compiled only for another GPU architecture.

A CUDA binary holds machine code (SASS) for the architectures it was built
for, and optionally PTX that the driver can compile for newer ones. SASS runs
only on its own major architecture (sm_80 code runs on sm_86, never on sm_90
or sm_75). A kernel whose binary has neither SASS for the device nor usable
PTX cannot be launched: ``cudaErrorNoKernelImageForDevice``, which PyTorch
reports as ``CUDA error: no kernel image is available for execution on the
device``. The same happens to PyTorch's own kernels on a GPU its wheel was
not built for (torch then also warns ``... with CUDA capability sm_XX is not
compatible with the current PyTorch installation``), and to extensions
(flash-attn, bitsandbytes, apex, DeepSpeed ops, your own) built with a
``TORCH_CUDA_ARCH_LIST`` that does not include the card.

The script JIT-builds a tiny extension with ``TORCH_CUDA_ARCH_LIST`` set to an
architecture of another generation than the GPU (7.5 on an Ampere or newer
card, 9.0 on an older one), without PTX, and calls it.

One GPU (launcher: python); needs nvcc (a CUDA toolkit found by torch's
``CUDA_HOME`` lookup) and ninja.
"""

import os
import sys
import tempfile

import torch
from torch.utils.cpp_extension import load_inline

CPP = "torch::Tensor add_one(torch::Tensor x);"

CUDA = """
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

__global__ void add_one_kernel(float* x, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

torch::Tensor add_one(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat, "add_one: float CUDA tensor expected");
  auto y = x.clone();
  int64_t n = y.numel();
  add_one_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
"""


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    major, minor = torch.cuda.get_device_capability(0)
    wrong = "7.5" if major >= 8 else "9.0"
    os.environ["TORCH_CUDA_ARCH_LIST"] = wrong  # no "+PTX": SASS for another generation only
    print(f"GPU sm_{major}{minor}, extension built for TORCH_CUDA_ARCH_LIST={wrong}", flush=True)
    with tempfile.TemporaryDirectory() as build:
        ext = load_inline(
            name="add_one_wrong_arch",
            cpp_sources=CPP,
            cuda_sources=CUDA,
            functions=["add_one"],
            build_directory=build,
        )
        out = ext.add_one(torch.zeros(1024, device="cuda"))
        torch.cuda.synchronize()
        print(out[:4].tolist())
    return 0


if __name__ == "__main__":
    sys.exit(main())
