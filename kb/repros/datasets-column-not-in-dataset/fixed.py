"""Fixed: each dataset is mapped with the columns it really has.

A classification script loads a labelled train file and an unlabelled test
file, takes the columns to drop from the train set (``['text', 'label']``)
and tokenises both with ``map(..., remove_columns=those)``. ``datasets``
checks ``remove_columns`` against the columns of the dataset being mapped
before running anything; the test set has no ``label``, so its ``map``
raises.

CPU only, data written to a temporary folder, no downloads; a toy tokeniser
(character codes) instead of a real one (launcher: python).
"""

import json
import os
import sys
import tempfile

import datasets


def write_jsonl(path: str, rows: list[dict]) -> None:
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def tokenize(batch: dict) -> dict:
    return {"input_ids": [[ord(c) % 64 for c in text] for text in batch["text"]]}


def main() -> int:
    folder = tempfile.mkdtemp()
    write_jsonl(os.path.join(folder, "train.jsonl"), [{"text": f"sample {i}", "label": i % 2} for i in range(8)])
    write_jsonl(os.path.join(folder, "test.jsonl"), [{"text": f"unseen {i}"} for i in range(4)])  # no labels
    train = datasets.load_dataset("json", data_files=os.path.join(folder, "train.jsonl"), split="train")
    test = datasets.load_dataset("json", data_files=os.path.join(folder, "test.jsonl"), split="train")
    print(train.column_names, test.column_names)  # ['text', 'label'] ['text']
    train = train.map(tokenize, batched=True, remove_columns=train.column_names)
    test = test.map(tokenize, batched=True, remove_columns=test.column_names)  # FIX: its own columns
    print(train, test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
