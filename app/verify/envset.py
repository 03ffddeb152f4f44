"""One environment under test per distinct ``requires.packages`` set: which, and its key (pure).

Version-drift articles pin exact library versions ("transformers==4.40.2")
that cannot share one environment with the newest stack, so each distinct
set of requirements gets its own environment, keyed by a hash of the set,
the pinned torch and the Python minor version. Torch is never the set's to
choose: every environment runs ``TORCH`` (the CPU build, so nothing ever
pulls CUDA wheels), a set whose torch requirement excludes it is refused
here, and ``envbuild.py`` installs under the constraint ``torch==TORCH`` so
no dependency can upgrade or replace it. Pure: no files, processes or clock.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from app.errors import InputError
from app.verify.plan import Plan, Unrunnable

TORCH = "2.13.0+cpu"  # the one torch of every CPU repro environment
LAYOUT = 1  # bump when what an environment holds changes for the same set
GPU_NEEDS_PYTHON = (
    "GPU runs need --python (an environment with a CUDA build of torch); "
    f"the per-set environments hold torch {TORCH}"
)


class TorchConflict(InputError):
    """A package set asks for a torch the repro environments do not run."""


@dataclass(frozen=True)
class EnvSpec:
    """What one environment holds: ``requirements`` (canonical, sorted, torch left out)."""

    requirements: tuple[str, ...]
    torch: str = TORCH
    python: str = "3.11"

    @property
    def key(self) -> str:
        """The folder name: 16 hex digits of sha256 over everything that shapes the environment."""
        return hashlib.sha256(self.stamp().encode()).hexdigest()[:16]

    def stamp(self) -> str:
        """The JSON written into a finished environment and compared before it is reused."""
        return json.dumps(
            {
                "layout": LAYOUT,
                "python": self.python,
                "torch": self.torch,
                "requirements": list(self.requirements),
            },
            sort_keys=True,
        )

    def requirements_txt(self) -> str:
        return "".join(f"{line}\n" for line in (f"torch=={self.torch}", *self.requirements))

    def constraints_txt(self) -> str:
        return f"torch=={self.torch}\n"

    def describe(self) -> str:
        return ", ".join(self.requirements) or "torch only"


@dataclass(frozen=True)
class EnvPlan:
    """Each planned run's environment: the specs by key, and which article uses which."""

    specs: Mapping[str, EnvSpec] = field(default_factory=dict)
    by_article: Mapping[str, str] = field(default_factory=dict)  # article id -> key
    conflicts: Mapping[str, str] = field(default_factory=dict)  # article id -> why not
    fixed_by_article: Mapping[str, str] = field(default_factory=dict)  # fixed.py's own set's key


def canonical(text: str) -> Requirement:
    """A requirement with its name canonicalised, so spelling never makes a new environment."""
    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise InputError(f"requires.packages: {text!r} is not a PEP 508 requirement") from exc
    requirement.name = canonicalize_name(requirement.name)
    return requirement


def spec_for(packages: Iterable[str], torch: str = TORCH, python: str = "3.11") -> EnvSpec:
    """The environment for ``packages``; ``TorchConflict`` when a torch requirement excludes it."""
    kept: set[str] = set()
    pinned = Version(torch)
    for text in packages:
        requirement = canonical(text)
        if requirement.name != "torch":
            kept.add(str(requirement))
        elif not requirement.specifier.contains(pinned, prereleases=True):
            raise TorchConflict(
                f"requires.packages asks for {text!r}, but every repro environment runs torch "
                f"{torch} (the CPU build; a set may not upgrade or replace it)"
            )
    return EnvSpec(tuple(sorted(kept)), torch, python)


def plan_envs(
    packages: Mapping[str, Iterable[str]],
    torch: str = TORCH,
    python: str = "3.11",
    fixed: Mapping[str, Iterable[str]] | None = None,
) -> EnvPlan:
    """One spec per distinct set among ``packages`` (article id -> its requires.packages).

    ``fixed`` holds the articles whose fixed.py has a set of its own
    (``repro.fixed_requires.packages``); a set equal to another article's
    shares its environment. A conflict in either set is the article's: none
    of its scripts runs.
    """
    specs: dict[str, EnvSpec] = {}
    by_article: dict[str, str] = {}
    fixed_by_article: dict[str, str] = {}
    conflicts: dict[str, str] = {}
    for article_id, wanted in sorted(packages.items()):
        try:
            spec = spec_for(wanted, torch, python)
            second = None
            if fixed is not None and article_id in fixed:
                second = _fixed_spec(fixed[article_id], torch, python)
        except InputError as exc:
            conflicts[article_id] = str(exc)
            continue
        specs.setdefault(spec.key, spec)
        by_article[article_id] = spec.key
        if second is not None:
            specs.setdefault(second.key, second)
            fixed_by_article[article_id] = second.key
    return EnvPlan(specs, by_article, conflicts, fixed_by_article)


def _fixed_spec(packages: Iterable[str], torch: str, python: str) -> EnvSpec:
    try:
        return spec_for(packages, torch, python)
    except InputError as exc:
        raise InputError(f"repro.fixed_requires: {exc}") from exc


def cpu_runs_only(plan: Plan, reason: str = GPU_NEEDS_PYTHON) -> Plan:
    """The plan with its GPU runs moved to *unrunnable*: the per-set environments are CPU only."""
    gpu = [run for run in plan.runs if run.repro.requires.gpus > 0]
    if not gpu:
        return plan
    return Plan(
        tuple(run for run in plan.runs if run.repro.requires.gpus == 0),
        (*plan.unrunnable, *(Unrunnable(run.article_id, reason) for run in gpu)),
        plan.refused,
    )


PIP_TO_UV = (
    ("find-links", "--find-links"),
    ("index-url", "--index-url"),
    ("extra-index-url", "--extra-index-url"),
)


def uv_sources(pip_config: str) -> list[str]:
    """uv options for the package sources pip is configured with (``pip config list`` output).

    uv reads no pip.conf, and the machine's sources (a find-links folder
    holding the CPU torch wheel, local mirrors) are configured for pip; this
    turns them into uv's ``--find-links``, ``--index-url``, ``--extra-index-url``.
    As in pip, a ``PIP_*`` variable (``:env:``) overrides the files' value.
    """
    found: dict[tuple[str, bool], list[str]] = {}
    for line in pip_config.splitlines():
        name, sep, raw = line.partition("=")
        section, _, option = name.strip().rpartition(".")
        if not sep or not section:
            continue
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            found.setdefault((option, section == ":env:"), []).extend(value.split())
    args: list[str] = []
    for option, flag in PIP_TO_UV:
        items = found.get((option, True)) or found.get((option, False)) or []
        if option == "index-url":
            items = items[-1:]  # one default index
        for item in dict.fromkeys(items):
            args += [flag, item]
    return args
