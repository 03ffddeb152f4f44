"""Reproduce: "You cannot perform fine-tuning on purely quantized models."

A model is loaded in 8-bit with bitsandbytes to save memory and handed
straight to the transformers Trainer. Quantised int8/4-bit weights cannot
be updated by an optimizer, so the Trainer refuses at construction unless
trainable adapters (PEFT/LoRA) sit on top of the quantised model.

A tiny Llama (hidden size 64) saved to a temporary directory and reloaded;
bitsandbytes >= 0.46 quantises on the CPU, so no GPU is needed
(launcher: python).
"""

import sys
import tempfile

import torch
from transformers import (
    AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments,
)


def main() -> int:
    config = LlamaConfig(
        vocab_size=64, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
    )
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = [{"input_ids": torch.randint(0, 64, (8,)), "labels": torch.randint(0, 64, (8,))} for _ in range(8)]
    with tempfile.TemporaryDirectory() as path:
        LlamaForCausalLM(config).save_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(
            path, quantization_config=BitsAndBytesConfig(load_in_8bit=True), device_map=device,
        )
        args = TrainingArguments(output_dir=f"{path}/out", max_steps=2, per_device_train_batch_size=4,
                                 report_to=[], use_cpu=device == "cpu")
        trainer = Trainer(model=model, args=args, train_dataset=data)  # BUG: no adapter on a quantised model
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
