"""Reproduce: "ValueError: `.to` is not supported for `8-bit` bitsandbytes models."

A model is loaded in 8-bit with bitsandbytes (``BitsAndBytesConfig``,
``device_map``): transformers has already placed every quantised weight.
Generic code then moves "the model" to its device as it would for a normal
model, and transformers refuses, because moving or casting packed int8
weights and their quantisation state would corrupt them.

A tiny Llama (hidden size 64) saved to a temporary directory and reloaded;
bitsandbytes >= 0.46 quantises on the CPU too, so no GPU is needed
(launcher: python).
"""

import sys
import tempfile

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM


def main() -> int:
    config = LlamaConfig(
        vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as path:
        LlamaForCausalLM(config).save_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, quantization_config=BitsAndBytesConfig(load_in_8bit=True), device_map=device,
        )
    model = model.to(device)  # BUG: a bitsandbytes model is already placed; .to() is refused
    input_ids = torch.randint(0, 64, (1, 8), device=device)
    print(model(input_ids).logits.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
