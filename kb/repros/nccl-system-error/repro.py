"""Reproduce: "NCCL error ... unhandled system error" (ncclSystemError).

ncclSystemError means a system call or an external library that NCCL needs
failed: a socket that cannot be bound or connected, a shared-memory segment
in /dev/shm that cannot be created, an InfiniBand verbs call. In real jobs the
cause is almost always the node or the container (network interface, /dev/shm
size, RDMA setup), not the training script.

This script simulates a misconfigured bootstrap network deterministically on
one GPU: NCCL_COMM_ID tells NCCL to open its bootstrap listener on
192.0.2.1 (a documentation address that is not configured on this host), so
the bind() inside NCCL fails with EADDRNOTAVAIL, NCCL returns ncclSystemError
and PyTorch raises "NCCL error in: ...ProcessGroupNCCL.cpp:..., unhandled
system error (run with NCCL_DEBUG=INFO for details), NCCL version ..." from
the first collective, which is when the NCCL communicator is created.

Requires: 1 CUDA GPU (launcher: python).
"""

import os
import socket
import sys

import torch
import torch.distributed as dist


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    os.environ.update(
        RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
        NCCL_COMM_ID=f"192.0.2.1:{free_port()}",  # an address this host does not have
        NCCL_DEBUG=os.environ.get("NCCL_DEBUG", "WARN"),
    )
    torch.cuda.set_device(0)
    dist.init_process_group("nccl")
    value = torch.ones(1, device="cuda")
    dist.all_reduce(value)  # creates the NCCL communicator: bootstrap bind fails here
    torch.cuda.synchronize()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
