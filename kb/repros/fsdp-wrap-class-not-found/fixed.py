"""Fixed: name the decoder layer class this model really has, or leave the list
unset so accelerate takes the model's own ``_no_split_modules``.

CPU only, one process (launcher: python); same model and versions as repro.py.
"""

from accelerate.utils import FullyShardedDataParallelPlugin
from transformers import Qwen2Config, Qwen2ForCausalLM

config = Qwen2Config(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2)
model = Qwen2ForCausalLM(config)
layer_classes = sorted({type(m).__name__ for m in model.modules() if type(m).__name__.endswith("DecoderLayer")})
print("decoder layer classes in the model:", layer_classes)

for names in (layer_classes, None):  # the model's own class; the default from _no_split_modules
    plugin = FullyShardedDataParallelPlugin(auto_wrap_policy="transformer_based_wrap",
                                            transformer_cls_names_to_wrap=names)
    plugin.set_auto_wrap_policy(model)
    wrapped = plugin.auto_wrap_policy.keywords["transformer_layer_cls"]
    print("names", names, "-> wraps", sorted(c.__name__ for c in wrapped))
