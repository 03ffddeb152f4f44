"""The fix: choose the attention implementation from the GPU's compute capability.

PyTorch's ``scaled_dot_product_attention`` ("sdpa") has fused kernels for
Volta and Turing (memory-efficient attention) and is what transformers uses
by default; FlashAttention-2 is requested only where it can run.

Planned repro (not run here): one NVIDIA GPU, any generation (launcher: python).
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM


def save_tiny_llama(path: str) -> None:
    config = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    LlamaForCausalLM(config).save_pretrained(path)


def attention_for_this_gpu() -> str:
    major, _ = torch.cuda.get_device_capability()
    return "flash_attention_2" if major >= 8 else "sdpa"  # FIX: FA2 only on sm80+


def main() -> int:
    with tempfile.TemporaryDirectory() as path:
        save_tiny_llama(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, attn_implementation=attention_for_this_gpu(), dtype=torch.float16
        ).to("cuda")
        ids = torch.randint(0, 128, (2, 16), device="cuda")
        print(model.config._attn_implementation, model(input_ids=ids).logits.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
