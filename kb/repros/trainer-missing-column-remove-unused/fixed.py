"""Fixed: remove_unused_columns=False keeps the custom columns the collator reads.

A pairwise (chosen/rejected) dataset is tokenised into custom columns,
``input_ids_chosen`` and ``input_ids_rejected``, plus a ``label``. The custom
collator reads those columns. ``TrainingArguments.remove_unused_columns``
defaults to True: before batching, the Trainer removes every column whose name
is not an argument of the model's ``forward`` (``label`` survives, the custom
columns do not), so the collator receives rows without them.

CPU only, tiny model built from a config, no downloads (launcher: python).
"""

import sys

import torch

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

WORDS = "[PAD] [UNK] <s> </s> the a cat dog sat on mat ran fast slow red blue is was and or".split()


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """A word-level tokenizer built in memory (no Hub download)."""
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", bos_token="<s>", eos_token="</s>"
    )
import datasets
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments


def main() -> int:
    tokenizer = tiny_tokenizer()
    pairs = [("the cat sat on the mat", "the cat mat"), ("a dog ran fast", "dog a ran")] * 4
    ds = datasets.Dataset.from_dict(
        {
            "input_ids_chosen": [tokenizer(c)["input_ids"] for c, _ in pairs],
            "input_ids_rejected": [tokenizer(r)["input_ids"] for _, r in pairs],
            "label": [1] * len(pairs),
        }
    )

    def collate(rows):
        chosen = [torch.tensor(r["input_ids_chosen"]) for r in rows]
        ids = torch.nn.utils.rnn.pad_sequence(chosen, batch_first=True, padding_value=tokenizer.pad_token_id)
        return {"input_ids": ids, "labels": ids.masked_fill(ids == tokenizer.pad_token_id, -100)}

    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
    )
    args = TrainingArguments(
        output_dir="out", max_steps=2, per_device_train_batch_size=2,
        report_to=[], use_cpu=True, save_strategy="no",
        remove_unused_columns=False,  # FIX: the collator needs the custom columns
    )
    torch.manual_seed(0)
    trainer = Trainer(model=LlamaForCausalLM(config), args=args, train_dataset=ds, data_collator=collate)
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
