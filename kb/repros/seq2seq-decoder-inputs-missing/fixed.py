"""Fixed: give the decoder its input (labels for training, generate() for inference).

Same tiny T5 as repro.py. Training: the batch carries ``labels`` and the model
derives ``decoder_input_ids`` by shifting them right. Inference: ``generate()``
starts the decoder from ``decoder_start_token_id``. A forward pass without a
target passes ``decoder_input_ids`` explicitly.

CPU only, no downloads (launcher: python).
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
        "labels": torch.randint(1, 64, (2, 5)),  # FIX: targets; decoder inputs follow
    }
    outputs = model(**batch)
    if outputs.loss is None:
        print("no loss", file=sys.stderr)
        return 1
    print(f"loss {outputs.loss.item():.4f}")
    start = torch.full((2, 1), model.config.decoder_start_token_id)
    logits = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], decoder_input_ids=start
    ).logits
    print(tuple(logits.shape))
    generated = model.generate(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], max_new_tokens=3
    )
    print(tuple(generated.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())
