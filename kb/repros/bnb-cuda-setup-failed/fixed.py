"""Fixed: no stale override; bitsandbytes loads the library matching torch's CUDA.

Same program as repro.py without ``BNB_CUDA_VERSION`` (``python -m
bitsandbytes`` shows which library it picks).

Requires: 1 CUDA GPU (launcher: python).
"""

import os
import sys

os.environ.pop("BNB_CUDA_VERSION", None)  # FIX: let bitsandbytes match torch.version.cuda

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
