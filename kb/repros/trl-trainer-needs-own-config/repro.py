"""Reproduce: "AttributeError: 'TrainingArguments' object has no attribute 'model_init_kwargs'".

A DPO script written against ``transformers.TrainingArguments`` hands it to
``trl.DPOTrainer``. Since TRL 0.9 every TRL trainer reads its own options
(``model_init_kwargs``, ``beta``, ``max_length``, ...) from a config class
that subclasses ``TrainingArguments`` (``DPOConfig``, ``GRPOConfig``,
``RewardConfig``, ``KTOConfig``, ...); a plain ``TrainingArguments`` has none
of these fields, and the first one the trainer reads raises ``AttributeError``.

CPU only, no downloads: a one-layer Llama built from a config, a word-level
tokenizer built in memory and a four-row preference dataset (launcher: python).
"""

import copy
import sys
import tempfile

from datasets import Dataset
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, TrainingArguments
from trl import DPOTrainer


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    words = ["<pad>", "<unk>", "<eos>", "the", "cat", "sat", "dog", "ran", "a", "mat"]
    backend = Tokenizer(WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")


def main() -> int:
    tokenizer = tiny_tokenizer()
    config = LlamaConfig(vocab_size=16, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, pad_token_id=0, eos_token_id=2)
    model = LlamaForCausalLM(config)
    data = Dataset.from_dict({
        "prompt": ["the cat", "the dog", "a cat", "a dog"],
        "chosen": [" sat", " ran", " sat", " ran"],
        "rejected": [" ran", " sat", " mat", " mat"],
    })
    args = TrainingArguments(  # BUG: transformers' class; DPOTrainer reads DPOConfig fields from it
        output_dir=tempfile.mkdtemp(), per_device_train_batch_size=2, max_steps=1,
        report_to=[], use_cpu=True, logging_steps=1, save_strategy="no",
    )
    trainer = DPOTrainer(model=model, ref_model=copy.deepcopy(model), args=args, train_dataset=data,
                         processing_class=tokenizer)
    trainer.train()
    print("trained one DPO step with", type(args).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
