"""Fixed: check that tokenizer.model is the model, not a git-lfs pointer or a
truncated download, and fetch the real file before loading it.

Same folder as repro.py. The check reads the first bytes: a pointer starts with
``version https://git-lfs``, and its ``size`` line says how large the real file
is. The real file is what ``git lfs pull`` (or ``huggingface-cli download``,
``snapshot_download``) puts there; with no network here, a tiny SentencePiece
model trained on the spot stands for it.

CPU only, no network.
"""

import io
import sys
from pathlib import Path

import sentencepiece as spm

POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:9e556afd44213b6bd1be2b850ebbbd98f5481437a8021afaf58ee7fb1818d347\n"
    "size 499723\n"
)


def is_lfs_pointer(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(64).startswith(b"version https://git-lfs")


def git_lfs_pull(path: Path) -> None:
    """Stands for ``git lfs pull``: writes a real SentencePiece model."""
    lines = [f"the quick brown fox {i} jumps over the lazy dog {i * 7}" for i in range(200)]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=60, minloglevel=2)
    path.write_bytes(model.getvalue())


def main() -> int:
    repo = Path("tiny-llama")
    repo.mkdir(exist_ok=True)
    model_file = repo / "tokenizer.model"
    model_file.write_text(POINTER)
    if is_lfs_pointer(model_file):  # the fix: detect the pointer, fetch the real file
        print("tokenizer.model is a git-lfs pointer; fetching the real file", flush=True)
        git_lfs_pull(model_file)
    assert not is_lfs_pointer(model_file)
    sp = spm.SentencePieceProcessor(model_file=str(model_file))
    print("vocab size", sp.vocab_size(), "ids", sp.encode("hello world"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
