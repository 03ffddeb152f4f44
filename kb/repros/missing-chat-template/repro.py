"""Reproduce: "Cannot use chat template functions because tokenizer.chat_template is not set".

SFT data in the conversational format (a list of role/content messages) is
rendered with ``tokenizer.apply_chat_template``. The tokenizer belongs to a
*base* model, whose tokenizer_config.json has no ``chat_template`` (only chat
or instruct checkpoints ship one), and transformers >= 4.43 no longer falls
back to a default template.

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


def main() -> int:
    tokenizer = tiny_tokenizer()  # BUG: a base-model tokenizer without chat_template
    conversation = [
        {"role": "user", "content": "the cat sat"},
        {"role": "assistant", "content": "on the mat"},
    ]
    text = tokenizer.apply_chat_template(conversation, tokenize=False)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
