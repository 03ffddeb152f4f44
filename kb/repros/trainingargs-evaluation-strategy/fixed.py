"""Fixed: pass the current name ``eval_strategy``.

Same arguments as repro.py with the field renamed; it is accepted by every
transformers release since 4.41, so scripts that must run on both old and new
installs can use it unconditionally (or pin transformers<4.41 and keep the
old name). The script checks the value really reached the arguments.

CPU only, no downloads (launcher: python); needs transformers >= 4.41.
"""

import sys
import tempfile

from transformers import TrainingArguments


def main() -> int:
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            eval_strategy="steps",  # FIX: the name used since transformers 4.41
            eval_steps=10,
            per_device_train_batch_size=2,
            report_to=[],
        )
        if str(getattr(args.eval_strategy, "value", args.eval_strategy)) != "steps":
            print(f"unexpected eval_strategy: {args.eval_strategy!r}", file=sys.stderr)
            return 1
        print("eval strategy:", args.eval_strategy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
