"""The environment a run records, and whether it meets the article's ``requires.packages``.

A verification is only as useful as its environment is precise: "verified on
torch 2.13.0+cpu, Python 3.11.7" is a fact, "verified" alone is a rumour. The
versions are asked of the environment under test (``probe.py`` runs with its
interpreter); GPUs are asked of ``nvidia-smi`` on the worker. A package that
is missing or out of range makes the run *unverifiable* before any script
runs: the repro would fail for the wrong reason and read as *drifted*.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from app.verify.model import Environment

PROBE = Path(__file__).with_name("probe.py")
NVIDIA_SMI_QUERY = ("--query-gpu=index,name,driver_version", "--format=csv,noheader")


@dataclass(frozen=True)
class Gpu:
    index: str
    name: str
    driver: str


class ProbeFailed(Exception):
    """The interpreter under test could not report its environment."""


def detect_gpus() -> list[Gpu]:
    """This host's NVIDIA GPUs (none without ``nvidia-smi`` or when it fails)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        done = subprocess.run(  # noqa: S603
            [smi, *NVIDIA_SMI_QUERY], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return []
    rows = [line.split(",") for line in done.stdout.splitlines() if line.strip()]
    return [Gpu(*(part.strip() for part in row[:3])) for row in rows if len(row) >= 3]


def probe(python: str, packages: Sequence[str], env: dict[str, str], timeout: float) -> Environment:
    """Versions of Python, torch, its CUDA build and every named package, from ``python``."""
    names = sorted({_name(p) for p in packages} | {"torch"})
    command = [python, "-I", str(PROBE), json.dumps(names)]
    try:
        done = subprocess.run(  # noqa: S603
            command, capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ProbeFailed(f"cannot run {python}: {type(exc).__name__}: {exc}") from exc
    if done.returncode != 0:
        raise ProbeFailed(f"{python} exited {done.returncode}: {done.stderr.strip()[-300:]}")
    try:
        report: Environment = json.loads(done.stdout)
    except ValueError as exc:
        raise ProbeFailed(f"{python} printed no JSON: {done.stdout[-200:]!r}") from exc
    return report


def describe(report: Environment, gpus: Sequence[Gpu], executor: str) -> Environment:
    """The run's ``environment``: the probe's report plus the GPUs it was given."""
    return {
        **report,
        "cuda_driver": gpus[0].driver if gpus else None,
        "gpu_model": gpus[0].name if gpus else None,
        "gpu_count": len(gpus),
        "platform": f"{platform.system()}-{platform.machine()}",
        "executor": executor,
    }


def unmet(
    packages: Sequence[str],
    versions: dict[str, str | None],
    what: str = "the environment under test does not meet requires.packages",
) -> str | None:
    """Why the installed versions do not meet ``packages`` (PEP 508), or None."""
    problems = []
    for text in packages:
        requirement = Requirement(text)
        installed = versions.get(requirement.name)
        if installed is None:
            problems.append(f"{requirement.name} is not installed")
        elif not _satisfies(requirement, installed):
            problems.append(f"{requirement.name} {installed} does not satisfy {text}")
    if not problems:
        return None
    return f"{what}: " + "; ".join(problems)


def _satisfies(requirement: Requirement, installed: str) -> bool:
    try:
        return requirement.specifier.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        return False


def _name(text: str) -> str:
    try:
        return Requirement(text).name
    except InvalidRequirement:
        return text
