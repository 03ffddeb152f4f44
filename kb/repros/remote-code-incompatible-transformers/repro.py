"""Reproduce: "ChatGLMTokenizer._pad() got an unexpected keyword argument
'padding_side'" -- remote model code written for an older transformers.

A model repository's own ``tokenization_*.py`` / ``modeling_*.py`` overrides
internals of transformers (``_pad``, ``_extract_past_from_model_output``, the
cache classes' ``get_usable_length`` / ``seen_tokens`` ...). When transformers
changes those internals, the frozen remote files break with an
AttributeError, TypeError or ImportError inside ``transformers_modules``.
Here the remote tokenizer overrides ``_pad`` with the pre-4.45 signature (as
ChatGLM2/3's did); transformers >= 4.45 passes ``padding_side`` to it.

CPU only, no downloads (launcher: python); needs transformers >= 4.45.
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from transformers import AutoTokenizer  # noqa: E402

PAD_SIGNATURE = "def _pad(self, encoded_inputs, max_length=None, padding_strategy=PaddingStrategy.DO_NOT_PAD, pad_to_multiple_of=None, return_attention_mask=None):"

TOKENIZER_CODE = '''
from transformers import PreTrainedTokenizer
from transformers.utils import PaddingStrategy

WORDS = ["<pad>", "<unk>", "hello", "world", "chat"]


class TinyGLMTokenizer(PreTrainedTokenizer):
    vocab_files_names = {}

    def __init__(self, **kwargs):
        self.vocab = {w: i for i, w in enumerate(WORDS)}
        super().__init__(pad_token="<pad>", unk_token="<unk>", **kwargs)

    @property
    def vocab_size(self):
        return len(self.vocab)

    def get_vocab(self):
        return dict(self.vocab)

    def _tokenize(self, text):
        return text.split()

    def _convert_token_to_id(self, token):
        return self.vocab.get(token, 1)

    def _convert_id_to_token(self, index):
        return WORDS[index]

    def save_vocabulary(self, save_directory, filename_prefix=None):
        return ()

    PAD_SIGNATURE
        # left padding, as the ChatGLM tokenizers do
        ids = encoded_inputs["input_ids"]
        if padding_strategy == PaddingStrategy.LONGEST or max_length is None:
            return encoded_inputs
        diff = max_length - len(ids)
        if diff > 0:
            encoded_inputs["input_ids"] = [0] * diff + ids
            if return_attention_mask is not False:
                encoded_inputs["attention_mask"] = [0] * diff + [1] * len(ids)
        return encoded_inputs
'''


def write_repo(path: str, pad_signature: str) -> None:
    """The model folder as the remote repository ships it."""
    with open(os.path.join(path, "tokenization_tinyglm.py"), "w") as f:
        f.write(TOKENIZER_CODE.replace("PAD_SIGNATURE", pad_signature))
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "TinyGLMTokenizer",
                   "auto_map": {"AutoTokenizer": ["tokenization_tinyglm.TinyGLMTokenizer", None]}}, f)


def main() -> int:
    with tempfile.TemporaryDirectory() as repo:
        write_repo(repo, PAD_SIGNATURE)  # BUG: remote code frozen at the pre-4.45 _pad signature
        tokenizer = AutoTokenizer.from_pretrained(repo, trust_remote_code=True)
        batch = tokenizer(["hello world chat", "hello"], padding=True)
        print(batch["input_ids"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
