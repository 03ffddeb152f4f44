"""Fixed: the validation split is carved out of the single train split.

Local JSON lines data is loaded with ``load_dataset("json", data_files=...)``.
A single file (or a list of files) becomes one split named ``train``; the
script, written for a Hub dataset that has a validation split, asks for
``split="validation"``.

CPU only, data written to a temporary folder, no downloads (launcher: python).
"""

import json
import os
import sys
import tempfile

import datasets


def main() -> int:
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "data.jsonl")
    with open(path, "w") as f:
        for i in range(20):
            f.write(json.dumps({"text": f"sample {i}", "label": i % 2}) + "\n")
    full = datasets.load_dataset("json", data_files=path, split="train")
    parts = full.train_test_split(test_size=0.2, seed=0)  # FIX: make the validation split yourself
    train, valid = parts["train"], parts["test"]
    print(len(train), len(valid))
    return 0


if __name__ == "__main__":
    sys.exit(main())
