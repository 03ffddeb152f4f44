"""The job hook: ``errkb report`` (errkb-client's) and ``scripts/errkb-hook.sh``, for real.

Both must print the plain-text answer when errkb answers, and exit 0 with
one note, quickly, when it is down, hangs or refuses: a hook never hurts the
job it reports on (issue 4, item 9).
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from errkb_client.send import send
from errkb_client.tail import read_file_tail

from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import Server, free_port, start, stop

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "scripts" / "errkb-hook.sh"
ERRKB = Path(sys.executable).parent / "errkb"
Script = Sequence[tuple[int, str | None] | tuple[int, str | None, str]]
"""(status, Retry-After[, body]) for each POST, in order."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("hook")
    running = start(f"sqlite:///{root / 'hook.db'}", root)
    yield running
    stop(running)


@pytest.fixture
def train_log(tmp_path: Path) -> Path:
    log = tmp_path / "train.log"
    log.write_text("noise line\n" * 50_000 + TRACEBACK)
    return log


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A socket that accepts connections and never answers: a hung errkb."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stopping.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stopping.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


class Scripted:
    """A loopback server that answers POSTs from a script of (status, Retry-After) and logs when."""

    def __init__(self, script: Script) -> None:
        self.script = list(script)
        self.times: list[float] = []
        self.bodies: list[bytes] = []
        self.paths: list[str] = []
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                sent = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                scripted.bodies.append(gzip.decompress(sent))
                scripted.paths.append(self.path)
                scripted.times.append(time.monotonic())
                step = scripted.script.pop(0) if scripted.script else (503, "1")
                status, after = step[0], step[1]
                body = b"errkb: answer after a wait\n" if status == 200 else b"busy\n"
                if len(step) == 3:
                    body = step[2].encode()
                self.send_response(status)
                if after is not None:
                    self.send_header("Retry-After", after)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def scripted() -> Iterator[Callable[[Script], Scripted]]:
    servers: list[Scripted] = []

    def make(script: Script) -> Scripted:
        servers.append(Scripted(script))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def hook_argv(how: str, log: Path, url: str) -> tuple[str | Path, ...]:
    return (ERRKB, "report", log, "--url", url) if how == "report" else ("sh", HOOK, log, url)


def run(*argv: str | Path, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    result = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, "PATH": f"{ERRKB.parent}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    return result, time.perf_counter() - started


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_prints_the_answer(server: Server, train_log: Path, how: str) -> None:
    if how == "report":
        result, _ = run(ERRKB, "report", train_log, "--url", server.url, "--tail-bytes", "4096")
    else:
        result, _ = run("sh", HOOK, train_log, server.url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("errkb: Sample failure [sample-error]"), result
    assert f"see: {server.url}/articles/sample-error" in result.stdout


@pytest.fixture(scope="module")
def relative_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """errkb without ERRKB_PUBLIC_URL: its answers carry relative links."""
    root = tmp_path_factory.mktemp("relative")
    running = start(f"sqlite:///{root / 'hook.db'}", root, ERRKB_PUBLIC_URL="")
    yield running
    stop(running)


@pytest.mark.parametrize("how", ["report", "script"])
def test_i8_the_hook_makes_relative_links_whole_with_its_url(
    relative_server: Server, train_log: Path, how: str
) -> None:
    """Links are relative when errkb has no public URL (a forged Host never steers them); both
    hooks print them whole, with the URL they sent the log to."""
    result, _ = run(*hook_argv(how, train_log, relative_server.url + "/"))
    url = relative_server.url
    assert result.returncode == 0, result.stderr
    assert f"see: {url}/articles/sample-error\n" in result.stdout, result.stdout
    assert f"result: {url}/r/" in result.stdout, result.stdout


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_never_fails_the_job_when_errkb_is_down(train_log: Path, how: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    argv = (
        (ERRKB, "report", train_log, "--url", url)
        if how == "report"
        else ("sh", HOOK, train_log, url)
    )
    result, elapsed = run(*argv)
    assert result.returncode == 0
    assert result.stdout == ""
    assert "job unaffected" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert elapsed < 10


def test_the_hook_gives_up_on_a_hung_server(train_log: Path, silent_port: int) -> None:
    url = f"http://127.0.0.1:{silent_port}"
    result, elapsed = run(ERRKB, "report", train_log, "--url", url, "--timeout", "1")
    assert result.returncode == 0
    assert "job unaffected" in result.stderr
    assert elapsed < 10


def test_the_hook_survives_a_missing_log(tmp_path: Path) -> None:
    for argv in ((ERRKB, "report", tmp_path / "none.log"), ("sh", HOOK, tmp_path / "none.log")):
        result, _ = run(*argv)
        assert result.returncode == 0
        assert result.stderr.startswith("errkb:")


def test_report_sends_the_gzipped_tail_from_a_line_start(
    tmp_path: Path, scripted: Callable[[Script], Scripted]
) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"".join(b"line %05d\n" % n for n in range(10_000)))
    server = scripted([(200, None, "errkb: answer\n")])
    tail, _first = read_file_tail(str(log), 1000)
    outcome = send(tail, server.url)
    assert outcome.answer == "errkb: answer"
    assert "format=text" in server.paths[0]
    body = server.bodies[0]  # the scripted server took it gzip-compressed
    assert body.startswith(b"line ")
    assert body.endswith(b"line 09999\n")
    assert len(body) <= 1000
    assert read_file_tail(str(log), 10**9) == (log.read_bytes(), 1)


def test_report_notes_a_refusal(scripted: Callable[[Script], Scripted]) -> None:
    busy = scripted([(503, None), (503, None), (503, None)])
    outcome = send(TRACEBACK.encode(), busy.url, sleep=lambda _seconds: None)
    assert outcome.answer is None
    assert outcome.note is not None
    assert "503" in outcome.note


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_comes_back_when_errkb_is_busy(
    train_log: Path, scripted: Callable[[Script], Scripted], how: str
) -> None:
    busy = scripted([(503, "1"), (429, "1"), (200, None)])
    result, elapsed = run(*hook_argv(how, train_log, busy.url))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "errkb: answer after a wait"
    assert result.stderr == ""
    assert len(busy.times) == 3
    gaps = [later - earlier for earlier, later in zip(busy.times, busy.times[1:], strict=False)]
    assert min(gaps) >= 0.9, gaps
    assert elapsed < 10


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_gives_up_on_a_busy_errkb_within_its_deadline(
    train_log: Path, scripted: Callable[[Script], Scripted], how: str
) -> None:
    """Busy for good (the script runs out: 503 forever), or a wait longer than the deadline."""
    for script, most in (([], 3), ([(503, "60")], 1)):
        busy = scripted(script)
        result, elapsed = run(*hook_argv(how, train_log, busy.url))
        assert result.returncode == 0
        assert result.stdout == ""
        assert "job unaffected" in result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert 1 <= len(busy.times) <= most
        assert elapsed < 20


def test_report_does_not_retry_a_final_answer(scripted: Callable[[Script], Scripted]) -> None:
    final = scripted([(422, "1", "no")])
    waits: list[float] = []
    outcome = send(TRACEBACK.encode(), final.url, sleep=waits.append)
    assert outcome.note == "errkb: answered 422; job unaffected"
    assert (len(final.times), waits) == (1, [])


def test_report_jitters_its_retries_and_reads_a_date_as_soon(
    scripted: Callable[[Script], Scripted],
) -> None:
    busy = scripted([(503, "2"), (503, "Wed, 21 Oct 2026 07:28:00 GMT"), (503, "2")])
    waits: list[float] = []
    outcome = send(TRACEBACK.encode(), busy.url, sleep=waits.append)
    assert outcome.note == "errkb: answered 503 after 3 tries; job unaffected"
    assert len(waits) == 2
    assert 2.0 <= waits[0] <= 3.0
    assert 1.0 <= waits[1] <= 2.0


@pytest.mark.parametrize(
    ("status", "body", "note"),
    [
        (
            413,
            "errkb: the log is larger than the limit of 1024 bytes (413 too_large)\n",
            "errkb: the log is larger than the limit of 1024 bytes (413 too_large); job unaffected",
        ),
        (502, "<html><body>Bad Gateway</body></html>", "errkb: answered 502; job unaffected"),
        (500, "errkb: \x1b[2Jspoofed\n", "errkb: answered 500; job unaffected"),
        (500, "errkb: " + "x" * 600, "errkb: answered 500; job unaffected"),
    ],
)
def test_h8_report_prints_errkbs_own_reason_for_a_refusal(
    scripted: Callable[[Script], Scripted], status: int, body: str, note: str
) -> None:
    """errkb's one-line reason reaches the job's log; a proxy's page or a control code does not."""
    refusing = scripted([(status, None, body)])
    assert send(TRACEBACK.encode(), refusing.url).note == note


def test_errkb_run_wraps_a_failing_command_and_keeps_its_status(server: Server) -> None:
    script = f"import sys; print('step 1'); sys.stderr.write({TRACEBACK!r}); sys.exit(5)"
    result, _ = run(ERRKB, "run", "--url", server.url, "--", sys.executable, "-c", script)
    assert result.returncode == 5
    assert result.stdout.startswith("step 1\n")
    assert "errkb: Sample failure [sample-error]" in result.stderr


def test_errkb_report_reads_standard_input(server: Server) -> None:
    done = subprocess.run(
        [str(ERRKB), "report", "-", "--url", server.url], input=TRACEBACK, text=True,
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.startswith("errkb: Sample failure [sample-error]")
