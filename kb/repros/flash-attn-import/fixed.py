"""The fix applied: request FlashAttention-2 only where it can run, else SDPA.

``transformers.utils.is_flash_attn_2_available()`` is True only when the
flash_attn package is installed in a usable version and torch sees a
supported GPU; otherwise the script falls back to PyTorch's
``scaled_dot_product_attention`` ("sdpa"), which needs no extra package and
uses fused kernels of its own on GPUs. Same tiny checkpoint as ``repro.py``;
it loads and runs a forward pass.

Runs on CPU (launcher: python); needs transformers and torch.
"""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.utils import is_flash_attn_2_available  # noqa: E402


def save_tiny_llama(path: str) -> None:
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    LlamaForCausalLM(config).save_pretrained(path)


def main() -> None:
    attn = "flash_attention_2" if is_flash_attn_2_available() else "sdpa"  # the fix
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as path:
        save_tiny_llama(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, attn_implementation=attn, dtype=torch.bfloat16
        ).to(device)
        ids = torch.tensor([[1, 2, 3, 4]], device=device)
        logits = model(ids).logits
        print(f"attn_implementation={model.config._attn_implementation}, logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
