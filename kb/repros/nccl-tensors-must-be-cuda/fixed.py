"""The fix: give CPU tensors a backend too, or keep the tensors on the GPU.

``backend="cpu:gloo,cuda:nccl"`` (here "cpu:gloo,cuda:gloo", as the CPU build
has no NCCL) registers Gloo for CPU tensors next to NCCL for CUDA tensors, so
a CPU counter can be all-reduced. On a GPU job the usual fix is one line:
create the tensor on the rank's device,
``torch.tensor(..., device=f"cuda:{local_rank}")``.

CPU only, two processes (launcher: torchrun --standalone --nproc-per-node=2).
"""

import torch
import torch.distributed as dist

BACKENDS = "cpu:gloo,cuda:gloo"  # on a GPU job: "cpu:gloo,cuda:nccl"


def evaluate(rank: int) -> torch.Tensor:
    correct = torch.tensor([10.0 + rank, 16.0])  # a CPU tensor now has a backend
    dist.all_reduce(correct)
    return correct


def main() -> None:
    dist.init_process_group(backend=BACKENDS)
    rank = dist.get_rank()
    totals = evaluate(rank)
    assert totals.tolist() == [21.0, 32.0], totals
    print(f"rank {rank}: accuracy {totals[0] / totals[1]:.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
