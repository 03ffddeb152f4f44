"""Fixed: load a transformers-5 tokenizer in transformers 4 as a generic fast tokenizer.

Same checkpoint as repro.py. The class name in tokenizer_config.json is only a
pointer; the vocabulary is in ``tokenizer.json``, which transformers 4 reads
with its generic ``PreTrainedTokenizerFast``. The script loads it through that
class (the alternative is to rewrite ``tokenizer_class`` in the config, or to
run the same transformers major version that saved it) and checks the ids.

CPU only, no downloads (launcher: python); needs transformers 4.x.
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast  # noqa: E402


def save_like_transformers5(path: str) -> None:
    """tokenizer.json + a tokenizer_config.json naming the v5 class."""
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", "hello", "world"])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", unk_token="<unk>").save_pretrained(path)
    config_path = os.path.join(path, "tokenizer_config.json")
    with open(config_path) as f:
        config = json.load(f)
    config["tokenizer_class"] = "TokenizersBackend"  # what transformers 5.x writes
    with open(config_path, "w") as f:
        json.dump(config, f)


def main() -> int:
    with tempfile.TemporaryDirectory() as ckpt:
        save_like_transformers5(ckpt)
        tokenizer = PreTrainedTokenizerFast.from_pretrained(ckpt)  # FIX: generic class reads tokenizer.json
        ids = tokenizer("hello world")["input_ids"]
        if ids != [2, 3] or tokenizer.pad_token != "<pad>":
            print(f"unexpected {ids} {tokenizer.pad_token}", file=sys.stderr)
            return 1
        print(type(tokenizer).__name__, ids)
    return 0


if __name__ == "__main__":
    sys.exit(main())
