"""Fixed: rows whose text is missing are filtered out before tokenisation.

A CSV column of reviews has an empty cell. pandas reads it as NaN (a float),
``datasets.Dataset.from_pandas`` keeps it as None, and the batched
tokenisation hands the tokenizer a list that is not all strings.

CPU only, tokenizer and data built in memory, no downloads (launcher: python).
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
import pandas as pd


def main() -> int:
    tokenizer = tiny_tokenizer()
    frame = pd.DataFrame({"text": ["the cat sat", None, "a dog ran fast"], "label": [0, 1, 0]})  # empty cell
    ds = datasets.Dataset.from_pandas(frame)
    ds = ds.filter(lambda r: isinstance(r["text"], str) and r["text"].strip() != "")  # FIX: drop empty rows
    ds = ds.map(lambda b: tokenizer(b["text"], truncation=True), batched=True)
    print(ds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
