"""``errkb match``'s quick path answers exactly as the typer command does (issue 23).

The quick path (``app/cli/quick.py``) skips typer and pydantic for the common
call; anything it is not sure to answer identically goes to typer. These
tests run both as real processes (a checked setting in the environment sends
a call to typer) and compare every byte of output and the exit code.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.quick import parse_call
from app.errors import KbInvalid
from app.service.quick_index import index_from_snapshot, index_to_match
from app.service.snapshot import snapshot_path
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb

REPO = Path(__file__).resolve().parents[1]
PROBE = """
import sys
from app.cli import main
report = sys.argv.pop(1)
try:
    main()
except SystemExit as exc:
    code = exc.code
with open(report, "w") as out:
    out.write(f"{code} {'typer' in sys.modules} {'pydantic' in sys.modules}")
"""
# A matched error line with a secret on it and colour codes around it.
LOG = (
    "step 1 loss 0.5\n"
    "\x1b[31mSampleError: widget 3 exploded password=hunter2-correct-horse\x1b[0m\n"
    '  File "sample/module.py", line 3, in explode\n'
)


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("ERRKB_")}
    return {**env, "ERRKB_INDEX_DIR": str(tmp_path / "index"), **extra}


def _errkb_match(
    tmp_path: Path, args: list[str], env: dict[str, str], stdin: str = ""
) -> tuple[str, str, str, bool, bool]:
    """stdout, stderr, exit code, and whether typer and pydantic were imported."""
    report = tmp_path / "report.txt"
    command = [sys.executable, "-c", PROBE, str(report), "match", *args]
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    code, typer_loaded, pydantic_loaded = report.read_text().split()
    return done.stdout, done.stderr, code, typer_loaded == "True", pydantic_loaded == "True"


@pytest.fixture
def kb_and_log(tmp_path: Path) -> tuple[Path, Path]:
    kb_root = write_kb(tmp_path / "kb")
    log = tmp_path / "job.log"
    log.write_text(LOG)
    (tmp_path / "clean.log").write_text("epoch 1 done\nall good\n")
    return kb_root, log


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["{log}", "--kb", "{kb}"], "0"),
        (["--json", "--lang", "zh", "--top=1", "{log}", "--kb={kb}"], "0"),
        (["{clean}", "--kb", "{kb}"], "1"),  # nothing matches
        (["{missing}", "--kb", "{kb}"], "2"),  # unreadable: a message on stderr
        (["-", "--kb", "{kb}", "--json"], "0"),  # stdin
    ],
)
def test_the_quick_path_answers_byte_for_byte_as_typer(
    tmp_path: Path, kb_and_log: tuple[Path, Path], args: list[str], code: str
) -> None:
    kb_root, log = kb_and_log
    names = {"log": log, "kb": kb_root, "clean": tmp_path / "clean.log", "missing": tmp_path / "no"}
    args = [arg.format(**names) for arg in args]
    stdin = LOG if "-" in args else ""
    env = _clean_env(tmp_path)
    _errkb_match(tmp_path, args, env, stdin)  # builds the index and the snapshot
    quick = _errkb_match(tmp_path, args, env, stdin)
    # ERRKB_PORT is a checked setting: the quick path leaves the call to typer.
    typer = _errkb_match(tmp_path, args, {**env, "ERRKB_PORT": "8000"}, stdin)
    assert quick[:3] == typer[:3]
    assert quick[3:] == (False, False)  # neither typer nor pydantic was imported
    assert typer[3] is True
    assert quick[2] == code
    assert quick[0] if code != "2" else "errkb: cannot read" in quick[1]
    assert "hunter2-correct-horse" not in quick[0] + quick[1]
    assert "\x1b[" not in quick[0]
    if code != "2":  # the redaction set, kept as a Hyperscan prefilter beside the index
        assert len(list((tmp_path / "index").glob("redact-*.hs"))) == 1


def test_an_invalid_setting_still_exits_2_naming_it(
    tmp_path: Path, kb_and_log: tuple[Path, Path]
) -> None:
    kb_root, log = kb_and_log
    env = _clean_env(tmp_path, ERRKB_DEFAULT_LANG="fr")
    _, stderr, code, typer_loaded, _ = _errkb_match(tmp_path, [str(log), "--kb", str(kb_root)], env)
    assert (code, typer_loaded) == ("2", True)
    assert "ERRKB_DEFAULT_LANG" in stderr


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--help"], {}),
        (["log"], {"ERRKB_PORT": "8000"}),  # checked by pydantic: typer's path says why
        (["log"], {"errkb_default_lang": "fr"}),  # names are case-insensitive there
        (["log"], {"ERRKB_KB_PATH": "a", "errkb_kb_path": "b"}),  # two spellings
        (["log"], {"ERRKB_INDEX_DIR": ""}),
        (["log", "--top", "0"], {}),  # out of range: a usage error
        (["log", "--top", "1_0"], {}),
        (["log", "--top"], {}),
        (["log", "--lang", "--json"], {}),
        (["log", "other"], {}),
        (["log", "--json", "--json"], {}),
        (["log", "--kb", "a", "--kb", "b"], {}),
        (["--", "log"], {}),
        (["log", "-x"], {}),
        ([], {}),
    ],
)
def test_calls_the_quick_path_is_unsure_of_go_to_typer(
    args: list[str], env: dict[str, str]
) -> None:
    assert parse_call(args, env) is None


def test_the_quick_path_knows_every_setting() -> None:
    from app.cli.quick import SETTINGS_FIELDS
    from app.settings import Settings

    assert frozenset(Settings.model_fields) == SETTINGS_FIELDS


def test_variables_that_are_no_setting_are_ignored_as_pydantic_settings_does() -> None:
    env = {"ERRKB_URL": "http://errkb:8000", "ERRKB_LANG": "zh", "ERRKB_TAIL_BYTES": "x"}
    call = parse_call(["log"], env)
    assert call is not None
    assert call.lang == "en"  # ERRKB_LANG is the client's, not ERRKB_DEFAULT_LANG


def test_the_quick_path_reads_its_settings_like_pydantic_settings() -> None:
    env = {
        "ERRKB_KB_PATH": "/k",
        "errkb_index_dir": "/i",
        "ERRKB_DATABASE_URL": "x://",
        "HOME": "/",
    }
    call = parse_call(["log", "--json", "--top", "7"], env)
    assert call is not None
    assert (call.file, call.as_json, call.top, call.lang) == ("log", True, 7, "en")
    assert (call.kb_path, call.index_dir) == (Path("/k"), Path("/i"))
    call = parse_call(["--kb=/other", "-", "--lang", "zh"], {"ERRKB_DEFAULT_LANG": "en"})
    assert call is not None
    assert (call.file, call.kb_path, call.lang, call.top) == ("-", Path("/other"), "zh", 3)
    default = parse_call(["log"], {})
    assert default is not None
    assert (default.kb_path, default.index_dir) == (Path("kb"), Path("var/index"))


def test_the_index_comes_from_the_snapshot_only_when_it_is_intact(tmp_path: Path) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    assert index_from_snapshot(root, index_dir) is None  # nothing built yet
    built = index_to_match(root, index_dir)  # the full load, which saves both
    quick = index_from_snapshot(root, index_dir)
    assert quick is not None
    assert (quick.revision, list(quick.articles)) == (built.revision, ["sample-error"])
    path = snapshot_path(index_dir, built.revision)
    path.write_bytes(path.read_bytes().replace(b"Sample failure", b"Simple failure"))
    assert index_from_snapshot(root, index_dir) is None  # damaged: not trusted
    assert index_to_match(root, index_dir).revision == built.revision  # rebuilt
    assert index_from_snapshot(root, index_dir) is not None
    (root / "examples/sample-error/sample.log").write_text("SampleError: widget 4 exploded\n")
    assert index_from_snapshot(root, index_dir) is None  # another revision


def test_a_kb_with_errors_is_refused_on_the_quick_path_too(tmp_path: Path) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    broken = copy.deepcopy(VALID_ARTICLE)
    broken["signatures"] = {"error": ["(?<=lookbehind)SampleError"]}
    write_article(root, broken)
    with pytest.raises(KbInvalid):
        index_to_match(root, index_dir)
    assert index_from_snapshot(root, index_dir) is None
