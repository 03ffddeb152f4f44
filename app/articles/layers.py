"""Who fixes it: one sentence per layer a failure lives in, in both languages (issue 9).

Xid, ECC and NCCL transport failures are not bugs in a training script; a
result that says so, with the evidence lines, sends people to their
infrastructure team instead of into their code. Answers, bot summaries and
the result page all take their sentence from here.
"""

from __future__ import annotations

LAYER_NOTES: dict[str, dict[str, str]] = {
    "hardware": {
        "en": "This is a node problem (GPU, driver or memory), not your code: "
        "send the evidence lines and the host name to your infrastructure team.",
        "zh": "这是节点（GPU、驱动或显存）的问题，不是你的代码："
        "请把证据行和主机名发给基础设施团队。",
    },
    "cluster": {
        "en": "This is a cluster problem (network, NCCL transport, shared memory or ports), "
        "not your model code: check the nodes and the network with your infrastructure team.",
        "zh": "这是集群的问题（网络、NCCL 传输、共享内存或端口），不是模型代码："
        "请和基础设施团队一起检查节点和网络。",
    },
    "environment": {
        "en": "This is an environment problem (installed packages, builds, CUDA toolkit): "
        "fix the image or the virtualenv, not the training script.",
        "zh": "这是环境的问题（安装的包、编译、CUDA 工具链）："
        "需要修的是镜像或虚拟环境，而不是训练脚本。",
    },
    "framework": {
        "en": "This is a limit or a bug of a library: the fix is a workaround or a version "
        "change in your setup.",
        "zh": "这是某个库的限制或缺陷：修复方法是绕开它，或换一个版本。",
    },
    "user-code": {
        "en": "This comes from the training script or its configuration: the fix is in your code.",
        "zh": "问题出在训练脚本或它的配置上：需要修改你的代码。",
    },
}

INFRASTRUCTURE = frozenset({"hardware", "cluster"})
"""Layers whose fix belongs to whoever runs the machines, not to whoever wrote the job."""


def layer_note(layer: str, lang: str) -> str:
    """The sentence for ``layer`` in ``lang`` (English when the language is unknown)."""
    notes = LAYER_NOTES.get(layer, LAYER_NOTES["user-code"])
    return notes.get(lang, notes["en"])
