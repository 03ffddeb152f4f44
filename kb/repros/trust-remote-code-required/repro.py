"""Reproduce: "The repository ... contains custom code which must be executed to
correctly load the model ... Please pass the argument `trust_remote_code=True`"
(older transformers: "Loading ... requires you to execute the configuration
file in that repo on your local machine").

Many Chinese and research models (ChatGLM, Baichuan, InternLM, MiniCPM, Qwen-1,
DeepSeek-V2/V3 before native support, Phi-3-vision ...) ship their own Python
code next to the weights and name it in ``config.json``'s ``auto_map``.
transformers runs such code only when asked to with ``trust_remote_code=True``;
without it the Auto classes refuse. Here a tiny model folder with its own
``configuration_tinyglm.py`` is written, the way those repositories look.

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
        config = AutoConfig.from_pretrained(repo)  # BUG: custom code needs trust_remote_code=True
        print(type(config).__name__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
