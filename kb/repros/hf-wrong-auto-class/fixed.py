"""Fixed: the checkpoint is loaded with the Auto class its architecture is registered under (AutoModelForImageTextToText).

A fine-tuning script written for text models loads every checkpoint with
``AutoModelForCausalLM``. A vision-language checkpoint (LLaVA here; Qwen2-VL,
InternVL, MiniCPM-V and T5-style seq2seq models alike) has a config type that
transformers knows, but the causal-LM Auto class has no entry for it: the
model is registered under ``AutoModelForImageTextToText`` /
``AutoModelForVision2Seq`` (or ``AutoModelForSeq2SeqLM``), so the lookup fails
before any weight is read.

CPU only, no downloads: a tiny LLaVA is built from configs and saved to a
temporary folder first (launcher: python).
"""

import sys
import tempfile

from transformers import (
    AutoModelForImageTextToText,
    CLIPVisionConfig,
    LlamaConfig,
    LlavaConfig,
    LlavaForConditionalGeneration,
)


def save_tiny_llava(path: str) -> None:
    text = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=2)
    vision = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                              num_attention_heads=2, image_size=28, patch_size=14, projection_dim=16)
    LlavaForConditionalGeneration(LlavaConfig(vision_config=vision, text_config=text, image_token_index=63)).save_pretrained(path)


def main() -> int:
    path = tempfile.mkdtemp()
    save_tiny_llava(path)
    model = AutoModelForImageTextToText.from_pretrained(path)  # FIX: the Auto class of its architecture
    print("loaded", type(model).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
