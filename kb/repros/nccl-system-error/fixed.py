"""Fixed: NCCL bootstraps on an address and interface this host really has.

Same program as repro.py without the broken network setting: NCCL_COMM_ID is
not set, so NCCL picks its bootstrap address itself, and NCCL_SOCKET_IFNAME
names the loopback interface, which exists on every host (on a real cluster
it names the interface that connects the nodes, e.g. eth0 or ib0). The
communicator is created and the all_reduce completes.

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
    os.environ.pop("NCCL_COMM_ID", None)
    os.environ.update(
        RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
        NCCL_SOCKET_IFNAME="lo",
    )
    torch.cuda.set_device(0)
    dist.init_process_group("nccl")
    value = torch.ones(1, device="cuda")
    dist.all_reduce(value)
    torch.cuda.synchronize()
    print(f"ok: all_reduce -> {value.item()}")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
