"""Fixed: pass the tokenizer as ``processing_class``.

Same program as repro.py; the tokenizer goes in under the name the trainers
use since transformers 4.46 / TRL 0.12, and one training step runs to show
the trainer really uses it.

A tiny Llama and a word-level tokenizer are built in memory; the dataset is a
Python list. CPU only, no downloads (launcher: python); needs trl >= 0.12.
"""

import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from datasets import Dataset  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from trl import SFTConfig, SFTTrainer  # noqa: E402

WORDS = "the cat sat on a mat dog ran in park".split()


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", "<s>", "</s>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )


def main() -> int:
    tokenizer = tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, pad_token_id=0, bos_token_id=2, eos_token_id=3,
    )
    model = LlamaForCausalLM(config)
    data = Dataset.from_list([{"text": "the cat sat on a mat"}, {"text": "a dog ran in the park"}] * 4)
    with tempfile.TemporaryDirectory() as out:
        args = SFTConfig(output_dir=out, max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
        trainer = SFTTrainer(
            model=model,
            args=args,
            train_dataset=data,
            processing_class=tokenizer,  # FIX: the name since TRL 0.12 / transformers 4.46
        )
        trainer.train()
        if trainer.processing_class is not tokenizer:
            print("trainer did not keep the tokenizer", file=sys.stderr)
            return 1
        print("trained one step with processing_class")
    return 0


if __name__ == "__main__":
    sys.exit(main())
