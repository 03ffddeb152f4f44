"""Reproduce: "ValueError: Target modules {...} not found in the base model".

A LoRA recipe written for one architecture is reused on another: the
target names ``query_key_value`` / ``dense_h_to_4h`` are the fused
projections of ChatGLM, BLOOM and GPT-NeoX, but a Llama-family model calls
its projections ``q_proj``, ``k_proj``, ``v_proj``, ``o_proj``, ``gate_proj``,
``up_proj`` and ``down_proj``. No module name ends with any target, so
``get_peft_model`` refuses to build an adapter that would train nothing.

A tiny LlamaConfig model (hidden size 16) built in memory; no downloads
(launcher: python).
"""

import sys

from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> int:
    config = LlamaConfig(
        vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    model = LlamaForCausalLM(config)
    lora = LoraConfig(
        r=4, lora_alpha=8, task_type="CAUSAL_LM",
        target_modules=["query_key_value", "dense_h_to_4h"],  # BUG: names from another architecture
    )
    model = get_peft_model(model, lora)
    model.print_trainable_parameters()
    return 0


if __name__ == "__main__":
    sys.exit(main())
