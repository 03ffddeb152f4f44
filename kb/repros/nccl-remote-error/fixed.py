"""Fixed: the rank that died is kept alive, so its peer never sees a closed connection.

The article's fix: ncclRemoteError on one rank is a symptom; find why the
*other* process or link went away (its own log, the kernel log, the network)
and fix that. Same two ranks, transport and loop as repro.py, but rank 1's
failure is removed (what killed it fixed); all steps of both ranks complete
and both exit 0.

Requires: 2 CUDA GPUs (launcher: python, two processes).
"""

import multiprocessing as mp
import os
import socket
import sys
from datetime import timedelta

STEPS = 6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rank_main(rank: int, port: int) -> None:
    os.environ.update(
        NCCL_P2P_DISABLE="1",  # no NVLink/PCIe peer access
        NCCL_SHM_DISABLE="1",  # no shared memory: the network transport, as across nodes
        NCCL_NET="Socket",
        NCCL_SOCKET_IFNAME="lo",
        NCCL_IB_DISABLE="1",
        NCCL_DEBUG="WARN",
    )
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2, timeout=timedelta(seconds=60)
    )
    grads = torch.ones(16 * 2**20, device="cuda")  # 64 MiB per step
    for step in range(STEPS):
        dist.all_reduce(grads)
        torch.cuda.synchronize()
        print(f"rank {rank} step {step} done", flush=True)
    dist.barrier()
    dist.destroy_process_group()


def main() -> int:
    import torch

    if torch.cuda.device_count() < 2:
        print("this reproduction needs 2 CUDA GPUs", file=sys.stderr)
        return 2
    port = free_port()
    ctx = mp.get_context("spawn")
    ranks = [ctx.Process(target=rank_main, args=(rank, port)) for rank in range(2)]
    for proc in ranks:
        proc.start()
    for proc in ranks:
        proc.join(timeout=180)
    codes = [proc.exitcode for proc in ranks]
    for proc in ranks:
        if proc.is_alive():
            proc.kill()
    print("exit codes:", codes, flush=True)
    return 0 if codes == [0, 0] else 1


if __name__ == "__main__":
    sys.exit(main())
