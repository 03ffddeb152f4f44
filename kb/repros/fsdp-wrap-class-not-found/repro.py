"""Reproduce: FSDP's transformer auto-wrap policy names a layer class the model
does not contain.

With ``fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP``, accelerate (and the
Trainer through it) turns each name in ``fsdp_transformer_layer_cls_to_wrap``
(``transformer_cls_names_to_wrap``) into a class by walking the model's
modules and comparing class names (``get_module_class_from_name``). A name
no module has, here a recipe's ``LlamaDecoderLayer`` used for a Qwen2
model, stops ``FullyShardedDataParallelPlugin.set_auto_wrap_policy`` (what
``Accelerator.prepare`` calls before wrapping) with "ValueError: Could not
find the transformer layer class LlamaDecoderLayer in the model."; accelerate
0.18 and transformers 4.28's Trainer said "Exception: Could not find the
transformer layer class to wrap in the model."

CPU only, one process (launcher: python): a two-layer Qwen2 model built from a
config (no download), accelerate 1.15.0, transformers 4.57.6; no process
group is needed to build the policy.
"""

import torch
from accelerate.utils import FullyShardedDataParallelPlugin
from transformers import Qwen2Config, Qwen2ForCausalLM

config = Qwen2Config(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2)
model = Qwen2ForCausalLM(config)
print("model class", type(model).__name__, "| _no_split_modules", model._no_split_modules, flush=True)

plugin = FullyShardedDataParallelPlugin(
    auto_wrap_policy="transformer_based_wrap",
    transformer_cls_names_to_wrap=["LlamaDecoderLayer"],  # copied from a Llama recipe
)
plugin.set_auto_wrap_policy(model)  # fails here
print("policy built", plugin.auto_wrap_policy, torch.__version__)
