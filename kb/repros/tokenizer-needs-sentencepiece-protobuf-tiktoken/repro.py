"""Reproduce: "LlamaTokenizer requires the SentencePiece library but it was not
found in your environment".

Slow (pure-Python) tokenizers of Llama, T5, Mistral, Gemma, XLM-R, ChatGLM ...
are built on the ``sentencepiece`` package; converting a SentencePiece or
tiktoken vocabulary to a fast tokenizer needs ``sentencepiece``/``protobuf``
or ``tiktoken``/``blobfile``. None of these are dependencies of
transformers. Here a model folder whose tokenizer_config names
``LlamaTokenizer`` is loaded with ``use_fast=False`` (as many fine-tuning
scripts do) in an environment without sentencepiece.

CPU only, no downloads (launcher: python); needs transformers, no sentencepiece.
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import AutoTokenizer, PreTrainedTokenizerFast  # noqa: E402


def write_tokenizer(path: str) -> None:
    """A Llama-style tokenizer folder: tokenizer.json plus a config naming LlamaTokenizer."""
    vocab = {w: i for i, w in enumerate(["<unk>", "<s>", "</s>", "hello", "world"])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", bos_token="<s>", eos_token="</s>").save_pretrained(path)
    config_path = os.path.join(path, "tokenizer_config.json")
    with open(config_path) as f:
        config = json.load(f)
    config["tokenizer_class"] = "LlamaTokenizer"
    with open(config_path, "w") as f:
        json.dump(config, f)


def main() -> int:
    with tempfile.TemporaryDirectory() as path:
        write_tokenizer(path)
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=False)  # BUG: slow tokenizer needs sentencepiece
        print(tokenizer("hello world")["input_ids"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
