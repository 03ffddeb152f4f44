"""Fixed: leave the quantised model where from_pretrained put it; move the inputs.

Same program as repro.py. Placement and dtype of a bitsandbytes model are
chosen at load time (``device_map``, ``torch_dtype``/``dtype``); afterwards
only the inputs are moved, to ``model.device``.
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
            path, quantization_config=BitsAndBytesConfig(load_in_8bit=True), device_map=device,  # FIX: place here
        )
    input_ids = torch.randint(0, 64, (1, 8)).to(model.device)  # FIX: move the inputs, not the model
    print(model(input_ids).logits.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
