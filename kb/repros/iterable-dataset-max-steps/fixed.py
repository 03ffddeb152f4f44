"""Fixed: max_steps tells the Trainer how long to train on a stream of unknown length.

The training data is streamed (a ``datasets.IterableDataset``, as
``load_dataset(..., streaming=True)`` returns), so its length is unknown.
``TrainingArguments`` only says ``num_train_epochs``; the Trainer cannot turn
epochs into a number of optimizer steps for the learning-rate schedule and
refuses to start.

CPU only, tiny model built from a config, no downloads (launcher: python).
"""

import sys

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
    texts = ["the cat sat on the mat", "a dog ran fast", "the red cat is slow"] * 4
    stream = datasets.Dataset.from_dict({"text": texts}).to_iterable_dataset()  # like streaming=True
    stream = stream.map(lambda row: tokenizer(row["text"], return_token_type_ids=False), remove_columns=["text"])
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
    )
    args = TrainingArguments(
        output_dir="out", max_steps=6, per_device_train_batch_size=1,  # FIX: steps, not epochs
        report_to=[], use_cpu=True, save_strategy="no",
    )
    collate = lambda rows: {  # noqa: E731
        "input_ids": __import__("torch").tensor([r["input_ids"] for r in rows]),
        "labels": __import__("torch").tensor([r["input_ids"] for r in rows]),
    }
    trainer = Trainer(model=LlamaForCausalLM(config), args=args, train_dataset=stream, data_collator=collate)
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
