"""Build verifier jobs and results by hand: tiny scripts, run by errkb's own interpreter."""

from __future__ import annotations

import sys
import textwrap
import uuid
from dataclasses import replace
from datetime import UTC, datetime

from app.verify.model import (
    FIXED,
    REPRO,
    Job,
    Launcher,
    Limits,
    RunnerConfig,
    RunResult,
    ScriptResult,
)

FAST = Limits(sigint_grace_s=1.0, sigterm_grace_s=1.0)  # short kill stages for quick tests
SAMPLE_ERROR = "SampleError: widget 3 exploded"  # what tests/kbfactory's article matches


def config(limits: Limits = FAST) -> RunnerConfig:
    return RunnerConfig(python=sys.executable, limits=limits)


def job(
    repro: str,
    fixed: str = "print('ok')",
    *,
    article_id: str = "sample-error",
    timeout_s: float = 60.0,
    gpus: int = 0,
    processes: int = 1,
    launcher: Launcher = "python",
    packages: tuple[str, ...] = (),
) -> Job:
    """A job whose scripts are the dedented ``repro`` and ``fixed`` sources."""
    files = ((REPRO, textwrap.dedent(repro).encode()), (FIXED, textwrap.dedent(fixed).encode()))
    return Job(
        run_id=uuid.uuid4().hex,
        article_id=article_id,
        content_hash="0" * 64,
        launcher=launcher,
        processes=processes,
        gpus=gpus,
        timeout_s=timeout_s,
        packages=packages,
        files=files,
    )


def script(
    name: str = REPRO, exit_code: int | None = 1, output: str = "", **fields: object
) -> ScriptResult:
    base = ScriptResult(name, exit_code, None, False, 0.5, output, len(output))
    return replace(base, **fields)  # type: ignore[arg-type]


def result(*scripts: ScriptResult, article_id: str = "sample-error", **fields: object) -> RunResult:
    base = RunResult("r" * 32, article_id, datetime.now(UTC), 1.0, {"python": "3.11"}, scripts)
    return replace(base, **fields)  # type: ignore[arg-type]
