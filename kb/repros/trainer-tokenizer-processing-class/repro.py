"""Reproduce: "SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'".

transformers 4.46 and TRL 0.12 renamed the trainers' ``tokenizer`` argument to
``processing_class`` (it may also be an image processor or a multimodal
processor). The old keyword was a deprecated alias for a while; TRL removed it
from its trainers in 0.16 (SFTTrainer, DPOTrainer, GRPOTrainer ...) and
transformers removed it from ``Trainer`` in 5.0. Code written before the
rename now fails while the trainer is constructed.

A tiny Llama and a word-level tokenizer are built in memory; the dataset is a
Python list. CPU only, no downloads (launcher: python); needs trl >= 0.16.
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
            tokenizer=tokenizer,  # BUG: renamed to processing_class
        )
        trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
