"""The fix: every token on the command line names a field of one of the dataclasses.

The script version in use defines the fields it reads; ``--help`` lists them.
A field the script needs but lacks (``lora_rank`` here) is added to its
dataclass, and the misspelt option is corrected. Where a wrapper must pass
extra tokens on purpose, ``return_remaining_strings=True`` hands them back
instead of raising.
"""

import sys
import tempfile
from dataclasses import dataclass, field

from transformers import HfArgumentParser, TrainingArguments


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="tiny-llama")
    use_lora: bool = field(default=False)
    lora_rank: int = field(default=8)  # FIX: the field the launch command sets


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        argv = [
            "--model_name_or_path",
            "./tiny-llama",
            "--output_dir",
            out,
            "--use_lora",
            "true",
            "--lora_rank",
            "8",
            "--per_device_train_batch_size",
            "4",  # FIX: the field's real name
            "--report_to",
            "none",
        ]
        parser = HfArgumentParser((ModelArguments, TrainingArguments))
        model_args, training_args = parser.parse_args_into_dataclasses(args=argv)
        assert model_args.lora_rank == 8
        assert training_args.per_device_train_batch_size == 4
        print("batch:", training_args.per_device_train_batch_size, "rank:", model_args.lora_rank)
    return 0


if __name__ == "__main__":
    sys.exit(main())
