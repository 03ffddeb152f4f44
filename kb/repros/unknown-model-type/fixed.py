"""The fix applied: make the architecture known before loading.

For a checkpoint newer than the installed transformers the fix is an upgrade
(``pip install -U transformers``), which a script cannot show offline. For an
architecture that lives in another package, import that package or register
its classes with the Auto factories before ``from_pretrained``; that is what
this script does, with the same tiny checkpoint as ``repro.py``, and it then
runs a forward pass on the loaded model.

CPU only (launcher: python); needs transformers.
"""

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import torch  # noqa: E402
from transformers import (  # noqa: E402
    AutoConfig,
    AutoModelForCausalLM,
    LlamaConfig,
    LlamaForCausalLM,
)
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402


class TinyLabConfig(LlamaConfig):
    model_type = "tinylab_llama"


class TinyLabForCausalLM(LlamaForCausalLM):
    config_class = TinyLabConfig


def save_checkpoint(path: str) -> None:
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
    # the fix: register the architecture (or import the package that does it)
    AutoConfig.register("tinylab_llama", TinyLabConfig)
    AutoModelForCausalLM.register(TinyLabConfig, TinyLabForCausalLM)
    assert "tinylab_llama" in CONFIG_MAPPING

    with tempfile.TemporaryDirectory() as path:
        save_checkpoint(path)
        model = AutoModelForCausalLM.from_pretrained(path)
        logits = model(torch.tensor([[1, 2, 3]])).logits
        print(f"{type(model).__name__} loaded, logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
