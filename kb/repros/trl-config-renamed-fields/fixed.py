"""Fixed: use the field names of the installed TRL (``max_length``).

Same config as repro.py with ``max_seq_length`` renamed ``max_length``. The
script then asks the installed ``SFTConfig`` which of the names it knows, the
check to run before porting an older training script.

CPU only, no downloads, no model (launcher: python); needs trl >= 0.16.
"""

import dataclasses
import sys
import tempfile

from trl import SFTConfig


def main() -> int:
    known = {f.name for f in dataclasses.fields(SFTConfig)}
    for name in ("max_seq_length", "max_length", "dataset_text_field", "packing"):
        print(f"SFTConfig.{name}: {'yes' if name in known else 'no'}")
    with tempfile.TemporaryDirectory() as out:
        config = SFTConfig(
            output_dir=out,
            max_length=512,  # FIX: the current name of the sequence-length limit
            dataset_text_field="text",
            packing=False,
            report_to=[],
            bf16=False,  # SFTConfig defaults to bf16; this CPU run has none
        )
        if config.max_length != 512:
            print(f"unexpected max_length {config.max_length}", file=sys.stderr)
            return 1
        print("max length:", config.max_length)
    return 0


if __name__ == "__main__":
    sys.exit(main())
