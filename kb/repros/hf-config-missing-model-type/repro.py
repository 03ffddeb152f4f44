"""Reproduce: "ValueError: Unrecognized model in <dir>. Should have a `model_type` key in its config.json".

A training script saves its fine-tuned weights with ``torch.save`` and writes
its own ``config.json`` (the hyperparameters it used, a habit of many
research repositories) next to them. ``AutoModelForCausalLM.from_pretrained``
then reads that ``config.json``: it has no ``model_type``, and the folder name
contains no known model type either, so transformers cannot tell which
architecture to build.

CPU only, no downloads: a one-layer Llama built from a config, saved to a
temporary folder (launcher: python). The folder is passed as the relative
``./run-0042``: transformers tries every known model type as a substring of
the whole path it is given, and a random ``/tmp/tmpXXXXXXXX`` name holds one
(``t5``, ``vit``, ``opt``, ...) about once in 28 runs.
"""

import json
import os
import sys
import tempfile

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM


def main() -> int:
    config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2)
    model = LlamaForCausalLM(config)
    os.chdir(tempfile.mkdtemp())
    out = "./run-0042"
    os.makedirs(out)
    torch.save(model.state_dict(), os.path.join(out, "pytorch_model.bin"))
    with open(os.path.join(out, "config.json"), "w") as f:  # BUG: the script's own settings, not a model config
        json.dump({"learning_rate": 2e-5, "epochs": 3, "hidden_size": 16, "num_layers": 1}, f)
    reloaded = AutoModelForCausalLM.from_pretrained(out)
    print(type(reloaded).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
