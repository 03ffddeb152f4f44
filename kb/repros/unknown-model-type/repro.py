"""Reproduce: loading a checkpoint whose ``model_type`` this transformers does not know.

``AutoConfig`` / ``AutoModel*.from_pretrained`` read ``config.json`` and look
its ``model_type`` up in ``CONFIG_MAPPING``. A type that is not registered in
the running process fails there: transformers >= 4.37 raises ``ValueError: The
checkpoint you are trying to load has model type `...` but Transformers does
not recognize this architecture`` (chained to the original ``KeyError``);
older releases print only ``KeyError: '...'`` from ``configuration_auto.py``.

The two everyday causes print the same thing: a checkpoint newer than the
installed transformers (e.g. ``qwen3`` on 4.50), or an architecture defined by
another package (LLaVA's ``llava_llama``, a team's own model) whose code was
never imported, so it never registered itself. The script shows the second
one without any download: it defines a tiny Llama variant with its own
``model_type``, saves it, and loads the folder with ``AutoModelForCausalLM``
the way a training script in another process would.

CPU only (launcher: python); needs transformers.
"""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM  # noqa: E402


class TinyLabConfig(LlamaConfig):
    model_type = "tinylab_llama"


class TinyLabForCausalLM(LlamaForCausalLM):
    config_class = TinyLabConfig


def save_checkpoint(path: str) -> None:
    """What the package that owns the architecture did when it saved the model."""
    config = TinyLabConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    TinyLabForCausalLM(config).save_pretrained(path)


def main() -> None:
    with tempfile.TemporaryDirectory() as path:
        save_checkpoint(path)
        # A training script that never imported the package defining "tinylab_llama":
        model = AutoModelForCausalLM.from_pretrained(path)
        print(type(model).__name__)


if __name__ == "__main__":
    main()
