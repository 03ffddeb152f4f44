"""One environment per package set: keys, the torch pin, reuse, rebuilds, locking, wiring.

The store is driven by a fake installer (it writes what ``uv`` would leave:
``bin/python``) and a fake torch reader, so these tests run in milliseconds;
``test_envs_real.py`` builds real environments with uv.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.articles.model import Article
from app.errors import ConfigError
from app.service.kb import prepare_valid_kb
from app.verify.envbuild import (
    STAMP,
    EnvBuildFailed,
    EnvStore,
    _uv_failure,
    build_all,
    find_uv,
    interpreters_for,
)
from app.verify.envset import (
    GPU_NEEDS_PYTHON,
    TORCH,
    EnvSpec,
    TorchConflict,
    cpu_runs_only,
    plan_envs,
    spec_for,
    uv_sources,
)
from app.verify.executors.fake import FakeExecutor
from app.verify.model import FIXED, Interpreters, Job, Resources, RunResult
from app.verify.plan import make_plan
from app.verify.runner import run_job
from app.verify.verifier import plan_for, verify
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.jobs import SAMPLE_ERROR, config, job, result, script
from tests.verify.test_executors import variant_article

CPU_HOST = Resources.single(cpus=8, gpus=0)


class FakeInstall:
    """Records each build; ``delay_s`` widens the window for racing builders."""

    def __init__(self, delay_s: float = 0.0, fail_for: str | None = None) -> None:
        self.built: list[tuple[str, ...]] = []
        self.delay_s = delay_s
        self.fail_for = fail_for
        self._guard = threading.Lock()

    def __call__(self, spec: EnvSpec, folder: Path) -> None:
        with self._guard:
            self.built.append(spec.requirements)
        time.sleep(self.delay_s)
        if self.fail_for in spec.requirements:
            raise EnvBuildFailed(f"environment for {spec.describe()}: no such version")
        (folder / "bin").mkdir(parents=True, exist_ok=True)
        (folder / "bin" / "python").write_text("#!/bin/sh\n")


def store(tmp_path: Path, install: FakeInstall, torch: str = TORCH) -> EnvStore:
    return EnvStore(tmp_path / "envs", install, torch_of=lambda python: torch)


def article(article_id: str, packages: list[str], gpus: int = 0) -> Article:
    repro = {"requires": {"gpus": gpus, "processes": 1, "packages": packages}}
    return Article.model_validate({**VALID_ARTICLE, "id": article_id, "repro": repro})


# --- keys and the torch pin (pure)


def test_spelling_and_order_never_make_a_new_environment() -> None:
    one = spec_for(["Transformers >= 4.40", "peft==0.21.0"])
    two = spec_for(["peft==0.21.0", "transformers>=4.40", "transformers>=4.40"])
    assert one == two
    assert one.key == two.key
    assert one.requirements == ("peft==0.21.0", "transformers>=4.40")


def test_a_changed_set_has_another_key() -> None:
    keys = {
        spec_for(["transformers==4.57.6"]).key,
        spec_for(["transformers==5.17.0"]).key,
        spec_for(["transformers==4.57.6", "trl==1.13.0"]).key,
        spec_for([]).key,
    }
    assert len(keys) == 4
    assert all(len(key) == 16 for key in keys)


def test_the_key_covers_the_torch_pin_and_the_python_version() -> None:
    base = spec_for(["numpy<2"])
    assert spec_for(["numpy<2"], torch="2.14.0+cpu").key != base.key
    assert spec_for(["numpy<2"], python="3.12").key != base.key


def test_torch_requirements_that_admit_the_pin_are_left_out() -> None:
    assert spec_for(["torch>=2.1", "numpy<2"]) == spec_for(["numpy<2"])
    assert spec_for(["torch==2.13.0"]).requirements == ()
    assert spec_for(["Torch>=2.5,<3"]).key == spec_for([]).key


@pytest.mark.parametrize("wanted", ["torch<2.6", "torch==2.5.1", "torch>=2.14"])
def test_a_set_that_would_replace_torch_is_refused_with_the_reason(wanted: str) -> None:
    with pytest.raises(TorchConflict, match=r"every repro environment runs torch 2\.13\.0\+cpu"):
        spec_for(["transformers==4.57.6", wanted])


def test_the_install_files_pin_torch_in_both() -> None:
    spec = spec_for(["peft==0.21.0", "accelerate==1.15.0"])
    assert spec.requirements_txt().splitlines() == [
        "torch==2.13.0+cpu",
        "accelerate==1.15.0",
        "peft==0.21.0",
    ]
    assert spec.constraints_txt() == "torch==2.13.0+cpu\n"


def test_a_bad_requirement_is_an_input_error_for_that_article_only() -> None:
    plan = plan_envs({"bad": ["transformers>>4"], "good": ["six"]})
    assert "not a PEP 508 requirement" in plan.conflicts["bad"]
    assert list(plan.by_article) == ["good"]


def test_two_sets_give_two_environments_and_shared_sets_share_one() -> None:
    plan = plan_envs(
        {
            "a": ["transformers==4.57.6"],
            "b": ["torch>=2.1", "transformers==4.57.6"],
            "c": ["transformers==4.40.2"],
            "d": ["torch<2"],
        }
    )
    assert len(plan.specs) == 2
    assert plan.by_article["a"] == plan.by_article["b"] != plan.by_article["c"]
    assert set(plan.conflicts) == {"d"}


def test_gpu_runs_are_unrunnable_in_the_cpu_environments() -> None:
    articles = {"cpu": article("cpu", []), "gpu": article("gpu", [], gpus=1)}
    plan = make_plan(articles, [], Resources.single(cpus=8, gpus=1))
    only = cpu_runs_only(plan)
    assert [run.article_id for run in only.runs] == ["cpu"]
    assert [(u.article_id, u.reason) for u in only.unrunnable] == [("gpu", GPU_NEEDS_PYTHON)]


def test_pip_sources_become_uv_options_and_variables_win() -> None:
    config = (
        ":env:.find-links='/wheels/a'\n"
        "global.find-links='/wheels/b'\n"
        "global.extra-index-url='file:///m/one/simple file:///m/two/simple'\n"
        "global.index-url='https://mirror.invalid/simple'\n"
        "global.cert='/etc/ssl/certs/ca.crt'\n"
    )
    assert uv_sources(config) == [
        "--find-links",
        "/wheels/a",
        "--index-url",
        "https://mirror.invalid/simple",
        "--extra-index-url",
        "file:///m/one/simple",
        "--extra-index-url",
        "file:///m/two/simple",
    ]
    assert uv_sources("") == []


# --- the store: built once, reused, rebuilt when needed, locked


def test_an_environment_is_built_once_then_reused(tmp_path: Path) -> None:
    install = FakeInstall()
    envs = store(tmp_path, install)
    spec = spec_for(["six==1.16.0"])
    python, fresh = envs.ensure(spec)
    again, fresh_again = envs.ensure(spec)
    assert (fresh, fresh_again) == (True, False)
    assert python == again == tmp_path / "envs" / spec.key / "bin" / "python"
    assert install.built == [("six==1.16.0",)]
    assert (tmp_path / "envs" / spec.key / STAMP).read_text() == spec.stamp()


def test_a_changed_set_builds_a_new_environment_and_prune_drops_the_old(tmp_path: Path) -> None:
    install = FakeInstall()
    envs = store(tmp_path, install)
    old, new = spec_for(["six==1.16.0"]), spec_for(["six==1.17.0"])
    envs.ensure(old)
    _, fresh = envs.ensure(new)
    assert fresh
    assert install.built == [("six==1.16.0",), ("six==1.17.0",)]
    assert envs.ready(old)
    assert envs.ready(new)
    assert envs.prune([new.key]) == [old.key]
    assert not (tmp_path / "envs" / old.key).exists()
    assert envs.ready(new)


def test_a_half_built_environment_is_rebuilt(tmp_path: Path) -> None:
    install = FakeInstall()
    envs = store(tmp_path, install)
    spec = spec_for(["six==1.16.0"])
    envs.ensure(spec)
    (tmp_path / "envs" / spec.key / STAMP).unlink()  # as a build killed before its stamp
    (tmp_path / "envs" / spec.key / "leftover").write_text("x")
    _, fresh = envs.ensure(spec)
    assert fresh
    assert len(install.built) == 2
    assert not (tmp_path / "envs" / spec.key / "leftover").exists()


def test_the_torch_pin_holds_or_the_build_fails(tmp_path: Path) -> None:
    install = FakeInstall()
    envs = store(tmp_path, install, torch="2.5.1")  # a dependency replaced torch
    spec = spec_for(["torchvision==0.20.0"])
    with pytest.raises(EnvBuildFailed, match=r"torch is 2\.5\.1 after the install, not 2\.13"):
        envs.ensure(spec)
    assert not (tmp_path / "envs" / spec.key).exists()
    assert not envs.ready(spec)


def test_concurrent_builders_of_one_set_build_it_once(tmp_path: Path) -> None:
    install = FakeInstall(delay_s=0.3)
    envs = store(tmp_path, install)
    spec = spec_for(["six==1.16.0"])
    fresh: list[bool] = []

    def build() -> None:
        fresh.append(EnvStore(tmp_path / "envs", install, lambda p: TORCH).ensure(spec)[1])

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(fresh) == [False, False, False, True]
    assert install.built == [("six==1.16.0",)]
    assert envs.ready(spec)


def test_prune_skips_an_environment_being_built(tmp_path: Path) -> None:
    install = FakeInstall(delay_s=1.0)
    envs = store(tmp_path, install)
    spec = spec_for(["six==1.16.0"])
    builder = threading.Thread(target=envs.ensure, args=(spec,))
    builder.start()
    deadline = time.monotonic() + 10
    while not install.built and time.monotonic() < deadline:
        time.sleep(0.01)
    (tmp_path / "envs" / spec.key / "bin").mkdir(parents=True, exist_ok=True)  # as uv venv would
    assert envs.prune([]) == []
    builder.join(timeout=30)
    assert envs.ready(spec)


def test_a_failed_set_costs_only_its_own_articles(tmp_path: Path) -> None:
    install = FakeInstall(fail_for="six==0.0.1")
    articles = {
        "ok-one": article("ok-one", ["six==1.16.0"]),
        "ok-two": article("ok-two", ["torch>=2.1", "six==1.16.0"]),
        "broken": article("broken", ["six==0.0.1"]),
        "old-torch": article("old-torch", ["torch==2.5.1"]),
    }
    said: list[str] = []
    chosen = interpreters_for(
        make_plan(articles, [], CPU_HOST), store(tmp_path, install), said.append
    )
    python = str(tmp_path / "envs" / spec_for(["six==1.16.0"]).key / "bin" / "python")
    assert chosen.by_article == {"ok-one": python, "ok-two": python}
    assert "no such version" in chosen.broken["broken"]
    assert "torch 2.13.0+cpu" in chosen.broken["old-torch"]
    assert len(install.built) == 2
    assert any("FAILED (six==0.0.1)" in line for line in said)


def test_build_all_reports_built_and_reused(tmp_path: Path) -> None:
    envs = store(tmp_path, FakeInstall())
    one, two = spec_for(["six==1.16.0"]), spec_for([])
    envs.ensure(one)
    report = build_all(envs, {one.key: one, two.key: two})
    assert report.built == (two.key,)
    assert set(report.pythons) == {one.key, two.key}
    assert report.failed == {}


def test_a_resolver_refusal_over_torch_says_so() -> None:
    said = (
        "error: No solution found when resolving dependencies\n"
        "  Because torchvision==0.20.0 depends on torch==2.5.0 and you require torch==2.13.0+cpu"
    )
    message = _uv_failure(spec_for(["torchvision==0.20.0"]), said)
    assert "cannot be installed next to torch 2.13.0+cpu" in message
    assert "torchvision==0.20.0 depends on torch==2.5.0" in message
    assert "uv pip install failed" in _uv_failure(spec_for(["nope"]), "error: not found")


def test_uv_is_found_where_make_installs_it(tmp_path: Path) -> None:
    uv = tmp_path / ".tools" / "bin" / "uv"
    uv.parent.mkdir(parents=True)
    uv.write_text("#!/bin/sh\n")
    uv.chmod(0o755)
    assert find_uv(cwd=tmp_path) == str(uv)
    with pytest.raises(ConfigError, match="no uv at"):
        find_uv(tmp_path / "missing")


# --- the verifier runs each article with its set's interpreter


def test_verify_gives_each_job_its_interpreter_and_answers_broken_sets(tmp_path: Path) -> None:
    sample = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["six==1.16.0"]}}}
    root = write_kb(tmp_path / "kb", sample, variant_article("other-error"))
    live = prepare_valid_kb(root, self_tests=False)
    seen: dict[str, str | None] = {}

    def handler(j: Job) -> RunResult:
        seen[j.article_id] = j.python
        return result(script(output=SAMPLE_ERROR), script(FIXED, 0))

    executor = FakeExecutor(handler)
    chosen = Interpreters(
        by_article={"sample-error": "/envs/abc/bin/python"},
        broken={"other-error": "environment for six==0.0.1: no such version"},
    )
    runs = {
        v.article_id: v for v in verify(live, plan_for(live, [], executor), executor, None, chosen)
    }
    assert seen == {"sample-error": "/envs/abc/bin/python"}
    assert runs["sample-error"].outcome == "verified"
    assert runs["other-error"].outcome == "error"
    assert runs["other-error"].reason == "environment: environment for six==0.0.1: no such version"


def test_the_runner_uses_the_jobs_interpreter() -> None:
    ran = run_job(
        replace(job("print('hi')"), python="/nonexistent/errkb-env/bin/python"),
        config(),
        [],
        "local",
    )
    assert ran.failure is not None
    assert "/nonexistent/errkb-env/bin/python" in ran.failure


def test_only_runs_in_errkbs_own_environments_may_write_bytecode() -> None:
    """uv installs no .pyc; a per-set environment compiles what its runs import once."""
    shows = "import sys; raise SystemExit(f'dont_write_bytecode={sys.dont_write_bytecode}')"
    own = run_job(replace(job(shows), python=sys.executable), config(), [], "local")
    forced = run_job(job(shows), config(), [], "local")  # --python: someone else's environment
    assert own.scripts[0].output.strip() == "dont_write_bytecode=False"
    assert forced.scripts[0].output.strip() == "dont_write_bytecode=True"
