"""Reproduce: NCCL "remote process exited or there was a network error" (ncclRemoteError).

Two ranks on two local GPUs all-reduce gradients in a loop. NCCL is made to
use its network transport (sockets over loopback), as between two nodes,
instead of NVLink/PCIe peer access or shared memory. At step 3 rank 1 dies
abruptly (SIGKILL, which stands for what kills a rank on a real cluster: the
host's OOM killer, a node failure, a crash in native code), without a Python
exception. The kernel closes its sockets; rank 0's NCCL proxy sees the
connection closed by the remote peer and the communicator fails with
``ncclRemoteError``, which PyTorch raises (or its watchdog reports) as
"remote process exited or there was a network error". Rank 0 is the victim:
the cause is whatever killed rank 1.

The script starts both ranks itself (multiprocessing, spawn) so that no
launcher tears rank 0 down before it reports; a 60 s process-group timeout
bounds the run.

Requires: 2 CUDA GPUs (launcher: python, two processes).
"""

import multiprocessing as mp
import os
import signal
import socket
import sys
from datetime import timedelta

DIE_AT_STEP = 3  # rank 1 is killed here
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
        if rank == 1 and step == DIE_AT_STEP:
            os.kill(os.getpid(), signal.SIGKILL)  # BUG: rank 1 dies (stands for OOM killer / crash)
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
