"""Reproduce: a module built under DeepSpeed ZeRO-3 (``zero.Init``) is run
outside any DeepSpeed engine, so its parameters are still the empty
placeholders of shape (0,) and ``F.embedding`` fails with
"RuntimeError: 'weight' must be 2-D".

The shape of an RLHF/DPO script: the policy goes through
``deepspeed.initialize`` (its engine gathers parameters around each
submodule's forward), while the frozen reference model is built under the
same ZeRO-3 config (``deepspeed.zero.Init`` here; transformers'
``from_pretrained`` does the same whenever a ZeRO-3 config is active) and
then called directly. Nothing gathers its parameters.

CPU only: DeepSpeed's CPU accelerator with the torch CPU process group, one
process (launcher: python); ``stage3_param_persistence_threshold: 0`` makes
the tiny model's parameters partitioned like a large model's. The JIT build of
DeepSpeed's CPU shared-memory collective op is skipped (it only speeds up
collectives and takes minutes to compile on a fresh machine).
"""

import os
import sys

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29661")
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
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "torch_adam": True}},
}


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(64, 32)
        self.lm_head = nn.Linear(32, 64)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.embed_tokens(input_ids))


def main() -> int:
    torch.manual_seed(0)
    deepspeed.init_distributed(dist_backend="gloo")
    with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
        policy = TinyLM()
        ref_model = TinyLM()  # the frozen reference model, partitioned at construction
    engine, _, _, _ = deepspeed.initialize(model=policy, model_parameters=policy.parameters(), config=DS_CONFIG)
    input_ids = torch.randint(0, 64, (2, 8))
    print("ref embedding weight:", tuple(ref_model.embed_tokens.weight.shape), flush=True)
    with torch.no_grad():
        ref_logits = ref_model(input_ids)  # BUG: no engine gathers the reference model's parameters
    loss = (engine(input_ids) - ref_logits).pow(2).mean()
    engine.backward(loss)
    engine.step()
    print("step done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
