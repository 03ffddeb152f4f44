"""Fixed: the log() override accepts and passes on start_time (transformers 4.47+).

A Trainer subclass adds its own metrics by overriding ``log(self, logs)``,
the signature of transformers 4.46 and earlier. Since transformers 4.47 the
training loop calls ``self.log(logs, start_time)``; the old override has no
room for the second argument and the first logging step fails. Older TRL
trainers (DPOTrainer, KTOTrainer, ORPOTrainer, CPOTrainer, BCOTrainer before
TRL 0.13) carry the same override.

CPU only, no downloads: a one-layer Llama built from a config and a few
random token sequences (launcher: python).
"""

import sys
import tempfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments


class LoggingTrainer(Trainer):
    def log(self, logs: dict[str, float], *args, **kwargs) -> None:  # FIX: start_time (4.47+) passes through
        logs["tokens_seen"] = float(self.state.global_step * 2 * 8)
        super().log(logs, *args, **kwargs)


def main() -> int:
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    model = LlamaForCausalLM(config)
    rows = [{"input_ids": ids, "labels": ids} for ids in torch.randint(0, 32, (8, 8))]
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=2, max_steps=2,
                             logging_steps=1, report_to=[], use_cpu=True, save_strategy="no")
    trainer = LoggingTrainer(model=model, args=args, train_dataset=rows)
    trainer.train()
    print("logged", [h for h in trainer.state.log_history if "tokens_seen" in h][:1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
