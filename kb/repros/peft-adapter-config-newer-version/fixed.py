"""Fixed: the fields the installed PEFT does not know are removed before loading.

An adapter trained with a newer PEFT is loaded where an older PEFT is
installed. Each PEFT release writes every field of its ``LoraConfig`` into
``adapter_config.json``, including the ones it introduced
(``exclude_modules``, ``eva_config`` and ``lora_bias`` came in 0.14.0,
``corda_config`` and ``trainable_token_indices`` in 0.15.0). PEFT before
0.14.0 passes every key of that file to ``LoraConfig(**kwargs)``, a
dataclass that does not know them.

Here the adapter is saved by the installed PEFT (0.13.2) and its
``adapter_config.json`` then gets the fields a PEFT 0.15 save adds, with
their default values, which is what the newer save writes. A tiny LlamaConfig
model built in memory; no downloads (launcher: python).
"""

import dataclasses
import json
import os
import sys
import tempfile

from peft import LoraConfig, PeftModel, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM

# What a newer PEFT writes on top of 0.13's fields (their defaults).
NEWER_FIELDS = {
    "exclude_modules": None,
    "eva_config": None,
    "lora_bias": False,
    "corda_config": None,
    "trainable_token_indices": None,
}


def tiny_model() -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    return LlamaForCausalLM(config)


def save_adapter_as_newer_peft(folder: str) -> None:
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    get_peft_model(tiny_model(), lora).save_pretrained(folder)
    path = os.path.join(folder, "adapter_config.json")
    with open(path) as f:
        saved = json.load(f)
    saved.update(NEWER_FIELDS)
    with open(path, "w") as f:
        json.dump(saved, f, indent=2)


def drop_unknown_fields(folder: str) -> None:
    """Remove keys LoraConfig does not declare; safe here because they hold their defaults."""
    path = os.path.join(folder, "adapter_config.json")
    with open(path) as f:
        saved = json.load(f)
    known = {field.name for field in dataclasses.fields(LoraConfig)}
    unknown = sorted(set(saved) - known)
    print("removed from adapter_config.json:", {key: saved[key] for key in unknown})
    with open(path, "w") as f:
        json.dump({key: value for key, value in saved.items() if key in known}, f, indent=2)


def main() -> int:
    folder = tempfile.mkdtemp()
    save_adapter_as_newer_peft(folder)
    drop_unknown_fields(folder)  # FIX (or: pip install -U peft, which ignores unknown fields)
    model = PeftModel.from_pretrained(tiny_model(), folder)
    model.print_trainable_parameters()
    return 0


if __name__ == "__main__":
    sys.exit(main())
