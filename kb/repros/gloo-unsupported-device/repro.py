"""Reproduce: ProcessGroupGloo finds no transport registered for the platform key
it asks for, and init_process_group fails with
"RuntimeError: makeDeviceForHostname(): unsupported gloo device".

torch/csrc/distributed/c10d/GlooDeviceFactory.cpp creates gloo's device from a
registry keyed by platform: LINUX (the tcp transport), APPLE and WIN32 (the uv
transport, built only when torch is built with libuv). When the key has no
creator the registry returns nothing and the factory raises this error. The
Windows wheels of torch 2.8 and 2.9 had no creator for WIN32, so every gloo
group on Windows failed this way. A Linux wheel has only the tcp transport;
asking it for the uv transport with GLOO_DEVICE_TRANSPORT=UV takes the same
path and gives the same message, which is what this script does.

CPU only (gloo), one process (launcher: python).
"""

import os

import torch.distributed as dist

os.environ["GLOO_DEVICE_TRANSPORT"] = "UV"  # a transport this build has no creator for
os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29661")

print("GLOO_DEVICE_TRANSPORT =", os.environ["GLOO_DEVICE_TRANSPORT"], flush=True)
dist.init_process_group(backend="gloo")  # fails here
print("rank", dist.get_rank(), "of", dist.get_world_size())
dist.destroy_process_group()
