"""Fixed: check the folder exists and load it by its real path.

Same run as repro.py. The evaluation script builds the path from the training
run's output directory, checks that it is a folder holding tokenizer files
before calling ``from_pretrained`` (so a wrong path fails with a message about
the path), and loads it.

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
        ckpt = os.path.join(root, "outputs", "checkpoint-2")  # FIX: the directory the run wrote
        if not os.path.isfile(os.path.join(ckpt, "tokenizer_config.json")):
            print(f"no tokenizer files in {ckpt}: {os.listdir(os.path.dirname(ckpt))}", file=sys.stderr)
            return 1
        tokenizer = AutoTokenizer.from_pretrained(ckpt)
        print(tokenizer("hello world")["input_ids"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
