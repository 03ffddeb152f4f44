"""Reproduce: "SFTConfig.__init__() got an unexpected keyword argument 'max_seq_length'".

TRL moved the data options of its trainers into their config classes
(``dataset_text_field``, ``max_seq_length``, ``packing`` went from
``SFTTrainer(...)`` to ``SFTConfig``; ``beta`` and the length limits from
``DPOTrainer(...)`` to ``DPOConfig``) and later renamed or dropped some of the
config fields: ``SFTConfig.max_seq_length`` became ``max_length`` (the old
name was removed in TRL 0.20). Code written for an earlier TRL fails while the
config is built.

CPU only, no downloads, no model (launcher: python); needs trl >= 0.20.
"""

import sys
import tempfile

from trl import SFTConfig


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        config = SFTConfig(
            output_dir=out,
            max_seq_length=512,  # BUG: renamed max_length, old name removed in TRL 0.20
            dataset_text_field="text",
            packing=False,
            report_to=[],
            bf16=False,  # SFTConfig defaults to bf16; this CPU run has none
        )
        print("max length:", config.max_length)
    return 0


if __name__ == "__main__":
    sys.exit(main())
