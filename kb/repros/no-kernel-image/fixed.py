"""The fix applied: build for the architecture of the GPU that runs the code.

Same extension as ``repro.py``, built with ``TORCH_CUDA_ARCH_LIST`` set to the
device's own compute capability plus PTX (``"9.0+PTX"`` on an H100), so the
binary carries SASS for this card and PTX that newer drivers can compile for
later ones. For PyTorch's own kernels the equivalent fix is a wheel whose
``torch.cuda.get_arch_list()`` covers the card.

One GPU (launcher: python); needs nvcc and ninja.
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
    os.environ["TORCH_CUDA_ARCH_LIST"] = f"{major}.{minor}+PTX"  # the fix
    print(f"GPU sm_{major}{minor}, torch kernels for {torch.cuda.get_arch_list()}", flush=True)
    with tempfile.TemporaryDirectory() as build:
        ext = load_inline(
            name="add_one_right_arch",
            cpp_sources=CPP,
            cuda_sources=CUDA,
            functions=["add_one"],
            build_directory=build,
        )
        out = ext.add_one(torch.zeros(1024, device="cuda"))
        torch.cuda.synchronize()
        assert torch.equal(out.cpu(), torch.ones(1024)), out[:4]
        print(f"add_one ran: {out[:4].tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
