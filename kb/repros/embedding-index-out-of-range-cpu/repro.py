"""Reproduce: "IndexError: index out of range in self" from nn.Embedding on the CPU.

A fine-tuning script adds new tokens to the tokenizer (tool-call markers
here, the same happens with a new pad token or chat-template tokens) but never
resizes the model's embedding matrix. The new tokens get ids 20 and 21; the
embedding has 20 rows, so the lookup runs past the table. On the CPU PyTorch
raises IndexError at once; on a GPU the same mistake is a device-side assert.

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
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> int:
    torch.manual_seed(0)
    tokenizer = tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
    )
    model = LlamaForCausalLM(config)
    tokenizer.add_tokens(["<tool>", "</tool>"])  # BUG: the embedding still has len(WORDS) rows
    batch = tokenizer(["the cat <tool> sat </tool>"], return_tensors="pt", return_token_type_ids=False)
    loss = model(**batch, labels=batch["input_ids"]).loss
    loss.backward()
    print(f"loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
