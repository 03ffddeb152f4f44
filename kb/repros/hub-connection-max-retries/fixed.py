"""Fixed: do not depend on the unreachable endpoint at run time.

Same job as repro.py. The files were fetched where the network works and
placed in a folder the job can read (here: written with ``save_pretrained``);
the job switches huggingface_hub to offline mode and loads that folder, so no
connection is attempted even though HF_ENDPOINT still names the unreachable
endpoint. (Where a reachable mirror or proxy exists, setting HF_ENDPOINT or
HTTPS_PROXY to it is the other fix; see the article.)

CPU only, no downloads (launcher: python).
"""

import os
import sys
import tempfile

os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"
os.environ["HF_HUB_OFFLINE"] = "1"  # FIX: never try the network from this job

from transformers import AutoConfig, Qwen2Config  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as shared:
        local_dir = os.path.join(shared, "Qwen2.5-0.5B-Instruct")
        Qwen2Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                    num_key_value_heads=1, vocab_size=64).save_pretrained(local_dir)  # stands for the fetched files
        config = AutoConfig.from_pretrained(local_dir)
        if config.model_type != "qwen2":
            print(f"unexpected model_type {config.model_type}", file=sys.stderr)
            return 1
        print("loaded", config.model_type, "offline from", local_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
