"""The verifier's data: what a worker is asked to run, and what it hands back.

Plain frozen dataclasses with no behaviour beyond a few properties, so that a
``Job`` and a ``RunResult`` cross a process boundary (a Ray task's argument and
return value) by pickling, and a fake executor builds them by hand in tests.
What a result *means* (verified, stale, ...) is decided by ``outcome.py`` on
the coordinator, never on a worker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Launcher = Literal["python", "torchrun"]
Environment = dict[str, object]
REPRO, FIXED = "repro.py", "fixed.py"


@dataclass(frozen=True)
class Host:
    """What one machine offers a run: a run's ranks and GPUs must fit on one host."""

    cpus: int
    gpus: int


@dataclass(frozen=True)
class Resources:
    """The hosts an executor can place runs on (one for ``local``, a node each for ``ray``)."""

    hosts: tuple[Host, ...]

    @classmethod
    def single(cls, cpus: int, gpus: int) -> Resources:
        return cls((Host(cpus, gpus),))


@dataclass(frozen=True)
class Limits:
    """The runner's limits; the defaults are what a worker uses.

    Each limit names the reliability target that motivated it
    (shared/research/reliability-security.md, section E).
    """

    memory_bytes: int = 8 << 30  # RLIMIT_AS per process, CPU runs only (E4; never GPU: E13)
    file_bytes: int = 1 << 30  # RLIMIT_FSIZE: one file may not fill the disk (E5)
    tasks: int = 4096  # pids.max of the run's cgroup (threads count), RLIMIT_NPROC as non-root (E8)
    output_head: int = 4 << 20  # bytes kept from the start of the output (E5)
    output_tail: int = 4 << 20  # bytes kept from its end (E5)
    sigint_grace_s: float = 4.0  # after SIGINT, before SIGTERM (E1, E3)
    sigterm_grace_s: float = 3.0  # after SIGTERM, before SIGKILL (E3)
    network: bool = False  # False: a private network namespace with loopback only (E6)
    probe_timeout_s: float = 60.0  # the environment probe (importlib.metadata) is quick

    def worst_case_s(self, timeout_s: float) -> float:
        """How long one script can take at most, kill included."""
        return timeout_s + self.sigint_grace_s + self.sigterm_grace_s + 5.0


@dataclass(frozen=True)
class RunnerConfig:
    """How a worker runs scripts: the interpreter of the environment under test, and limits."""

    python: str
    limits: Limits = field(default_factory=Limits)
    bytecode: bool = False  # scripts may write .pyc into the environment (see sandbox.environment)


@dataclass(frozen=True)
class Interpreters:
    """Which interpreter runs which article, and why some have none (their set failed to build)."""

    by_article: Mapping[str, str] = field(default_factory=dict)
    broken: Mapping[str, str] = field(default_factory=dict)
    fixed_by_article: Mapping[str, str] = field(default_factory=dict)  # fixed.py's, when its own


@dataclass(frozen=True)
class Job:
    """One planned run of one article, with its scripts' bytes (workers need no KB checkout)."""

    run_id: str
    article_id: str
    content_hash: str
    launcher: Launcher
    processes: int
    gpus: int
    timeout_s: float
    packages: tuple[str, ...]
    files: tuple[tuple[str, bytes], ...]
    python: str | None = None  # this job's interpreter (its package set's); None: the config's
    # repro.fixed_requires: fixed.py's own set (None: it shares repro.py's environment) and the
    # interpreter of that set's environment (None: the config's, which must then meet it too)
    fixed_packages: tuple[str, ...] | None = None
    fixed_python: str | None = None


@dataclass(frozen=True)
class ScriptResult:
    """How one script ended; ``output`` is redacted and capped (head + tail)."""

    name: str
    exit_code: int | None  # None: ended by a signal
    signal: int | None
    timed_out: bool
    duration_s: float
    output: str
    output_bytes: int
    limit: str | None = None  # "memory" or "file-size": one of our limits stopped it
    leftovers: int = 0  # processes still alive when it ended, killed by the sweep (E2)
    failure: str | None = None  # the runner could not run it at all

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.failure is None


@dataclass(frozen=True)
class RunResult:
    """What a worker reports for one job.

    ``unrunnable``: the worker cannot meet the requirements (no node has the
    GPUs, a required package is missing): the run is *unverifiable*.
    ``failure``: the infrastructure failed around the scripts: an *error*.
    """

    run_id: str
    article_id: str
    started_at: datetime
    duration_s: float
    environment: Environment
    scripts: tuple[ScriptResult, ...] = ()
    unrunnable: str | None = None
    failure: str | None = None

    def script(self, name: str) -> ScriptResult | None:
        return next((s for s in self.scripts if s.name == name), None)
