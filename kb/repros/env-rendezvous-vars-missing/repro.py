"""Reproduce: a script written for a launcher is started with plain python, and
init_process_group's env:// rendezvous finds none of the variables a launcher sets.

``torch.distributed.init_process_group(backend)`` without ``init_method``
uses ``env://``: it reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
from the environment (torch/distributed/rendezvous.py,
``_env_rendezvous_handler``). torchrun, ``python -m torch.distributed.launch``,
the DeepSpeed launcher and ``accelerate launch`` set them for every worker;
``python train.py``, an IDE's Run button, a notebook cell, or ``mpirun`` /
``srun`` (which set their own OMPI_*/PMI_*/SLURM_* variables, not these) do
not. The first missing one is named: "ValueError: Error initializing
torch.distributed using env:// rendezvous: environment variable RANK
expected, but not set".

CPU only (gloo), one process (launcher: python); the launcher variables are
removed from this process's environment first, as in a plain shell.
"""

import os

import torch.distributed as dist

for var in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
    os.environ.pop(var, None)

print("RANK =", os.environ.get("RANK"), "WORLD_SIZE =", os.environ.get("WORLD_SIZE"), flush=True)
dist.init_process_group(backend="gloo")  # env:// by default; fails here
print("rank", dist.get_rank(), "of", dist.get_world_size())
dist.destroy_process_group()
