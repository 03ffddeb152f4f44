"""Reproduce: "Max retries exceeded with url: /<repo>/resolve/main/config.json
(Caused by NewConnectionError(... Failed to establish a new connection ...))"
followed by "OSError: We couldn't connect to '<endpoint>' to load the files".

The job is online as far as huggingface_hub knows (no HF_HUB_OFFLINE), so it
asks the Hub endpoint for the file's metadata; the connection cannot be made
(firewall, no route, proxy missing, mirror down). Here the endpoint is a
closed local port, ``HF_ENDPOINT=http://127.0.0.1:9``, which fails the same
way as an unreachable huggingface.co but needs no network.

CPU only, no downloads (launcher: python).
"""

import os
import sys

os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"  # stands for an endpoint this machine cannot reach
for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # a job that believes it is online
    os.environ.pop(name, None)

from transformers import AutoConfig  # noqa: E402


def main() -> int:
    config = AutoConfig.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")  # BUG: needs the network
    print(config.model_type)
    return 0


if __name__ == "__main__":
    sys.exit(main())
