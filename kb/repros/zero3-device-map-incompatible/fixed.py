"""Fixed: under ZeRO-3 load without device_map / low_cpu_mem_usage and let
DeepSpeed place (partition) the weights.

Same tiny model and active ZeRO-3 config as repro.py; from_pretrained is
called without ``device_map``, so transformers builds the model under
``deepspeed.zero.Init`` and the engine created by the Trainer (or
deepspeed.initialize) owns placement.

CPU only (launcher: python).
"""

import os
import sys
import tempfile

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29681")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed.comm.torch  # noqa: E402,F401
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.integrations import HfDeepSpeedConfig  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build

DS_CONFIG = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}}


def main() -> int:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    with tempfile.TemporaryDirectory() as tmp:
        LlamaForCausalLM(config).save_pretrained(tmp)
        dschf = HfDeepSpeedConfig(DS_CONFIG)  # noqa: F841
        model = AutoModelForCausalLM.from_pretrained(tmp)  # the fix: no device_map under ZeRO-3
        partitioned = all(hasattr(p, "ds_id") for p in model.parameters())
        print(f"ok: loaded {type(model).__name__}, ZeRO-3 partitioned parameters: {partitioned}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
