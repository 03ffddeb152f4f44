"""Fixed: target_modules names the linear layers inside the blocks (q_proj ... down_proj), which PEFT can wrap.

A LoRA config names the blocks to adapt (``self_attn``, ``mlp``) instead of
the linear layers inside them. PEFT matches ``target_modules`` against module
names, finds ``model.layers.0.self_attn`` (a ``LlamaAttention`` container),
and has no LoRA layer for that class: it wraps only ``nn.Linear``,
``nn.Embedding``, ``nn.Conv1d/2d/3d``, transformers' ``Conv1D`` and
``nn.MultiheadAttention``.

CPU only, no downloads: a one-layer Llama built from a config (launcher: python).
"""

import sys

from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> int:
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    model = LlamaForCausalLM(config)
    lora = LoraConfig(r=4, lora_alpha=8, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])  # FIX
    model = get_peft_model(model, lora)
    model.print_trainable_parameters()
    return 0


if __name__ == "__main__":
    sys.exit(main())
