"""Reproduce: padding a batch with a tokenizer that has no pad token.

Decoder-only checkpoints (Llama, Mistral, Qwen base models, GPT-2, ...) often
ship a tokenizer with bos/eos/unk tokens but no ``pad_token``. Single texts
tokenize fine; the first call that pads a batch (``padding=True`` /
``"max_length"``, ``DataCollatorWithPadding``, ``tokenizer.pad``) checks for a
pad token in ``_get_padding_truncation_strategies`` and raises ``ValueError:
Asking to pad but the tokenizer does not have a padding token``.

No download: the script builds such a tokenizer in memory, a WordLevel
vocabulary with ``<s>``, ``</s>`` and ``<unk>`` wrapped in
``PreTrainedTokenizerFast``, and pads a batch of two sentences of different
length, as a fine-tuning script's preprocessing does.

CPU only (launcher: python); needs transformers and tokenizers.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402

WORDS = ["<unk>", "<s>", "</s>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran"]


def build_tokenizer() -> PreTrainedTokenizerFast:
    """A Llama-like tokenizer: bos, eos and unk, but no pad token."""
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def main() -> None:
    tokenizer = build_tokenizer()
    batch = ["the cat sat on the mat", "a dog ran"]
    encoded = tokenizer(batch, padding=True, return_tensors="pt")
    print(encoded["input_ids"].shape)


if __name__ == "__main__":
    main()
