"""Fixed: the initialisation runs on gathered parameters.

Same model as repro.py. Each submodule's parameters are gathered with
``deepspeed.zero.GatheredParameters(..., modifier_rank=0)`` around the init
function, so it sees the real (64, 32) weight; rank 0's values are
re-partitioned to every rank when the block exits. This is what transformers
does in the releases that handle ZeRO-3 during initialisation.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29672")
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
    for module in model.modules():
        params = list(module.parameters(recurse=False))
        if not params:
            continue
        with deepspeed.zero.GatheredParameters(params, modifier_rank=0):
            init_weights(module)  # sees the full weights; rank 0's values are partitioned on exit
    with deepspeed.zero.GatheredParameters(list(model.parameters()), modifier_rank=None):
        assert model.word_embeddings.weight.shape == (64, 32)
        assert torch.all(model.word_embeddings.weight[0] == 0)
    print("initialised", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
