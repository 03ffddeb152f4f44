"""Fixed: the same start-up, the two ways the article gives.

(1) gloo is asked for a transport this torch build has (no
GLOO_DEVICE_TRANSPORT override; on Windows: a torch build whose gloo has its
transport, 2.7.1 or one with the gloo update of pytorch/pytorch#170491), and
the group is created; (2) a one-process run does not create a process group
at all, which is what single-GPU tools should do instead of init_process_group
with world size 1.

CPU only (gloo), one process (launcher: python).
"""

import os

import torch.distributed as dist

os.environ.pop("GLOO_DEVICE_TRANSPORT", None)
os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29662")

dist.init_process_group(backend="gloo")
print("(1) rank", dist.get_rank(), "of", dist.get_world_size())
dist.destroy_process_group()

world_size = int(os.environ.get("WORLD_SIZE", "1"))
if world_size > 1:
    dist.init_process_group(backend="gloo")
else:
    print("(2) one process: no process group needed")
