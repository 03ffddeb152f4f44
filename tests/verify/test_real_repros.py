"""Every CPU-reproducible article of kb/ verifies for real, with torch 2.13.0 (CPU build).

``scripts/repro-env.sh`` builds ``.venv-repro/`` once (cached by a stamp of
the package set) with the pinned CPU torch and the union of the CPU
articles' ``requires.packages``. The articles are discovered when the tests
are collected, so a new article with ``gpus: 0`` joins on its own; each run is
fresh (nothing cached between runs), two at a time. Articles that need GPUs
are planned too and must come back *unverifiable*, never pending.

A failure here is a finding about an article (its repro, its signature or its
fix), with the repro's output in the message: fix the article, not this test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.articles.load import load_kb
from app.service.kb import prepare_valid_kb
from app.verify.executors.local import LocalExecutor, host_cpus
from app.verify.model import RunnerConfig
from app.verify.outcome import Verification
from app.verify.verifier import plan_for, verify

REPO = Path(__file__).resolve().parents[2]
KB = REPO / "kb"
ENV_SCRIPT = REPO / "scripts" / "repro-env.sh"
REPRO_PYTHON = REPO / ".venv-repro" / "bin" / "python"
AT_ONCE = 2
ARTICLES = {key: loaded.article for key, loaded in load_kb(KB).kb.articles.items()}
CPU = sorted(key for key, a in ARTICLES.items() if a.repro and a.repro.requires.gpus == 0)
GPU = sorted(key for key, a in ARTICLES.items() if a.repro and a.repro.requires.gpus > 0)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


@pytest.fixture(scope="session")
def repro_python() -> Path:
    """The environment under test; built on first use, then only when the package set changes."""
    env = {**os.environ, "ERRKB_PYTHON": sys.executable}
    done = subprocess.run(
        ["bash", str(ENV_SCRIPT)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"scripts/repro-env.sh failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return REPRO_PYTHON


@pytest.fixture(scope="module")
def verified(repro_python: Path) -> dict[str, Verification]:
    """Every repro of kb/ planned on this host without GPUs; the CPU ones run, two at once."""
    live = prepare_valid_kb(KB, self_tests=False)
    # At least 2 CPUs: the torchrun repros need 2 ranks, which a 1-core runner still hosts.
    executor = LocalExecutor(
        RunnerConfig(python=str(repro_python)),
        cpus=max(2, host_cpus()),
        gpu_ids=[],
        slots=AT_ONCE,
    )
    try:
        results = verify(live, plan_for(live, [], executor), executor)
    finally:
        executor.close()
    return {v.article_id: v for v in results}


@pytest.mark.parametrize("article_id", CPU)
def test_cpu_article_verifies_for_real(article_id: str, verified: dict[str, Verification]) -> None:
    run = verified[article_id]
    assert run.outcome == "verified", f"{article_id}: {run.outcome}\n{run.detail}"
    assert run.environment["torch"] == "2.13.0+cpu"
    assert run.environment["gpu_count"] == 0


@pytest.mark.parametrize("article_id", GPU)
def test_gpu_article_is_planned_unverifiable_here(
    article_id: str, verified: dict[str, Verification]
) -> None:
    run = verified[article_id]
    assert run.outcome == "unverifiable"
    assert "GPU(s)" in run.reason


def test_the_kb_has_cpu_reproducible_articles() -> None:
    """Guard: an empty parametrisation would pass silently."""
    assert len(CPU) >= 2
