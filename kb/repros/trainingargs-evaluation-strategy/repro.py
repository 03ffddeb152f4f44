"""Reproduce: "TrainingArguments.__init__() got an unexpected keyword argument
'evaluation_strategy'".

transformers 4.41 renamed the TrainingArguments field ``evaluation_strategy``
to ``eval_strategy`` and kept the old name as a deprecated alias (a
FutureWarning); 4.46 removed the alias. A script, notebook or tutorial written
for the old name now fails while the arguments are built, before any model is
loaded. TRL's configs (SFTConfig, DPOConfig, GRPOConfig...) and
Seq2SeqTrainingArguments subclass TrainingArguments and fail the same way.

CPU only, no downloads (launcher: python); needs transformers >= 4.46.
"""

import sys
import tempfile

from transformers import TrainingArguments


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            evaluation_strategy="steps",  # BUG: the pre-4.41 name, removed in 4.46
            eval_steps=10,
            per_device_train_batch_size=2,
            report_to=[],
        )
        print("eval strategy:", args.eval_strategy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
