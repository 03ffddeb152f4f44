"""Reproduce: DeepSpeed < 0.14.4 under torch >= 2.4: "cannot import name '_get_socket_with_port'".

repro.py runs in the environment of ``repro.requires.packages``: DeepSpeed
0.14.2 next to torch 2.13.0 (the CPU build every repro environment runs).
``import deepspeed`` loads deepspeed/elasticity/elastic_agent.py, which
imports the private helper ``_get_socket_with_port`` from
torch.distributed.elastic.agent.server.api; PyTorch 2.4 deleted it
(pytorch#125743), so the import fails. DeepSpeed 0.13.x fails one name
earlier, on ``log`` (renamed ``logger`` in pytorch#122831).

CPU only, one process (launcher: python).
"""

import sys
from importlib.metadata import version

print(f"deepspeed {version('deepspeed')}, torch {version('torch')}", flush=True)

import deepspeed  # noqa: E402  # fails here: the elastic agent's import

print(f"imported deepspeed {deepspeed.__version__}")
sys.exit(0)
