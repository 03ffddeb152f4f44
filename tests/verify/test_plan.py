"""plan.py decides what runs where before anything runs; it stays pure (E10)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.articles.model import Article, Requirements
from app.verify.model import Host, Resources
from app.verify.plan import make_plan, why_not
from tests.kbfactory import VALID_ARTICLE
from tests.test_layers import outside_world_uses

VERIFY = Path(__file__).resolve().parents[2] / "app" / "verify"
PURE = ("plan.py", "outcome.py", "model.py", "envset.py")


def article(article_id: str, **requires: object) -> Article:
    data = {**VALID_ARTICLE, "id": article_id}
    if requires.pop("no_repro", False):
        data.pop("repro")
    else:
        data["repro"] = {"requires": {"gpus": 0, "processes": 1, **requires}}
    return Article.model_validate(data)


ARTICLES = {
    "cpu-one": article("cpu-one"),
    "cpu-two": article("cpu-two", processes=2),
    "gpu-two": article("gpu-two", gpus=2, processes=2),
    "no-repro": article("no-repro", no_repro=True),
}
CPU_HOST = Resources.single(cpus=2, gpus=0)


def test_every_article_with_a_repro_is_planned_when_no_id_is_given() -> None:
    plan = make_plan(ARTICLES, [], CPU_HOST)
    assert [r.article_id for r in plan.runs] == ["cpu-one", "cpu-two"]
    assert [u.article_id for u in plan.unrunnable] == ["gpu-two"]
    assert plan.refused == ()


def test_e10_an_infeasible_article_is_unverifiable_with_the_reason_at_once() -> None:
    """E10: never left pending, for want of GPUs or of CPUs on one host."""
    plan = make_plan(ARTICLES, ["gpu-two"], CPU_HOST)
    assert plan.runs == ()
    assert plan.unrunnable[0].reason == (
        "needs 2 GPU(s) on one host; the most any host offers is 0"
    )
    one_cpu = make_plan(ARTICLES, ["cpu-two"], Resources.single(cpus=1, gpus=0))
    assert "needs 2 CPU(s)" in one_cpu.unrunnable[0].reason


def test_gpus_must_sit_on_one_host() -> None:
    """Two nodes with one GPU each cannot host a 2-GPU repro (torchrun --standalone)."""
    two_nodes = Resources((Host(8, 1), Host(8, 1)))
    assert why_not(Requirements(gpus=2, processes=2), two_nodes) is not None
    assert why_not(Requirements(gpus=1, processes=2), two_nodes) is None


def test_mixed_shortage_is_explained() -> None:
    hosts = Resources((Host(1, 2), Host(8, 0)))
    reason = why_not(Requirements(gpus=2, processes=2), hosts)
    assert reason == "no single host offers 2 GPU(s) and 2 CPU(s) together"


def test_unknown_ids_and_articles_without_a_repro_are_refused() -> None:
    plan = make_plan(ARTICLES, ["nope", "no-repro", "cpu-one", "cpu-one"], CPU_HOST)
    assert plan.refused == ("unknown article 'nope'", "article 'no-repro' has no repro")
    assert [r.article_id for r in plan.runs] == ["cpu-one"]


def test_drafts_run_only_when_named_and_retired_articles_never() -> None:
    draft = Article.model_validate({**VALID_ARTICLE, "id": "a-draft", "status": "draft"})
    retired = Article.model_validate({**VALID_ARTICLE, "id": "gone", "status": "retired"})
    articles = {**ARTICLES, "a-draft": draft, "gone": retired}
    assert [r.article_id for r in make_plan(articles, [], CPU_HOST).runs] == ["cpu-one", "cpu-two"]
    named = make_plan(articles, ["a-draft", "gone"], CPU_HOST)
    assert [r.article_id for r in named.runs] == ["a-draft"]
    assert named.refused == ("article 'gone' is retired",)


@pytest.mark.parametrize("name", PURE)
def test_planning_and_judging_are_pure(name: str) -> None:
    """STYLE.md: plan.py pure; outcome, model and envset too (no clock, files or environment)."""
    source = (VERIFY / name).read_text(encoding="utf-8")
    assert outside_world_uses(source) == []
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert not imported & {"subprocess", "os", "time", "httpx", "ray", "sqlmodel", "socket"}
