"""Reproduce: "ValueError: You have to specify either decoder_input_ids or
decoder_inputs_embeds".

An encoder-decoder model (T5, mT5, BART's relatives, VisionEncoderDecoder...)
runs two stacks: the encoder reads ``input_ids``, the decoder needs its own
input, ``decoder_input_ids``. ``T5ForConditionalGeneration`` builds them
itself only from ``labels`` (shifted right). A batch with the encoder inputs
alone, as a feature-extraction or evaluation loop that calls ``model(**batch)``
passes, reaches the decoder stack with nothing to read and it raises.

A tiny T5 is built from a config; the batch is made by hand. CPU only, no
downloads (launcher: python).
"""

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import T5Config, T5ForConditionalGeneration  # noqa: E402


def tiny_t5() -> T5ForConditionalGeneration:
    torch.manual_seed(0)
    config = T5Config(
        vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
        decoder_start_token_id=0, pad_token_id=0,
    )
    return T5ForConditionalGeneration(config)


def main() -> int:
    model = tiny_t5()
    batch = {
        "input_ids": torch.randint(1, 64, (2, 7)),
        "attention_mask": torch.ones(2, 7, dtype=torch.long),
    }
    # BUG: no labels and no decoder_input_ids; the decoder has no input
    outputs = model(**batch)
    print(outputs.logits.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
