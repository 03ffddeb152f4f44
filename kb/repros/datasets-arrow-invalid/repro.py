"""Reproduce: "pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 2 but got length 4".

A batched ``datasets.map`` tokenises long texts into several fixed-length
chunks (``return_overflowing_tokens=True``), so it returns more rows than it
received. The original ``text`` column is still in the batch with its 2 rows,
and Arrow cannot build a table from columns of different lengths.

CPU only, tokenizer and dataset built in memory, no downloads (launcher: python).
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


def main() -> int:
    tokenizer = tiny_tokenizer()
    ds = datasets.Dataset.from_dict({"text": ["the cat sat on the mat and the dog ran", "a red cat"]})

    def chunk(batch):
        return tokenizer(batch["text"], truncation=True, max_length=4, return_overflowing_tokens=True)

    ds = ds.map(chunk, batched=True)  # BUG: 2 rows in, 4 rows out, `text` still has 2
    print(ds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
