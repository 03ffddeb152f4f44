"""Fixed: DataCollatorForSeq2Seq pads the labels (with -100) as well as the inputs.

A seq2seq-style dataset has tokenised inputs and tokenised targets
(``labels``) of different lengths. The script batches it with
``DataCollatorWithPadding``, which pads only the tokenizer's own fields
(input_ids, attention_mask) and leaves ``labels`` ragged; turning the ragged
lists into one tensor fails, and the message names the field.

CPU only, tokenizer built in memory, no downloads (launcher: python).
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
from transformers import DataCollatorForSeq2Seq


def main() -> int:
    tokenizer = tiny_tokenizer()
    pairs = [("the cat sat", "a cat sat on the mat"), ("a dog ran", "the dog ran fast"), ("red", "blue")]
    features = [
        {"input_ids": tokenizer(src)["input_ids"], "labels": tokenizer(tgt)["input_ids"]} for src, tgt in pairs
    ]
    collator = DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100)  # FIX: pads labels too
    batch = collator(features)
    print({k: tuple(v.shape) for k, v in batch.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
