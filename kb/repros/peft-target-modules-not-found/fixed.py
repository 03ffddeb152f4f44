"""Fixed: take the target names from the model that is actually loaded.

Same program as repro.py. The Linear layers' names are listed first
(what ``target_modules`` must match), then LoRA targets the Llama names;
``"all-linear"`` (PEFT >= 0.8) would work for any architecture too.
"""

import sys

from peft import LoraConfig, get_peft_model
from torch import nn
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> int:
    config = LlamaConfig(
        vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    model = LlamaForCausalLM(config)
    linear_names = sorted({name.split(".")[-1] for name, m in model.named_modules() if isinstance(m, nn.Linear)})
    print("Linear layers:", linear_names, flush=True)
    lora = LoraConfig(
        r=4, lora_alpha=8, task_type="CAUSAL_LM",
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],  # FIX
    )
    model = get_peft_model(model, lora)
    model.print_trainable_parameters()
    return 0


if __name__ == "__main__":
    sys.exit(main())
