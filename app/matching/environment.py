"""Versions of the training stack as the log shows them.

Articles state the versions they affect (``affects``); the ranker weighs them
against the versions in use. Callers may send them (``env``); otherwise they
are read from what jobs commonly print: ``pip freeze`` (``torch==2.3.1``),
``pip list`` (``torch 2.3.1``), ``python -m torch.utils.collect_env``
(``PyTorch version: 2.3.1+cu121``), ``transformers-cli env``
(``- `transformers` version: 4.44.2``) and DeepSpeed's banners
(``DeepSpeed info: version=0.14.4``, also behind a logger's prefix), and the
CUDA version collect_env reports (``CUDA used to build PyTorch: 12.1``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import re2

from app.articles.patterns import re2_options

PACKAGES = (
    "torch",
    "transformers",
    "accelerate",
    "deepspeed",
    "trl",
    "peft",
    "flash-attn",
    "flash_attn",
    "bitsandbytes",
    "vllm",
    "megatron-core",
    "nccl",
    "triton",
    "datasets",
)
ALIASES = {"pytorch": "torch", "flash_attn": "flash-attn", "nvidia-nccl-cu12": "nccl"}
VERSION = r"(\d+\.\d+(?:\.\d+)*(?:[.+-]?[A-Za-z0-9]+)*)"
MAX_LINE = 300


@cache
def _pattern() -> Any:
    """One multi-line RE2 program for every form above, run once over the head of the log."""
    names = "|".join(n.replace("-", "[-_]") for n in (*PACKAGES, "pytorch", "nvidia-nccl-cu12"))
    forms = (
        rf"^[ \t]*-?[ \t]*`?(?i:({names}))`?[ \t]*(?:==|[ \t]+|[ \t]*version:[ \t]*|[ \t]*:[ \t]*)"
        rf"{VERSION}[ \t]*$",
        rf"^(?i:(pytorch|torch)) version:[ \t]*{VERSION}",
        rf"^[^\n]{{0,200}}?\b(?i:(deepspeed)) info:[ \t]*version={VERSION}",
        rf"^(?i:(cuda) (?:used to build pytorch|runtime version)):[ \t]*{VERSION}",
    )
    return re2.compile("(?m)" + "|".join(f"(?:{form})" for form in forms), re2_options())


def detect_versions(lines: Iterable[str]) -> dict[str, str]:
    """Package -> version for the packages errkb's articles talk about; first seen wins."""
    found: dict[str, str] = {}
    text = "\n".join(line for line in lines if len(line) <= MAX_LINE)
    for match in _pattern().finditer(text):
        groups = [g for g in match.groups() if g is not None]
        name = groups[0].lower().replace("_", "-")
        found.setdefault(ALIASES.get(name, name), groups[1])
    return found
