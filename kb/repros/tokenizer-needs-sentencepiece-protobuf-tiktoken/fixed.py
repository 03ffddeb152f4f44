"""Fixed: use the fast tokenizer the folder already ships (tokenizer.json).

Same folder as repro.py. The folder has a ``tokenizer.json``, so the Rust
("fast") tokenizer needs neither sentencepiece nor protobuf; dropping
``use_fast=False`` loads it. (Where no tokenizer.json exists, installing
``sentencepiece`` and ``protobuf`` is the fix; see the article.) The script
checks it got the fast class and the expected ids.

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
        tokenizer = AutoTokenizer.from_pretrained(path)  # FIX: the fast tokenizer from tokenizer.json
        ids = tokenizer("hello world")["input_ids"]
        if not tokenizer.is_fast or ids[-2:] != [3, 4]:
            print(f"unexpected tokenizer {type(tokenizer).__name__} {ids}", file=sys.stderr)
            return 1
        print(type(tokenizer).__name__, ids)
    return 0


if __name__ == "__main__":
    sys.exit(main())
