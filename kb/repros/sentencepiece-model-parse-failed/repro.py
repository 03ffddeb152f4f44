"""Reproduce: sentencepiece cannot parse tokenizer.model because the file is a
git-lfs pointer, not the model.

A model repository cloned with ``git clone`` on a host without git-lfs (or with
``GIT_LFS_SKIP_SMUDGE=1``) holds, for every large file, a three-line text
pointer (``version https://git-lfs.github.com/spec/v1``, ``oid sha256:...``,
``size ...``) instead of its bytes. The tokenizer's SentencePiece model is one
of them; loading it (``SentencePieceProcessor``, or transformers' slow Llama /
T5 / Baichuan / ChatGLM tokenizers, which call it) fails with
"RuntimeError: INTERNAL: could not parse ModelProto from .../tokenizer.model"
(sentencepiece 0.2.x) or "Internal: src/sentencepiece_processor.cc(1101)
[model_proto->ParseFromArray(serialized.data(), serialized.size())]" (0.1.97
to 0.1.99).

CPU only, no network: the repository is a local folder written here.
"""

import sys
from pathlib import Path

import sentencepiece as spm

POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:9e556afd44213b6bd1be2b850ebbbd98f5481437a8021afaf58ee7fb1818d347\n"
    "size 499723\n"
)


def main() -> int:
    repo = Path("tiny-llama")  # what `git clone` left without git-lfs
    repo.mkdir(exist_ok=True)
    (repo / "tokenizer.model").write_text(POINTER)
    print("tokenizer.model:", (repo / "tokenizer.model").stat().st_size, "bytes", flush=True)
    sp = spm.SentencePieceProcessor(model_file=str(repo / "tokenizer.model"))  # fails: not a ModelProto
    print(sp.encode("hello world"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
