"""Reproduce: "SchemaInferenceError: Please pass `features` or at least one example when writing data".

A fine-tuning script builds its dataset with ``Dataset.from_generator`` from
every ``*.jsonl`` file of a data folder, but the files were exported as
``*.json``: the glob matches nothing, the generator yields no example, and
the Arrow writer has neither an example nor ``features`` to take a schema
from. ``datasets`` raises ``SchemaInferenceError`` and wraps it in
``DatasetGenerationError``. An empty data file, or a filter inside the
generator that drops every row, ends the same way.

CPU only, data written to a temporary folder, no downloads (launcher: python).
"""

import glob
import json
import os
import sys
import tempfile

import datasets


def write_data(folder: str) -> None:
    for part in range(2):
        with open(os.path.join(folder, f"part-{part}.json"), "w") as f:  # exported as .json
            for i in range(4):
                f.write(json.dumps({"instruction": f"say {i}", "output": str(i)}) + "\n")


def rows(pattern: str):
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for line in f:
                yield json.loads(line)


def main() -> int:
    folder = tempfile.mkdtemp()
    write_data(folder)
    pattern = os.path.join(folder, "*.jsonl")  # BUG: matches no file, so the generator yields nothing
    ds = datasets.Dataset.from_generator(rows, gen_kwargs={"pattern": pattern}, cache_dir=tempfile.mkdtemp())
    print(ds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
