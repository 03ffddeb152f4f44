"""Fixed: every rank binds an address of the same family.

The fix pins the address gloo uses on every node: GLOO_SOCKET_IFNAME set to an
interface whose address all ranks reach over IPv4 (or all over IPv6), or a
hostname that resolves to one family everywhere. Here both ranks' devices are
made for 127.0.0.1, and the group connects and runs an all_reduce.

CPU only (gloo), two processes: this script starts itself once per rank with
subprocess, the way a launcher starts workers (launcher: python).
"""

import datetime
import subprocess
import sys

import torch
import torch.distributed as dist

PORT = 29664


def worker(rank: int, world_size: int) -> None:
    timeout = datetime.timedelta(seconds=20)
    store = dist.TCPStore("127.0.0.1", PORT, world_size, rank == 0, timeout=timeout)
    opts = dist.ProcessGroupGloo._Options()
    opts._devices = [dist.ProcessGroupGloo.create_device(hostname="127.0.0.1")]  # IPv4 on every rank
    opts._timeout = timeout
    pg = dist.ProcessGroupGloo(store, rank, world_size, opts)
    t = torch.ones(1) * (rank + 1)
    pg.allreduce([t]).wait()
    print("rank", rank, "all_reduce", t.item(), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # one rank
        worker(int(sys.argv[1]), 2)
    else:  # the launcher: one process per rank, fail if any rank failed
        ranks = [subprocess.Popen([sys.executable, __file__, str(rank)]) for rank in range(2)]
        codes = [p.wait() for p in ranks]
        print("exit codes:", codes, flush=True)
        sys.exit(1 if any(codes) else 0)
