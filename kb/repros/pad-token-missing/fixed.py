"""The fix applied: give the tokenizer a pad token before padding.

For a decoder-only model the usual choice is to reuse the eos token as the pad
token, keep the model's ``pad_token_id`` in step with it, and mask the padded
positions out of the labels (-100) so that padding never counts in the loss.
The script pads the same batch as ``repro.py`` and runs one training step of
a tiny Llama built from a config (no download).

CPU only (launcher: python); needs transformers and tokenizers.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402

WORDS = ["<unk>", "<s>", "</s>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran"]


def build_tokenizer() -> PreTrainedTokenizerFast:
    core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def main() -> None:
    torch.manual_seed(0)
    tokenizer = build_tokenizer()
    if tokenizer.pad_token is None:  # the fix
        tokenizer.pad_token = tokenizer.eos_token

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    model = LlamaForCausalLM(config)

    batch = tokenizer(["the cat sat on the mat", "a dog ran"], padding=True, return_tensors="pt")
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    loss = model(**batch, labels=labels).loss
    loss.backward()
    print(f"padded batch {tuple(batch['input_ids'].shape)}, loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
