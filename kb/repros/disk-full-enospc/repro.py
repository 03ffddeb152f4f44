"""Reproduce: saving a checkpoint on a full disk.

/dev/full accepts opens and fails every write with ENOSPC, exactly like a
filesystem with no free space left. torch.save through a path reports it as
"basic_ios::clear: iostream error" followed by
"[enforce fail at inline_container.cc:NNN] . unexpected pos N vs M"; writing
through a Python file object gives "OSError: [Errno 28] No space left on
device". Both are shown: the first is caught and printed, the second is raised.

CPU only, no downloads; needs /dev/full (every Linux system has it)
(launcher: python).
"""

import sys
import traceback

import torch
from torch import nn

FULL_DISK = "/dev/full"  # stands in for output_dir on a volume with no space left


def main() -> int:
    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 8))
    try:
        torch.save(model.state_dict(), FULL_DISK)  # torch's own file writer
    except RuntimeError:
        traceback.print_exc()
        sys.stderr.flush()
    with open(FULL_DISK, "wb") as f:  # a Python file object (what most libraries pass)
        torch.save(model.state_dict(), f)
    print("saved", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
