"""Reproduce: "Using `bitsandbytes` 8-bit quantization requires the latest version of bitsandbytes".

A LoRA script asks transformers for 8-bit loading with ``BitsAndBytesConfig``.
Before loading, the bitsandbytes quantizer checks that accelerate and
bitsandbytes are usable (``is_bitsandbytes_available()``); in an environment
without bitsandbytes (or, for bitsandbytes older than 0.43.1, without a CUDA
device torch can see) it raises this ImportError, whatever version the user
thinks is installed.

CPU only, no downloads: a one-layer Llama saved to a temporary folder, in an
environment with transformers and accelerate but no bitsandbytes
(launcher: python).
"""

import sys
import tempfile

from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM


def save_tiny_llama(path: str) -> None:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    LlamaForCausalLM(config).save_pretrained(path)


def main() -> int:
    path = tempfile.mkdtemp()
    save_tiny_llama(path)
    bnb = BitsAndBytesConfig(load_in_8bit=True)
    model = AutoModelForCausalLM.from_pretrained(path, quantization_config=bnb)  # BUG: bitsandbytes is not usable here
    print("loaded", type(model).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
