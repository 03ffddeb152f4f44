"""Reproduce: "OSError: Repo id must be in the form 'repo_name' or
'namespace/repo_name': '/.../output/checkpoint-2'" (older transformers: "Can't
load tokenizer for '...'").

``from_pretrained`` treats its argument as a local folder only if that folder
exists; anything else is taken for a Hub repository id. A local path with a
typo, relative to another working directory, or a folder that holds the model
but not the tokenizer files therefore fails with a message about repository
ids or about the tokenizer, not about the path. Here a fine-tuning run saved
to ``outputs/checkpoint-2`` and the evaluation script asks for
``output/checkpoint-2``.

CPU only, no downloads (HF_HUB_OFFLINE=1, launcher: python).
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import AutoTokenizer, PreTrainedTokenizerFast  # noqa: E402


def save_tokenizer(path: str) -> None:
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", "hello", "world"])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", unk_token="<unk>").save_pretrained(path)


def main() -> int:
    with tempfile.TemporaryDirectory() as root:
        save_tokenizer(os.path.join(root, "outputs", "checkpoint-2"))  # what the training run wrote
        ckpt = os.path.join(root, "output", "checkpoint-2")  # BUG: "output" instead of "outputs"
        tokenizer = AutoTokenizer.from_pretrained(ckpt)
        print(tokenizer("hello world")["input_ids"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
