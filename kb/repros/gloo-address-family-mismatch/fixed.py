"""Fixed: every rank binds an address of the same family.

The fix pins the address gloo uses on every node: GLOO_SOCKET_IFNAME set to an
interface whose address all ranks reach over IPv4 (or all over IPv6), or a
hostname that resolves to one family everywhere. Here both ranks' devices are
made for 127.0.0.1, and the group connects and runs an all_reduce.

CPU only (gloo), two processes started with torch.multiprocessing.spawn
(launcher: python).
"""

import datetime

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

PORT = 29664


def worker(rank: int, world_size: int) -> None:
    timeout = datetime.timedelta(seconds=30)
    store = dist.TCPStore("127.0.0.1", PORT, world_size, rank == 0, timeout=timeout)
    opts = dist.ProcessGroupGloo._Options()
    opts._devices = [dist.ProcessGroupGloo.create_device(hostname="127.0.0.1")]  # IPv4 on every rank
    opts._timeout = timeout
    pg = dist.ProcessGroupGloo(store, rank, world_size, opts)
    t = torch.ones(1) * (rank + 1)
    pg.allreduce([t]).wait()
    print("rank", rank, "all_reduce", t.item(), flush=True)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
