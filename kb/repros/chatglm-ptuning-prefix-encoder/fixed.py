"""Fixed: the config is loaded with the training's ``pre_seq_len``, then the prefix.

The article's fix: ``AutoConfig.from_pretrained(base, trust_remote_code=True,
pre_seq_len=4)`` (the value used in training) and the model built from that
config, so the remote ``ChatGLMModel`` creates its ``prefix_encoder``; the
P-Tuning checkpoint's weights then load into it. Same remote-code folder and
checkpoint as repro.py; the script checks that the loaded prefix equals the
saved one and runs a forward pass.

CPU only, no downloads (launcher: python); needs transformers.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import AutoConfig, AutoModel  # noqa: E402

CONFIGURATION = '''
from transformers import PretrainedConfig


class ChatGLMConfig(PretrainedConfig):
    model_type = "chatglm"

    def __init__(self, vocab_size=64, hidden_size=16, num_layers=2, pre_seq_len=None,
                 prefix_projection=False, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.pre_seq_len = pre_seq_len
        self.prefix_projection = prefix_projection
        kwargs.setdefault("tie_word_embeddings", False)
        super().__init__(**kwargs)
'''

MODELING = '''
import torch
from transformers import PreTrainedModel

from .configuration_chatglm import ChatGLMConfig


class PrefixEncoder(torch.nn.Module):
    """P-Tuning v2: one learned key and value per prefix position and layer."""

    def __init__(self, config):
        super().__init__()
        width = config.num_layers * config.hidden_size * 2
        self.embedding = torch.nn.Embedding(config.pre_seq_len, width)

    def forward(self, prefix):
        return self.embedding(prefix)


class ChatGLMModel(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = torch.nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = torch.nn.ModuleList(
            torch.nn.Linear(config.hidden_size, config.hidden_size) for _ in range(config.num_layers)
        )
        self.pre_seq_len = config.pre_seq_len
        if self.pre_seq_len is not None:  # as in ChatGLM: only for P-Tuning v2
            for param in self.parameters():
                param.requires_grad = False
            self.prefix_tokens = torch.arange(self.pre_seq_len).long()
            self.prefix_encoder = PrefixEncoder(config)

    def get_input_embeddings(self):
        return self.word_embeddings

    def forward(self, input_ids):
        hidden = self.word_embeddings(input_ids)
        for layer in self.layers:
            hidden = torch.tanh(layer(hidden))
        return hidden


class ChatGLMForConditionalGeneration(PreTrainedModel):
    config_class = ChatGLMConfig
    base_model_prefix = "transformer"

    def __init__(self, config):
        super().__init__(config)
        self.transformer = ChatGLMModel(config)
        self.lm_head = torch.nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def _init_weights(self, module):
        pass

    def get_input_embeddings(self):
        return self.transformer.word_embeddings

    def get_output_embeddings(self):
        return self.lm_head

    def forward(self, input_ids):
        return self.lm_head(self.transformer(input_ids))
'''

AUTO_MAP = {
    "AutoConfig": "configuration_chatglm.ChatGLMConfig",
    "AutoModel": "modeling_chatglm.ChatGLMForConditionalGeneration",
}
CONFIG_JSON = {"model_type": "chatglm", "auto_map": AUTO_MAP, "vocab_size": 64, "hidden_size": 16, "num_layers": 2}


def write_base_model(folder: Path) -> None:
    """A remote-code checkpoint as on the Hub: code files, config with auto_map, weights."""
    (folder / "configuration_chatglm.py").write_text(CONFIGURATION)
    (folder / "modeling_chatglm.py").write_text(MODELING)
    (folder / "config.json").write_text(json.dumps(CONFIG_JSON))
    config = AutoConfig.from_pretrained(folder, trust_remote_code=True)
    AutoModel.from_config(config, trust_remote_code=True).save_pretrained(folder)
    # save_pretrained rewrote it; keep the config as shipped (auto_map, no pre_seq_len)
    (folder / "config.json").write_text(json.dumps(CONFIG_JSON))


def write_ptuning_checkpoint(folder: Path, pre_seq_len: int) -> None:
    """What P-Tuning v2 training saves: only the prefix encoder's weights."""
    weight = torch.randn(pre_seq_len, 2 * 2 * 16)
    folder.mkdir()
    torch.save({"transformer.prefix_encoder.embedding.weight": weight}, folder / "pytorch_model.bin")


def load_prefix(model: torch.nn.Module, ckpt: Path) -> None:
    state = torch.load(ckpt / "pytorch_model.bin", map_location="cpu")
    prefix = {
        k[len("transformer.prefix_encoder.") :]: v
        for k, v in state.items()
        if k.startswith("transformer.prefix_encoder.")
    }
    model.transformer.prefix_encoder.load_state_dict(prefix)


def main() -> int:
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        base, ckpt = Path(tmp) / "chatglm-6b", Path(tmp) / "ptuning-checkpoint"
        base.mkdir()
        write_base_model(base)
        write_ptuning_checkpoint(ckpt, pre_seq_len=4)
        config = AutoConfig.from_pretrained(base, trust_remote_code=True, pre_seq_len=4)  # FIX
        model = AutoModel.from_pretrained(base, config=config, trust_remote_code=True)
        load_prefix(model, ckpt)
        loaded = model.transformer.prefix_encoder.embedding.weight
        saved = torch.load(ckpt / "pytorch_model.bin")["transformer.prefix_encoder.embedding.weight"]
        logits = model(torch.tensor([[1, 2, 3]]))
        print("prefix loaded:", tuple(loaded.shape), "logits:", tuple(logits.shape))
        if not torch.equal(loaded, saved) or tuple(logits.shape) != (1, 3, 64):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
