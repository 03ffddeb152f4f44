"""Reproduce: "ValueError: Some specified arguments are not used by the
HfArgumentParser: [...]".

``HfArgumentParser`` builds one argparse parser from every field of the
dataclasses it is given (here the script's own ModelArguments and
transformers' TrainingArguments) and refuses any command-line token that no
field claimed. The launch command below was written for another version of
the script: it passes ``--lora_rank`` (a field this version does not have)
and ``--per_device_batch_size`` (the field is ``per_device_train_batch_size``;
a mere prefix such as ``--learning_rat`` would be accepted, since argparse
expands unambiguous abbreviations). The same check reads a YAML or JSON
config (``parse_yaml_file`` / ``parse_dict``) and then says "Some keys are
not used".

CPU only, no downloads (launcher: python); needs transformers and accelerate.
"""

import sys
import tempfile
from dataclasses import dataclass, field

from transformers import HfArgumentParser, TrainingArguments


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="tiny-llama")
    use_lora: bool = field(default=False)


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
            "8",  # BUG: a field of another version of this script
            "--per_device_batch_size",
            "4",  # BUG: not a TrainingArguments field
            "--report_to",
            "none",
        ]
        parser = HfArgumentParser((ModelArguments, TrainingArguments))
        model_args, training_args = parser.parse_args_into_dataclasses(args=argv)
        print("batch:", training_args.per_device_train_batch_size, "lora:", model_args.use_lora)
    return 0


if __name__ == "__main__":
    sys.exit(main())
