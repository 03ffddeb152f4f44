"""The verification bundles committed under kb/verifications/ (runs on machines CI has not got).

A bundle is evidence for the articles it names: it must parse, name only
articles the KB has, and every run it calls *verified* must have run where the
article's requirements hold (a GPU article on a host with that many GPUs).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.verify.bundle import read_bundle

KB = Path(__file__).resolve().parents[2] / "kb"
BUNDLES = sorted((KB / "verifications").glob("*.jsonl"))


def _required_gpus(article_id: str) -> int:
    article = yaml.safe_load((KB / "articles" / f"{article_id}.yaml").read_text(encoding="utf-8"))
    return int(article["repro"]["requires"].get("gpus", 0))


def test_there_is_at_least_one_bundle() -> None:
    assert BUNDLES, "kb/verifications/ holds no bundle"


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_a_committed_bundle_parses_and_names_articles_with_a_repro(bundle: Path) -> None:
    runs = read_bundle(bundle)
    assert runs, f"{bundle.name} is empty"
    for run in runs:
        article = KB / "articles" / f"{run.article_id}.yaml"
        assert article.is_file(), f"{bundle.name}: no article {run.article_id}"
        assert (KB / "repros" / run.article_id / "repro.py").is_file()


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: p.name)
def test_a_verified_gpu_run_ran_on_enough_gpus(bundle: Path) -> None:
    for run in read_bundle(bundle):
        if run.outcome != "verified":
            continue
        gpus = _required_gpus(run.article_id)
        assert int(run.environment.get("gpu_count") or 0) >= gpus, run.article_id
        if gpus:
            assert run.environment.get("gpu_model"), run.article_id
