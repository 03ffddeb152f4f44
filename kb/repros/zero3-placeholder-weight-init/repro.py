"""Reproduce: weight-initialisation code that runs after a model was built
under DeepSpeed ZeRO-3 (``zero.Init``) indexes a partitioned parameter, which
is an empty placeholder of shape (0,), and fails with "IndexError: index 0 is
out of bounds for dimension 0 with size 0".

The shape of transformers' ``_init_weights`` for ``nn.Embedding`` (normal
init, then ``weight[padding_idx].zero_()``) applied by ``post_init`` /
``initialize_weights`` to a model whose parameters ZeRO-3 has already
partitioned; releases that do not gather the parameters first (reported on
transformers 4.57 and 5.0 for Gemma 3 and BERT) fail exactly here.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29671")
os.environ.setdefault("RANK", "0")
os.environ.setdefault("LOCAL_RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")

import deepspeed  # noqa: E402
import deepspeed.comm.torch  # noqa: E402,F401
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.modules["deepspeed.comm.torch"].build_shm_op = lambda: None  # skip a slow, unrelated JIT build
deepspeed.utils.logging.set_log_level_from_string("info")  # INFO, as older releases logged

DS_CONFIG = {
    "train_micro_batch_size_per_gpu": 2,
    "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0},
}


class TinyEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(64, 32, padding_idx=0)
        self.dense = nn.Linear(32, 32)


def init_weights(module: nn.Module) -> None:
    """What a library's _init_weights does for each submodule."""
    if isinstance(module, nn.Linear):
        module.weight.data.normal_(mean=0.0, std=0.02)
        if module.bias is not None:
            module.bias.data.zero_()
    elif isinstance(module, nn.Embedding):
        module.weight.data.normal_(mean=0.0, std=0.02)
        if module.padding_idx is not None:
            module.weight.data[module.padding_idx].zero_()


def main() -> int:
    torch.manual_seed(0)
    deepspeed.init_distributed(dist_backend="gloo")
    with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
        model = TinyEncoder()  # partitioned at construction: every weight is now torch.Size([0])
    print("embedding weight:", tuple(model.word_embeddings.weight.shape), flush=True)
    model.apply(init_weights)  # BUG: the placeholders are indexed without gathering them
    print("initialised", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
