"""A second package set for fixed.py (``repro.fixed_requires``): when the fix is another install.

numpy2-abi (``numpy<2`` or a pandas built for NumPy 2), deepspeed-too-old-for-torch
(a newer DeepSpeed) and bnb-too-old-for-feature (a newer bitsandbytes) fail in
one environment and are fixed by another: repro.py runs in the environment of
``requires.packages``, fixed.py in that of ``fixed_requires.packages``. These
tests drive the article model, lint, the planner, the store (fake installer),
the verifier (fake executor) and the runner (real scripts, errkb's own
interpreter under a second path).
"""

from __future__ import annotations

import copy
import sys
import venv
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.articles.load import load_kb
from app.articles.model import Article
from app.service.kb import prepare_valid_kb
from app.store.environments import environment_key
from app.verify.envbuild import interpreters_for, plan_for_runs
from app.verify.envset import plan_envs, spec_for
from app.verify.executors.fake import FakeExecutor
from app.verify.model import FIXED, REPRO, Interpreters, Job, RunResult
from app.verify.plan import make_plan
from app.verify.runner import run_job
from app.verify.verifier import plan_for, verify
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.jobs import SAMPLE_ERROR, config, job, result, script
from tests.verify.test_envs import CPU_HOST, FakeInstall, store

SHOW_PYTHON = "import sys; print('python=' + sys.executable)"


def two_sets(packages: list[str], fixed: list[str], gpus: int = 0) -> dict[str, object]:
    article = copy.deepcopy(VALID_ARTICLE)
    article["repro"] = {
        "requires": {"gpus": gpus, "processes": 1, "packages": packages},
        "fixed_requires": {"packages": fixed},
    }
    return article


def other_python(tmp_path: Path) -> str:
    """A second environment that costs nothing: an empty venv (no pytest, unlike errkb's)."""
    folder = tmp_path / "fixed-env"
    venv.create(folder, with_pip=False, symlinks=True)
    return str(folder / "bin" / "python")


# --- the article model and lint


def test_the_model_takes_a_second_set_and_leaves_it_out_by_default() -> None:
    article = Article.model_validate(two_sets(["numpy==2.4.6", "pandas==1.5.3"], ["numpy<2"]))
    assert article.repro is not None
    assert article.repro.fixed_requires is not None
    assert article.repro.fixed_requires.packages == ["numpy<2"]
    plain = Article.model_validate(VALID_ARTICLE)
    assert plain.repro is not None
    assert plain.repro.fixed_requires is None


@pytest.mark.parametrize(
    "fixed_requires",
    [{"packages": ["numpy<<2"]}, {"packages": ["numpy<2"], "gpus": 1}, {"pkgs": ["numpy<2"]}],
)
def test_the_second_set_is_checked_like_the_first(fixed_requires: dict[str, object]) -> None:
    article = two_sets(["numpy==2.4.6"], [])
    article["repro"]["fixed_requires"] = fixed_requires  # type: ignore[index]
    with pytest.raises(ValidationError):
        Article.model_validate(article)


def problems(tmp_path: Path, article: dict[str, object]) -> list[str]:
    return [p.format() for p in load_kb(write_kb(tmp_path / "kb", article)).problems]


def test_lint_accepts_a_second_set_that_differs(tmp_path: Path) -> None:
    assert problems(tmp_path, two_sets(["numpy==2.4.6", "pandas==1.5.3"], ["numpy<2"])) == []


@pytest.mark.parametrize(
    ("packages", "fixed"),
    [
        (["pandas==1.5.3", "numpy==2.4.6"], ["NumPy==2.4.6", "pandas==1.5.3"]),
        (["torch>=2.4", "six"], ["six"]),  # torch is the pin's, not the set's: one environment
    ],
)
def test_lint_refuses_a_second_set_that_is_the_first(
    tmp_path: Path, packages: list[str], fixed: list[str]
) -> None:
    (line,) = problems(tmp_path, two_sets(packages, fixed))
    assert "repro.fixed_requires.packages is the same set as requires.packages" in line


def test_lint_refuses_a_second_set_on_a_gpu_repro(tmp_path: Path) -> None:
    (line,) = problems(tmp_path, two_sets(["deepspeed==0.14.2"], ["deepspeed==0.19.8"], gpus=1))
    assert "repro.fixed_requires needs a CPU repro (gpus: 0)" in line


# --- the planner: both sets, one environment per distinct set


def test_the_planner_keys_both_sets_and_shares_equal_ones() -> None:
    plan = plan_envs(
        {
            "abi": ["numpy==2.4.6", "pandas==1.5.3"],
            "plain": ["numpy<2"],
            "ds": ["deepspeed==0.14.2"],
        },
        fixed={"abi": ["numpy<2"], "ds": ["torch>=2.4", "deepspeed==0.19.8"]},
    )
    assert plan.fixed_by_article["abi"] == plan.by_article["plain"] == spec_for(["numpy<2"]).key
    assert plan.fixed_by_article["ds"] == spec_for(["deepspeed==0.19.8"]).key
    assert plan.by_article["ds"] == spec_for(["deepspeed==0.14.2"]).key
    assert "plain" not in plan.fixed_by_article
    assert len(plan.specs) == 4
    assert plan.conflicts == {}


def test_a_second_set_that_would_replace_torch_is_that_articles_conflict() -> None:
    plan = plan_envs({"a": ["six"], "b": ["six"]}, fixed={"a": ["torch<2.6"]})
    assert "repro.fixed_requires" in plan.conflicts["a"]
    assert "torch 2.13.0+cpu" in plan.conflicts["a"]
    assert "a" not in plan.by_article
    assert "a" not in plan.fixed_by_article
    assert plan.by_article["b"] == spec_for(["six"]).key


def test_interpreters_for_builds_both_environments(tmp_path: Path) -> None:
    articles = {
        "abi": Article.model_validate(
            {**two_sets(["numpy==2.4.6", "pandas==1.5.3"], ["numpy<2"]), "id": "abi"}
        ),
        "broken": Article.model_validate({**two_sets(["six"], ["no-such==1"]), "id": "broken"}),
    }
    install = FakeInstall(fail_for="no-such==1")
    envs = store(tmp_path, install)
    chosen = interpreters_for(make_plan(articles, [], CPU_HOST), envs)
    assert sorted(install.built) == [
        ("no-such==1",),
        ("numpy<2",),
        ("numpy==2.4.6", "pandas==1.5.3"),
        ("six",),
    ]
    assert chosen.by_article["abi"] == str(envs.python(spec_for(["numpy==2.4.6", "pandas==1.5.3"])))
    assert chosen.fixed_by_article["abi"] == str(envs.python(spec_for(["numpy<2"])))
    assert "no such version" in chosen.broken["broken"]
    assert "broken" not in chosen.by_article


def test_envs_prune_keeps_the_second_sets_environment(tmp_path: Path) -> None:
    """errkb verify envs --prune keeps what plan_for_runs lists: both sets of every article."""
    article = Article.model_validate(two_sets(["deepspeed==0.14.2"], ["deepspeed==0.19.8"]))
    plan = plan_for_runs(make_plan({"sample-error": article}, [], CPU_HOST))
    envs = store(tmp_path, FakeInstall())
    old = spec_for(["deepspeed==0.13.5"])
    for spec in (*plan.specs.values(), old):
        envs.ensure(spec)
    assert envs.prune(plan.specs) == [old.key]
    assert envs.ready(spec_for(["deepspeed==0.19.8"]))
    assert envs.ready(spec_for(["deepspeed==0.14.2"]))


# --- the verifier ships both sets; the runner runs each script in its own environment


def test_verify_ships_the_second_set_and_its_interpreter(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", two_sets(["six==1.16.0"], ["six==1.17.0"]))
    live = prepare_valid_kb(root, self_tests=False)
    seen: list[Job] = []

    def handler(j: Job) -> RunResult:
        seen.append(j)
        return result(script(output=SAMPLE_ERROR), script(FIXED, 0))

    executor = FakeExecutor(handler)
    chosen = Interpreters(
        by_article={"sample-error": "/envs/a/bin/python"},
        fixed_by_article={"sample-error": "/envs/b/bin/python"},
    )
    (run,) = verify(live, plan_for(live, [], executor), executor, None, chosen)
    assert run.outcome == "verified"
    (shipped,) = seen
    assert (shipped.python, shipped.fixed_python) == ("/envs/a/bin/python", "/envs/b/bin/python")
    assert shipped.packages == ("six==1.16.0",)
    assert shipped.fixed_packages == ("six==1.17.0",)


def test_fixed_runs_with_the_second_interpreter_and_both_environments_are_recorded(
    tmp_path: Path,
) -> None:
    second = other_python(tmp_path)
    two = replace(
        job(f"{SHOW_PYTHON}; raise SystemExit(1)", SHOW_PYTHON, packages=("pytest>=1",)),
        fixed_packages=(),  # an empty set: torch only (the venv lacks it, so it reads None)
        fixed_python=second,
    )
    ran = run_job(two, config(), [], "local")
    repro, fixed = ran.script(REPRO), ran.script(FIXED)
    assert repro is not None
    assert fixed is not None
    assert f"python={sys.executable}" in repro.output
    assert f"python={second}" in fixed.output
    assert fixed.exit_code == 0
    assert ran.environment["packages"] == {"pytest": pytest.__version__, "torch": None}
    assert ran.environment["fixed"] == {
        "python": ran.environment["python"],
        "torch": None,
        "cuda": None,
        "packages": {"torch": None},
    }


def test_the_second_set_is_checked_in_the_second_environment(tmp_path: Path) -> None:
    """pytest is in errkb's environment (repro.py's here), not in the empty second one."""
    ran = run_job(
        replace(
            job("raise SystemExit(1)", packages=("pytest>=1",)),
            fixed_packages=("pytest>=1",),
            fixed_python=other_python(tmp_path),
        ),
        config(),
        [],
        "local",
    )
    assert ran.scripts == ()
    assert ran.unrunnable is not None
    assert "pytest is not installed" in ran.unrunnable


def test_without_a_second_set_fixed_runs_next_to_repro_and_nothing_more_is_recorded() -> None:
    ran = run_job(job(f"{SHOW_PYTHON}; raise SystemExit(1)", SHOW_PYTHON), config(), [], "local")
    fixed = ran.script(FIXED)
    assert fixed is not None
    assert f"python={sys.executable}" in fixed.output
    assert "fixed" not in ran.environment


def test_an_unmet_second_set_is_unverifiable_before_any_script() -> None:
    """One interpreter for both (--python, the ray executor): the fix's set must hold there too."""
    ran = run_job(
        replace(job("raise SystemExit(1)"), fixed_packages=("no-such-pkg-errkb>=1",)),
        config(),
        [],
        "ray",
    )
    assert ran.scripts == ()
    assert ran.unrunnable is not None
    assert "fixed.py's environment does not meet repro.fixed_requires.packages" in ran.unrunnable
    assert "no-such-pkg-errkb is not installed" in ran.unrunnable


def test_a_broken_second_interpreter_is_an_infrastructure_failure(tmp_path: Path) -> None:
    ran = run_job(
        replace(job("raise SystemExit(1)"), fixed_packages=(), fixed_python=str(tmp_path / "nope")),
        config(),
        [],
        "local",
    )
    assert ran.scripts == ()
    assert ran.failure is not None
    assert ran.failure.startswith("environment probe (fixed.py):")


# --- the stored environment key


def test_the_environment_key_covers_the_second_set_and_leaves_old_runs_alone() -> None:
    base = {"python": "3.11.7", "torch": "2.13.0+cpu", "packages": {"pandas": "1.5.3"}}
    old = environment_key(base)
    assert environment_key({**base, "fixed": None}) == old
    one = environment_key({**base, "fixed": {"python": "3.11.7", "packages": {"numpy": "1.26.4"}}})
    two = environment_key({**base, "fixed": {"python": "3.11.7", "packages": {"numpy": "2.4.6"}}})
    assert len({old, one, two}) == 3
