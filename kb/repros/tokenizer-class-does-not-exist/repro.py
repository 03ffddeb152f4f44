"""Reproduce: "ValueError: Tokenizer class TokenizersBackend does not exist or is
not currently imported."

``AutoTokenizer`` reads ``tokenizer_class`` from ``tokenizer_config.json`` and
looks the name up among the classes the installed transformers knows. A
tokenizer saved by transformers 5 records ``"tokenizer_class":
"TokenizersBackend"`` (its new generic fast tokenizer), which transformers 4
does not have; the same happens for a class added in a newer 4.x release, or
for a model's own class (``QWenTokenizer``, ``ChatGLMTokenizer``) when its
remote code is not loaded. Here a fine-tuned checkpoint saved with
transformers 5 (its tokenizer_config written the way 5.x writes it) is loaded
in a transformers 4.57 environment.

CPU only, no downloads (launcher: python); needs transformers 4.x.
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import AutoTokenizer, PreTrainedTokenizerFast  # noqa: E402


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
        tokenizer = AutoTokenizer.from_pretrained(ckpt)  # BUG: transformers 4 has no TokenizersBackend
        print(tokenizer("hello world")["input_ids"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
