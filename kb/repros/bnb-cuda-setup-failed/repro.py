"""Reproduce: bitsandbytes cannot load a native CUDA library for this setup.

bitsandbytes ships one compiled library per CUDA version
(``libbitsandbytes_cuda<ver>.so``) and picks the one matching torch's CUDA,
unless ``BNB_CUDA_VERSION`` overrides it. An override left in the shell
profile (here a version no wheel ships) makes it look for a library that
does not exist; the first native call then fails with bitsandbytes'
"CUDA VERSION MISMATCH ... native library functionality but it's not
available" error (older releases: "CUDA Setup failed despite GPU being
available"). A missing libcudart / CUDA toolkit path looks the same.

Requires: 1 CUDA GPU (launcher: python).
"""

import os
import sys

os.environ["BNB_CUDA_VERSION"] = "999"  # BUG: a stale override pointing at a binary that does not exist

import torch  # noqa: E402


def main() -> int:
    if not torch.cuda.is_available():
        print("this reproduction needs a CUDA GPU", file=sys.stderr)
        return 2
    import bitsandbytes as bnb

    layer = bnb.nn.Linear8bitLt(64, 64, has_fp16_weights=False).cuda()
    print(layer(torch.randn(4, 64, device="cuda", dtype=torch.float16)).shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
