"""errkb-client, the job hook a training node installs alone (issue 20, item 5).

Its promises: the answer is printed when errkb answers; whatever else
happens (errkb down, hung, busy, the log missing) the job is unaffected:
``report`` exits 0 within its deadline, ``run`` exits with the wrapped
command's own status. The real-server tests run ``errkb serve`` with the
one-article test KB (its article matches ``tests.api.conftest.TRACEBACK``).
"""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from errkb_client import DEFAULT_URL
from errkb_client.annotations import annotations
from errkb_client.send import send
from errkb_client.tail import TailRing, read_file_tail

from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import Server, start, stop
from tests.test_hook import Scripted, scripted, silent_port  # noqa: F401  (fixtures)

CLIENT = Path(sys.executable).parent / "errkb-client"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("client")
    running = start(f"sqlite:///{root / 'client.db'}", root, ERRKB_RATE_LIMIT_PER_MINUTE="0")
    yield running
    stop(running)


def client(*argv: str, stdin: bytes | None = None, timeout: float = 60, **env: str):  # type: ignore[no-untyped-def]
    variables = {k: v for k, v in os.environ.items() if not k.startswith(("ERRKB_", "GITHUB_"))}
    return subprocess.run(
        [str(CLIENT), *argv], input=stdin, capture_output=True, timeout=timeout, check=False,
        env={**variables, **env},
    )  # fmt: skip


def test_the_ring_keeps_whole_recent_lines_and_never_splices_two_streams() -> None:
    ring = TailRing(32)
    ring.add("out", b"step 1\nstep 2 loss")
    ring.add("err", b"Traceback (most\n")
    ring.add("out", b" 0.5\n")
    text = ring.text()
    assert text == b"Traceback (most\nstep 2 loss 0.5\n"
    assert len(text) <= 32
    lines = text.splitlines()
    assert b"step 1" not in lines  # pushed out by the limit


def test_a_line_longer_than_the_ring_keeps_its_end() -> None:
    ring = TailRing(16)
    ring.add("err", b"\r" + b"=" * 1000 + b"RuntimeError: x")
    assert ring.text().endswith(b"RuntimeError: x\n")
    assert len(ring.text()) <= 16


def test_a_file_tail_starts_on_a_line_and_knows_its_line_number(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"".join(b"line %d\n" % n for n in range(1, 1001)))
    data, first = read_file_tail(str(log), 100)
    assert data.startswith(b"line ")
    assert first == int(data.split(b"\n", 1)[0].split()[1])
    assert data.endswith(b"line 1000\n")
    assert read_file_tail(str(log), 10**9) == (log.read_bytes(), 1)


def test_report_prints_the_answer_from_a_file_and_from_stdin(
    server: Server, tmp_path: Path
) -> None:
    log = tmp_path / "train.log"
    log.write_text("noise\n" * 20_000 + TRACEBACK)
    from_file = client("report", str(log), "--url", server.url)
    from_stdin = client("report", "-", stdin=log.read_bytes(), ERRKB_URL=server.url)
    for done in (from_file, from_stdin):
        assert done.returncode == 0, done.stderr
        assert b"sample-error" in done.stdout
        assert b"/articles/sample-error" in done.stdout


def test_report_never_fails_the_job(tmp_path: Path, silent_port: int) -> None:  # noqa: F811
    log = tmp_path / "train.log"
    log.write_text(TRACEBACK)
    down = client("report", str(log), "--url", "http://127.0.0.1:9")
    started = time.monotonic()
    hung = client("report", str(log), "--url", f"http://127.0.0.1:{silent_port}", "--timeout", "2")
    hung_s = time.monotonic() - started
    missing = client("report", str(tmp_path / "nope.log"), ERRKB_TAIL_BYTES="garbage")
    assert [down.returncode, hung.returncode, missing.returncode] == [0, 0, 0]
    assert b"not reachable" in down.stderr
    assert b"timeout" in hung.stderr
    assert hung_s < 6
    assert b"cannot read" in missing.stderr


def test_a_busy_errkb_is_asked_again_after_retry_after(scripted) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    busy: Scripted = scripted([(503, "1"), (429, "2"), (200, None)])
    waits: list[float] = []
    outcome = send(b"RuntimeError: x\n", busy.url, sleep=waits.append, timeout_s=20)
    assert outcome.answer == "errkb: answer after a wait"
    assert len(busy.times) == 3
    assert 1 <= waits[0] <= 2  # Retry-After plus up to 1 s of jitter
    assert 2 <= waits[1] <= 3


def test_a_refusal_is_one_note_and_no_answer(scripted) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    refusing: Scripted = scripted([(413, None)])
    outcome = send(b"x", refusing.url, sleep=lambda _s: None)
    assert outcome.answer is None
    assert outcome.note == "errkb: answered 413; job unaffected"


def test_run_passes_output_through_and_keeps_the_commands_status(server: Server) -> None:
    script = f"import sys; print('step 1'); sys.stderr.write({TRACEBACK!r}); sys.exit(3)"
    failed = client("run", "--url", server.url, "--", sys.executable, "-c", script)
    assert failed.returncode == 3
    assert failed.stdout.startswith(b"step 1\n")
    assert b"SampleError: widget 3 exploded" in failed.stderr
    assert b"exited with status 3" in failed.stderr
    assert b"/articles/sample-error" in failed.stderr
    ok = client("run", "--url", server.url, "--", sys.executable, "-c", "print('done')")
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, b"done\n", b"")


def test_run_reports_the_signal_status_and_a_missing_command() -> None:
    killed = client("run", "--url", "http://127.0.0.1:9", "--", "sh", "-c", "kill -TERM $$")
    assert killed.returncode == 128 + signal.SIGTERM
    missing = client("run", "--", "no-such-command-errkb")
    assert missing.returncode == 127
    assert b"cannot run no-such-command-errkb" in missing.stderr


def test_run_passes_sigterm_on_to_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "got-term"
    script = (
        "import signal, sys, time, pathlib\n"
        f"touch = lambda *a: (pathlib.Path({str(marker)!r}).touch(), sys.exit(7))\n"
        "signal.signal(signal.SIGTERM, touch)\n"
        "print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    variables = {k: v for k, v in os.environ.items() if not k.startswith("ERRKB_")}
    proc = subprocess.Popen(
        [str(CLIENT), "run", "--url", "http://127.0.0.1:9", "--", sys.executable, "-c", script],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=variables,
    )  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 7, err
    assert marker.exists()


def test_github_actions_annotations_point_into_the_file(server: Server, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("noise\n" * 1000 + TRACEBACK)
    done = client(
        "report", str(log), "--url", server.url, "--tail-bytes", "300", GITHUB_ACTIONS="true"
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.decode().splitlines() if line.startswith("::error ")]
    error_line = 1000 + TRACEBACK.splitlines().index("SampleError: widget 3 exploded") + 1
    assert lines, done.stdout
    assert any(f"file={log},line={error_line}," in line.replace("%3A", ":") for line in lines)
    assert all("title=errkb%3A sample-error::" in line for line in lines)
    assert b"/articles/sample-error" in done.stdout


def test_annotations_escape_the_runners_markup() -> None:
    data = {"matches": [{"article_id": "a", "title": "50% off: a,b\nc", "url": "http://x/a",
                         "evidence": [{"line_start": 3}]}]}  # fmt: skip
    (command,) = annotations(data, file="logs/a,b:c.log", first_line=11)
    assert command == (
        "::error file=logs/a%2Cb%3Ac.log,line=13,title=errkb%3A a::50%25 off: a,b%0Ac (http://x/a)"
    )


def test_the_hook_and_the_script_agree_on_the_default_url() -> None:
    script = (Path(__file__).resolve().parents[2] / "scripts" / "errkb-hook.sh").read_text()
    assert f"${{ERRKB_URL:-{DEFAULT_URL}}}" in script


@pytest.mark.slow
def test_the_client_installs_alone_into_python_3_10_and_answers(
    server: Server, tmp_path: Path
) -> None:
    python310 = _python("3.10")
    venv = tmp_path / "venv310"
    subprocess.run([python310, "-m", "venv", str(venv)], check=True, timeout=120)
    source = Path(__file__).resolve().parents[2] / "clients" / "python"
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-2000:]
    freeze = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert [line.split()[0].split("==")[0] for line in freeze.splitlines()] == ["errkb-client"]
    log = tmp_path / "train.log"
    log.write_bytes(gzip.decompress(gzip.compress(TRACEBACK.encode())))
    argv = [str(venv / "bin" / "errkb-client"), "report", str(log), "--url", server.url]
    done = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    assert b"/articles/sample-error" in done.stdout


def _python(version: str) -> str:
    """An interpreter of that version: on PATH, else one pyenv installed; the test needs one."""
    roots = {Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))}
    roots |= {Path(d).parent for d in os.environ["PATH"].split(os.pathsep) if d.endswith("shims")}
    candidates = [shutil.which(f"python{version}") or ""]
    for root in sorted(roots):
        candidates += map(str, sorted(root.glob(f"versions/{version}.*/bin/python{version}")))
    for path in filter(None, candidates):
        probe = subprocess.run([path, "-c", "import sys; print(sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)  # fmt: skip
        if probe.returncode == 0 and probe.stdout.strip() == str(
            tuple(map(int, version.split(".")))
        ):
            return path
    pytest.fail(f"python{version} is needed for this test and was not found")
