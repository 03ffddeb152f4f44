"""Fixed: attach LoRA adapters to the quantised model (QLoRA-style) and train those.

Same program as repro.py. ``prepare_model_for_kbit_training`` readies the
quantised base (fp32 norms, input grads), ``get_peft_model`` adds trainable
LoRA matrices; the int8 base weights stay frozen.
"""

import sys
import tempfile

import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
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
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)  # FIX
        model = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                                 task_type="CAUSAL_LM"))  # FIX: trainable adapters
        model.print_trainable_parameters()
        args = TrainingArguments(output_dir=f"{path}/out", max_steps=2, per_device_train_batch_size=4,
                                 report_to=[], use_cpu=device == "cpu")
        trainer = Trainer(model=model, args=args, train_dataset=data)
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
