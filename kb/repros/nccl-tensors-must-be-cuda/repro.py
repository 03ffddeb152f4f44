"""Reproduce: "RuntimeError: No backend type associated with device type cpu"
(torch < 2.0: "Tensors must be CUDA and dense"): a collective on a CPU tensor
in a process group that only has a CUDA backend.

``init_process_group("nccl")`` registers NCCL for CUDA tensors and nothing
for CPU tensors. An evaluation loop that counts correct answers in a plain
``torch.tensor`` (created on the CPU) and then all-reduces it asks the group
for a CPU backend it does not have.

The CPU build of torch has no NCCL, so the group here is created with
``backend="cuda:gloo"``: like "nccl", it registers a backend for the cuda
device type only, and the CPU tensor hits the same device-to-backend lookup
(``ProcessGroup::getBackend``) with the same message.

CPU only, two processes (launcher: torchrun --standalone --nproc-per-node=2).
"""

import torch
import torch.distributed as dist

ONLY_CUDA_BACKEND = "cuda:gloo"  # stands for "nccl": no backend for CPU tensors


def evaluate(rank: int) -> torch.Tensor:
    correct = torch.tensor([10.0 + rank, 16.0])  # BUG: created on the CPU
    dist.all_reduce(correct)
    return correct


def main() -> None:
    dist.init_process_group(backend=ONLY_CUDA_BACKEND)
    rank = dist.get_rank()
    totals = evaluate(rank)
    print(f"rank {rank}: accuracy {totals[0] / totals[1]:.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
