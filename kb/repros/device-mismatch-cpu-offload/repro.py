"""Reproduce: DeepSpeed ZeRO-3 with CPU offload and gradient clipping (DeepSpeed 0.14.1 / 0.14.2).

In DeepSpeed 0.14.1 and 0.14.2 the ZeRO-3 optimizer computes the global
gradient norm with ``torch.norm(torch.stack(...))``, which leaves it as a
0-d tensor on the GPU. When ``offload_optimizer`` puts the fp32 master
gradients (``fp32_partitioned_groups_flat``) on the CPU and gradient clipping
kicks in, ``unscale_and_clip_grads`` multiplies a CPU gradient in place by a
GPU scalar and fails with ``Expected all tensors to be on the same device, but
found at least two devices, cuda:0 and cpu!``.

Tiny model, one process, one GPU. A torch AdamW is used as the client
optimizer (``zero_force_ds_cpu_optimizer: false``) so that nothing needs to be
compiled; the failure is in the ZeRO-3 step itself, not in the optimizer.
Large targets make the gradient norm exceed ``gradient_clipping`` on the first
step, which is when the bug shows.

Requires: 1 CUDA GPU, deepspeed>=0.14.1,<0.14.3 (launcher: python).
"""

import os
import socket
import sys

import torch
from torch import nn


def single_process_env() -> None:
    """Let deepspeed.initialize() set up a one-rank process group without a launcher."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for key, value in {
        "RANK": "0",
        "LOCAL_RANK": "0",
        "WORLD_SIZE": "1",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
    }.items():
        os.environ.setdefault(key, value)


DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 1,
    "gradient_clipping": 1.0,
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
        "offload_param": {"device": "cpu", "pin_memory": True},
        "stage3_param_persistence_threshold": 0,
    },
    "zero_force_ds_cpu_optimizer": False,
    "steps_per_print": 1000,
}


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    single_process_env()
    import deepspeed

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 32))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=DS_CONFIG)

    x = torch.randn(8, 32, device=engine.device, dtype=torch.bfloat16)
    target = 100.0 * torch.randn(8, 32, device=engine.device, dtype=torch.bfloat16)
    for _ in range(2):
        loss = nn.functional.mse_loss(engine(x).float(), target.float())
        engine.backward(loss)
        engine.step()
    return 0


if __name__ == "__main__":
    sys.exit(main())
