"""Reproduce: "RuntimeError: FlashAttention only supports Ampere GPUs or newer."

FlashAttention-2's kernels exist only for compute capability 8.0 and newer
(A100, A10, RTX 30xx/40xx, H100). The wheel installs and imports on a
Turing or Volta card (T4, the Colab/Kaggle default; V100; RTX 20xx), and
transformers loads the model with ``attn_implementation="flash_attention_2"``
without complaint: the check is inside the extension, so the first forward
(a training step, ``generate()``, evaluation) raises.

The script builds a tiny Llama from a config (no download), loads it with
FlashAttention-2 in fp16 on the GPU and runs one forward pass.

Planned repro (not run here): one NVIDIA GPU of compute capability below 8.0
(T4, V100, RTX 20xx), with flash-attn 2.x and transformers installed
(launcher: python). On a newer GPU it cannot fail; it stops with exit status 3
and says so instead of pretending.
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


def main() -> int:
    major, minor = torch.cuda.get_device_capability()
    if major >= 8:
        print(f"compute capability {major}.{minor}: FlashAttention-2 runs here; needs < 8.0")
        return 3
    with tempfile.TemporaryDirectory() as path:
        save_tiny_llama(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, attn_implementation="flash_attention_2", dtype=torch.float16
        ).to("cuda")
        ids = torch.randint(0, 128, (2, 16), device="cuda")
        print(model(input_ids=ids).logits.shape)  # raises on a pre-Ampere GPU
    return 0


if __name__ == "__main__":
    sys.exit(main())
