"""Fixed: load from a local copy (or a cache that holds the model).

Same offline job as repro.py. The model was fetched beforehand on a machine
with internet and copied to shared storage (here: written to a temporary
folder with ``save_pretrained``); the job passes that folder instead of the
Hub id, so no network and no cache lookup are needed. The other working
option, pointing ``HF_HOME`` at the cache the download went to, is described
in the article.

CPU only, no downloads (HF_HUB_OFFLINE=1, fresh HOME; launcher: python).
"""

import os
import sys
import tempfile

os.environ["HF_HUB_OFFLINE"] = "1"

from transformers import AutoConfig, Qwen2Config  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as shared:
        local_dir = os.path.join(shared, "Qwen2.5-0.5B-Instruct")
        Qwen2Config(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                    num_key_value_heads=1, vocab_size=64).save_pretrained(local_dir)  # stands for the copied files
        config = AutoConfig.from_pretrained(local_dir)  # FIX: a local folder needs no Hub and no cache
        if config.model_type != "qwen2":
            print(f"unexpected model_type {config.model_type}", file=sys.stderr)
            return 1
        print("loaded", config.model_type, "from", local_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
