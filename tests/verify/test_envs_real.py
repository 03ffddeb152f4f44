"""End to end: ``errkb verify`` builds two real environments with uv and runs a repro in each.

Two articles differ only in the pin of a tiny pure-Python package (six
1.16.0 against 1.17.0); each repro checks, inside its run, that it sees its
own pin and torch 2.13.0+cpu before it fails with its article's error. The
environments live in a temporary folder with a cold uv cache, so this also
measures a cold build (torch unpacked once, then hard-linked).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.verify.envset import spec_for
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.test_executors import variant_article

REPO = Path(__file__).resolve().parents[2]
CHECK = """\
import importlib.metadata as m
assert m.version("six") == {six!r}, m.version("six")
assert m.version("torch") == "2.13.0+cpu", m.version("torch")
raise SystemExit({error!r})
"""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def errkb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,  # where make install-dev put .tools/bin/uv
        timeout=840,
        check=False,
    )


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    old = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["six==1.16.0", "torch>=2.4"]}}}
    new = variant_article("six-new", packages=["six==1.17.0"])
    root = write_kb(tmp_path / "kb", old, new)
    (root / "repros" / "sample-error" / "repro.py").write_text(
        CHECK.format(six="1.16.0", error="SampleError: widget 3 exploded")
    )
    (root / "repros" / "six-new" / "repro.py").write_text(
        CHECK.format(six="1.17.0", error="GpuError: card 1 melted")
    )
    return root


def test_two_sets_get_two_real_environments_and_each_repro_runs_in_its_own(
    kb_root: Path, tmp_path: Path
) -> None:
    envs, bundle = tmp_path / "envs", tmp_path / "runs.jsonl"
    done = errkb("verify", "--kb", str(kb_root), "--envs", str(envs), "--output", str(bundle))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.count(": built (six==") == 2
    runs = {r["article_id"]: r for r in map(json.loads, bundle.read_text().splitlines())}
    assert {key: r["outcome"] for key, r in runs.items()} == {
        "sample-error": "verified",
        "six-new": "verified",
    }
    assert runs["sample-error"]["environment"]["packages"]["six"] == "1.16.0"
    assert runs["six-new"]["environment"]["packages"]["six"] == "1.17.0"
    assert {r["environment"]["torch"] for r in runs.values()} == {"2.13.0+cpu"}
    keys = {spec_for(["six==1.16.0"]).key, spec_for(["six==1.17.0"]).key}
    assert {p.name for p in envs.iterdir() if not p.name.startswith(".")} == keys

    again = errkb("verify", "envs", "--kb", str(kb_root), "--envs", str(envs))
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stderr.count(": reused (six==") == 2
    assert "built" not in again.stderr


def test_a_set_that_needs_another_torch_is_an_error_naming_it(
    kb_root: Path, tmp_path: Path
) -> None:
    article = variant_article("old-vision", packages=["torchvision==0.20.0"])
    write_kb(kb_root, article)
    done = errkb("verify", "envs", "old-vision", "--kb", str(kb_root), "--envs", str(tmp_path))
    assert done.returncode == 1
    assert "cannot be installed next to torch 2.13.0+cpu" in done.stderr
    assert "torchvision==0.20.0" in done.stderr
