"""Reproduce: "OSError: We couldn't connect to 'https://huggingface.co' to load
the files, and couldn't find them in the cached files."

A compute node without internet (or a job with HF_HUB_OFFLINE=1) loads a
model by its Hub id. transformers may not ask the Hub, so it looks in the
local cache (``~/.cache/huggingface/hub`` or ``$HF_HOME``) only; the model was
downloaded on another machine, under another user, or into another cache
directory, so nothing is there.

CPU only, no downloads (HF_HUB_OFFLINE=1, fresh HOME; launcher: python).
"""

import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"  # the cluster has no route to the Hub

from transformers import AutoConfig  # noqa: E402


def main() -> int:
    config = AutoConfig.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")  # BUG: never downloaded into this cache
    print(config.model_type)
    return 0


if __name__ == "__main__":
    sys.exit(main())
