"""Reproduce: a script asks for Apple's "mps" device on a torch build that has no MPS.

The MPS backend exists only in torch's macOS arm64 builds. On Linux (the CPU
wheel here, a CUDA wheel, a Docker container on a Mac, which is a Linux VM),
on Windows and in Colab, moving a module or tensor to "mps" fails at once:
``Tensor.to("mps")`` raises "RuntimeError: PyTorch is not linked with support
for mps devices", and creating a tensor on the device fails in the dispatcher
("Could not run 'aten::empty.memory_format' with arguments from the 'MPS'
backend"). Scripts reach it with a hard-coded ``device = "mps"`` or a
``--device mps`` flag copied from a Mac.

CPU only, one process (launcher: python).
"""

import torch

print("torch", torch.__version__, "mps built:", torch.backends.mps.is_built(), flush=True)
device = torch.device("mps")  # hard-coded for a Mac
model = torch.nn.Linear(4, 2)
model.to(device)  # fails here on a build without MPS
print(model(torch.randn(3, 4, device=device)).shape)
