"""Reproduce: "Max retries exceeded with url: /<repo>/resolve/main/config.json
(Caused by NewConnectionError(... Failed to establish a new connection ...))"
followed by "OSError: We couldn't connect to '<endpoint>' to load the files".

The job is online as far as huggingface_hub knows (no HF_HUB_OFFLINE), so it
asks the Hub endpoint for the file's metadata; the connection cannot be made
(firewall, no route, proxy missing, mirror down). Here the endpoint is a
closed local port, ``HF_ENDPOINT=http://127.0.0.1:9``, which fails the same
way as an unreachable huggingface.co but needs no network.

huggingface_hub retries a failed connection 5 times, sleeping 1, 2, 4, 8 and
8 s in between (23 s per file, about 38 s of this script's 45 s); the script
shortens those sleeps to 0.05 s. The retries, their warnings and the final
error are the library's own.

CPU only, no downloads (launcher: python).
"""

import os
import sys

os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"  # stands for an endpoint this machine cannot reach
for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # a job that believes it is online
    os.environ.pop(name, None)

import functools  # noqa: E402

import huggingface_hub.file_download as hub_download  # noqa: E402

# Not part of the bug: the same retries, without 23 s of back-off sleeps per file.
hub_download.http_backoff = functools.partial(hub_download.http_backoff, base_wait_time=0.05, max_wait_time=0.05)

from transformers import AutoConfig  # noqa: E402


def main() -> int:
    config = AutoConfig.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")  # BUG: needs the network
    print(config.model_type)
    return 0


if __name__ == "__main__":
    sys.exit(main())
