"""Reproduce: two ranks of one gloo group bind addresses of different families
(one IPv4, one IPv6), and the group fails with
"RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:NNN]
ss1.ss_family == ss2.ss_family. 10 vs 2" (10 is AF_INET6, 2 is AF_INET on Linux).

Each rank's gloo device binds the address of its hostname, or of the interface
named in GLOO_SOCKET_IFNAME, and publishes it in the store; when a pair connects,
gloo compares the local and the remote address to decide which side initiates,
and asserts that both have one family. A hostname or interface that resolves to
IPv6 on one node and IPv4 on another gives this assertion. Here rank 0's device
is made for 127.0.0.1 and rank 1's for ::1, the same thing on one machine.

CPU only (gloo), two processes: this script starts itself once per rank with
subprocess, the way a launcher starts workers (launcher: python).
"""

import datetime
import subprocess
import sys

import torch.distributed as dist

PORT = 29663


def worker(rank: int, world_size: int) -> None:
    timeout = datetime.timedelta(seconds=20)
    store = dist.TCPStore("127.0.0.1", PORT, world_size, rank == 0, timeout=timeout)
    host = "127.0.0.1" if rank == 0 else "::1"  # rank 1 resolves to IPv6
    opts = dist.ProcessGroupGloo._Options()
    opts._devices = [dist.ProcessGroupGloo.create_device(hostname=host)]
    opts._timeout = timeout
    dist.ProcessGroupGloo(store, rank, world_size, opts)  # fails here
    print("rank", rank, "connected", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # one rank
        worker(int(sys.argv[1]), 2)
    else:  # the launcher: one process per rank, fail if any rank failed
        ranks = [subprocess.Popen([sys.executable, __file__, str(rank)]) for rank in range(2)]
        codes = [p.wait() for p in ranks]
        print("exit codes:", codes, flush=True)
        sys.exit(1 if any(codes) else 0)
