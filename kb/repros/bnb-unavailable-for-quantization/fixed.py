"""Fixed: quantise only where bitsandbytes is usable; otherwise load the model unquantised.

The same QLoRA loader checks ``transformers.utils.is_bitsandbytes_available()``
first (what the quantizer checks) and passes ``quantization_config`` only when
bitsandbytes can be used, as the article's fix for a machine without it
describes (on a GPU machine the other fix is installing bitsandbytes into the
interpreter that runs the script).

CPU only, no downloads (launcher: python).
"""

import sys
import tempfile

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM
from transformers.utils import is_bitsandbytes_available


def save_tiny_llama(path: str) -> None:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    LlamaForCausalLM(config).save_pretrained(path)


def main() -> int:
    path = tempfile.mkdtemp()
    save_tiny_llama(path)
    kwargs = {}
    if is_bitsandbytes_available():  # FIX: quantise only where the quantizer can run
        kwargs["quantization_config"] = BitsAndBytesConfig(load_in_8bit=True)
    else:
        kwargs["dtype"] = torch.float32
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    print("loaded", type(model).__name__, "quantized" if "quantization_config" in kwargs else "unquantized")
    return 0


if __name__ == "__main__":
    sys.exit(main())
