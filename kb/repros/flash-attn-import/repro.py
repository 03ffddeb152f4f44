"""Reproduce: asking transformers for FlashAttention-2 where flash_attn cannot be used.

``from_pretrained(..., attn_implementation="flash_attention_2")`` (or
``use_flash_attention_2=True`` in older releases, or a training framework's
``flash_attn: fa2`` option) makes the model check, before any weight is
loaded, that the ``flash_attn`` package is importable and usable on this
device. Where it is not, transformers raises ``ImportError: FlashAttention2
has been toggled on, but it cannot be used due to the following error: ...``;
the tail names the reason (package not installed, too old, not on a CUDA
device). A wheel that is installed but built against another torch or CUDA
fails one step later, at ``import flash_attn_2_cuda``, with ``undefined
symbol`` or a missing ``libcudart.so``.

The script builds a tiny Llama checkpoint from a config (no download) in an
environment without flash_attn and loads it with FlashAttention-2 requested,
as a fine-tuning script written for a GPU box does.

Runs on CPU (launcher: python); needs transformers and torch, and flash_attn
must not be installed.
"""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM  # noqa: E402


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
    with tempfile.TemporaryDirectory() as path:
        save_tiny_llama(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, attn_implementation="flash_attention_2", dtype=torch.bfloat16
        )
        print(model.config._attn_implementation)


if __name__ == "__main__":
    main()
