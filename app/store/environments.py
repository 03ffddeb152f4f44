"""Which verifier runs share an environment: the key of the verification matrix (issue 6).

Two runs are in the same environment when the parts that can change a verdict
agree: the Python minor version, torch, its CUDA build, the GPU model and
count, and the versions of the article's packages (and of fixed.py's, when
the article gives fixed.py a set of its own). The driver, the platform
string and the sandbox details vary between hosts without changing what a
repro does, so they make no new row. The key is stored with each run
(``verification_run.environment_key``, migration 0005) so the database can
pick the newest run per environment itself.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

ENVIRONMENT_KEYS = ("python", "torch", "cuda", "gpu_model", "gpu_count", "packages")


def python_minor(version: object) -> object:
    """``3.11.7`` -> ``3.11``: patch releases do not make a new environment."""
    if not isinstance(version, str):
        return version
    return ".".join(version.split(".")[:2])


def environment_key(environment: dict[str, Any] | None) -> str:
    """A 64-character key (sha256 of canonical JSON) of what decides an outcome."""
    chosen = {key: (environment or {}).get(key) for key in ENVIRONMENT_KEYS}
    chosen["python"] = python_minor(chosen["python"])
    if not chosen["gpu_count"]:
        chosen["gpu_count"] = 0  # a CPU run may say 0 or nothing
    fixed = (environment or {}).get("fixed")
    if isinstance(fixed, dict):  # fixed.py's own environment (repro.fixed_requires)
        chosen["fixed"] = fixed.get("packages")  # absent: the key of every run before it
    text = json.dumps(chosen, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def environment_label(environment: dict[str, Any] | None) -> str:
    """A few words that name an environment in a reason: ``torch 2.13.0, CUDA 12.8, 1 x H100``."""
    env = environment or {}
    words = []
    if env.get("torch"):
        words.append(f"torch {env['torch']}")
    if env.get("cuda"):
        words.append(f"CUDA {env['cuda']}")
    if env.get("gpu_count"):
        words.append(f"{env['gpu_count']} x {env.get('gpu_model') or 'GPU'}")
    elif env.get("gpu_count") == 0:
        words.append("CPU")
    if env.get("python"):
        words.append(f"Python {python_minor(env['python'])}")
    return ", ".join(words) or "an unrecorded environment"
