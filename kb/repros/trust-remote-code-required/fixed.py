"""Fixed: opt in to the repository's own code with ``trust_remote_code=True``.

Same model folder as repro.py. After reading the ``.py`` files the folder
ships (they run with your user's rights), the script passes
``trust_remote_code=True``; transformers imports ``configuration_tinyglm.py``
as a dynamic module and returns its config class.

CPU only, no downloads (launcher: python).
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from transformers import AutoConfig  # noqa: E402

CONFIG_CODE = '''
from transformers import PretrainedConfig


class TinyGLMConfig(PretrainedConfig):
    model_type = "tinyglm"

    def __init__(self, hidden_size=16, num_layers=1, pre_seq_len=None, **kwargs):
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.pre_seq_len = pre_seq_len
        super().__init__(**kwargs)
'''


def write_repo(path: str) -> None:
    """A model folder the way remote-code repositories ship it."""
    with open(os.path.join(path, "configuration_tinyglm.py"), "w") as f:
        f.write(CONFIG_CODE)
    config = {
        "model_type": "tinyglm",
        "auto_map": {"AutoConfig": "configuration_tinyglm.TinyGLMConfig"},
        "hidden_size": 16,
        "num_layers": 1,
    }
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f)


def main() -> int:
    with tempfile.TemporaryDirectory() as repo:
        write_repo(repo)
        config = AutoConfig.from_pretrained(repo, trust_remote_code=True)  # FIX: code was reviewed
        if type(config).__name__ != "TinyGLMConfig":
            print(f"unexpected config class {type(config).__name__}", file=sys.stderr)
            return 1
        print(type(config).__name__, "from", type(config).__module__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
