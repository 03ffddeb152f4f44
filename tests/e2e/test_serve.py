"""End to end: ``errkb serve`` on a real socket, driven by real curl and httpx.

On SQLite and PostgreSQL: the forms a job hook and a bot use, the stored
event, feedback, logs. On SQLite only (the database plays no part): a 200 MB
upload refused before it is sent (C1), a 1 GiB gzip bomb (C3), twenty 50 MB
uploads against a fast /healthz (D6), and a 10 MB log answered alone (P9).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import BIN, Server, start, stop

MIB = 1 << 20


def curl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["curl", "-sS", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_curl_and_httpx_against_the_real_server(server: Server, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(TRACEBACK)
    (tmp_path / "train.log.gz").write_bytes(gzip.compress(TRACEBACK.encode()))
    match = server.url + "/api/v1/match"
    plain = curl("--data-binary", f"@{log}", match)
    assert plain.stdout.startswith("errkb: Sample failure [sample-error]"), plain
    assert f"see: {server.url}/articles/sample-error" in plain.stdout
    upload = curl("-F", f"log=@{log}", match)
    assert upload.stdout.startswith("errkb: Sample failure"), upload
    gz = curl(
        "-H", "Content-Encoding: gzip", "--data-binary", f"@{tmp_path / 'train.log.gz'}", match
    )
    assert gz.stdout.startswith("errkb: Sample failure"), gz
    asked = curl("-H", "Accept: application/json", "--data-binary", f"@{log}", match)
    key = json.loads(asked.stdout)["result_key"]
    with httpx.Client(base_url=server.url, timeout=10) as client:
        body = client.post("/api/v1/match", json={"text": TRACEBACK, "lang": "zh"}).json()
        assert body["matches"][0]["title"] == "示例错误"
        feedback = client.post("/api/v1/feedback", json={"result_key": key, "verdict": "fixed"})
        assert feedback.status_code == 201
        stats = client.get("/api/v1/articles/sample-error").json()["stats"]
        assert stats["fixed"] == 1
        assert stats["hits"] >= 1
        assert "errkb_http_requests_total" in client.get("/metrics").text
        ready = client.get("/readyz", headers={"X-Request-ID": "e2e-ready"})
        assert ready.headers["x-request-id"] == "e2e-ready"
    deadline = time.monotonic() + 10  # the access line is written after the response
    while '"e2e-ready"' not in server.output() and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("msg") == "request"]
    assert any(line["request_id"] == "e2e-ready" for line in access)
    assert {"route", "status", "duration_ms", "client_kind", "body_bytes"} <= set(access[0])
    assert "widget 3 exploded" not in server.output()


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Server:
    running = start(f"sqlite:///{tmp_path / 'e2e.db'}", tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0")
    yield running  # type: ignore[misc]
    stop(running)


def test_c1_200mb_upload_is_refused_before_it_is_sent(
    sqlite_server: Server, tmp_path: Path
) -> None:
    """Target C1: 413 fast, and curl uploads (almost) nothing thanks to 100-continue."""
    big = tmp_path / "big.bin"
    with big.open("wb") as out:
        out.truncate(200 * MIB)
    result = curl(
        "-o", "/dev/null", "-w", "%{http_code} %{size_upload} %{time_total}",
        "--data-binary", f"@{big}", sqlite_server.url + "/api/v1/match",
    )  # fmt: skip
    code, uploaded, seconds = result.stdout.split()
    assert code == "413"
    assert int(uploaded) < MIB
    assert float(seconds) < 1.0


def test_c3_one_gib_gzip_bomb_is_refused_fast(sqlite_server: Server, tmp_path: Path) -> None:
    """Target C3: 1 GiB of zeros (1,024 gzip members of 1 MiB, ~1 MB on the wire)."""
    member = gzip.compress(b"\0" * MIB, compresslevel=9)
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(member * 1024)
    started = time.perf_counter()
    result = curl(
        "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Encoding: gzip",
        "--data-binary", f"@{bomb}", sqlite_server.url + "/api/v1/match",
    )  # fmt: skip
    assert result.stdout == "413"
    assert time.perf_counter() - started < 2.0


def _log(size: int) -> bytes:
    noise = b"".join(
        b"[rank0]: step %d loss 1.234 lr 3e-4 throughput 812 tok/s\n" % n for n in range(200)
    )
    return noise * (size // len(noise)) + TRACEBACK.encode()


@pytest.mark.slow
def test_d6_twenty_big_uploads_leave_healthz_fast(sqlite_server: Server, tmp_path: Path) -> None:
    """Target D6: the excess gets 503 + Retry-After at once; accepted ones finish."""
    big = tmp_path / "50mb.log"
    big.write_bytes(_log(50 * MIB))
    results: list[str] = []

    def upload() -> None:
        out = curl(
            "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--data-binary", f"@{big}",
            sqlite_server.url + "/api/v1/match", timeout=120,
        )  # fmt: skip
        results.append(out.stdout)

    threads = [threading.Thread(target=upload) for _ in range(20)]
    for thread in threads:
        thread.start()
    latencies = []
    with httpx.Client(base_url=sqlite_server.url, timeout=5) as client:
        while any(thread.is_alive() for thread in threads):
            started = time.perf_counter()
            assert client.get("/healthz").status_code == 200
            latencies.append(time.perf_counter() - started)
            time.sleep(0.05)
    for thread in threads:
        thread.join()
    codes = [line.split()[0] for line in results]
    refused = [float(line.split()[1]) for line in results if line.startswith("503")]
    assert codes.count("200") >= 2
    assert set(codes) <= {"200", "503"}
    assert refused
    assert max(refused) < 1.0
    latencies.sort()
    assert latencies[len(latencies) // 2] < 0.1, latencies
    assert latencies[-1] < 0.5, latencies


def test_c5_a_10mb_log_alone_is_answered_within_half_a_second(
    sqlite_server: Server, tmp_path: Path
) -> None:
    """Goal P9 (measured properly by benchmarks/http.py)."""
    body = _log(10 * MIB)
    with httpx.Client(base_url=sqlite_server.url, timeout=30) as client:
        client.post("/api/v1/match", content=body[:MIB])
        started = time.perf_counter()
        response = client.post("/api/v1/match", content=body)
        elapsed = time.perf_counter() - started
    assert response.json()["matches"][0]["article_id"] == "sample-error"
    assert elapsed < 1.0  # 0.5 s is the goal on an idle machine; CI shares its cores


def test_h5_every_line_the_server_logs_is_json_with_time_level_and_request_id(
    sqlite_server: Server,
) -> None:
    """Target H5: uvicorn's lines too; control characters and secrets never reach the log."""
    secret = "hf_" + "Zk" * 17
    with httpx.Client(base_url=sqlite_server.url, timeout=30) as client:
        pasted = f"{TRACEBACK}\x1b[31mtoken {secret}\x1b[0m\n"
        client.post("/api/v1/match", content=pasted, headers={"X-Request-ID": "h5-match"})
        client.get("/nope%0a%1b%5B31mforged-line", headers={"X-Request-ID": "h5-404"})
    deadline = time.monotonic() + 10  # the access line is written after the response
    while '"h5-404"' not in sqlite_server.output() and time.monotonic() < deadline:
        time.sleep(0.05)
    output = sqlite_server.output()
    records = [json.loads(line) for line in output.splitlines() if line.strip()]
    for record in records:
        assert {"ts", "level", "logger", "msg"} <= set(record), record
        assert record["ts"].endswith("+00:00"), record
        assert record["level"] in {"debug", "info", "warning", "error", "critical"}
    assert any(record["logger"].startswith("uvicorn") for record in records)
    access = {r["request_id"]: r for r in records if r["logger"] == "errkb.access"}
    assert access["h5-match"]["route"] == "/api/v1/match"
    assert access["h5-404"]["route"] == "unmatched"
    assert all(len(rid) <= 64 for rid in access)
    assert secret not in output
    assert "\x1b" not in output
    assert "forged-line" not in output


def test_h8_real_curl_prints_one_line_when_errkb_is_too_slow(tmp_path: Path) -> None:
    """Target H8 through curl itself: past the deadline, one line, the hook never hangs."""
    server = start(
        f"sqlite:///{tmp_path / 'e2e.db'}", tmp_path,
        ERRKB_ANSWER_SECONDS="0.001", ERRKB_RATE_LIMIT_PER_MINUTE="0",
    )  # fmt: skip
    try:
        log = tmp_path / "big.log"
        log.write_bytes(_log(2 * MIB))
        result = curl(
            "--max-time", "30", "-w", "%{http_code}\n", "--data-binary", f"@{log}",
            server.url + "/api/v1/match",
        )  # fmt: skip
        other = tmp_path / "other.log"
        other.write_bytes(_log(2 * MIB).replace(b"\n", b" \n"))  # not the cached answer
        # a 2 s deadline leaves no room for a retry: the hook prints errkb's reason and goes
        hook = subprocess.run(
            [str(BIN / "errkb"), "report", str(other), "--url", server.url, "--timeout", "2"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    finally:
        stop(server)
    assert hook.returncode == 0, hook.stderr
    assert hook.stderr.startswith("errkb: no answer within 0.001 s; errkb goes on"), hook.stderr
    assert hook.stderr.endswith("(503 busy); job unaffected\n"), hook.stderr
    body, code = result.stdout.rsplit("\n", 2)[0], result.stdout.splitlines()[-1]
    assert code == "503"
    assert body.startswith("errkb: no answer within 0.001 s; errkb goes on"), result.stdout
    assert body.endswith("(503 busy)")
    assert "\n" not in body


def _trickle(url: str, declared: int) -> socket.socket:
    """A raw connection that claims a ``declared``-byte body and sends one byte of it."""
    host, port = url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)), timeout=0.2)
    head = f"POST /api/v1/match HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/plain\r\n"
    connection.sendall(f"{head}Content-Length: {declared}\r\n\r\n".encode() + b"x")
    return connection


def _status_while_trickling(connection: socket.socket, within_s: float) -> str:
    """Send a byte every 0.2 s until the server answers; the answer's status line."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            answer = connection.recv(4096)
            return answer.split(b"\r\n", 1)[0].decode()
        except TimeoutError:
            with contextlib.suppress(OSError):  # the server may have closed its side
                connection.sendall(b"x")
    return "no answer"


def test_d6_trickled_uploads_are_cut_off_and_free_their_big_match_slots(tmp_path: Path) -> None:
    """Two clients claim both big-match slots with a 5 MB Content-Length and send a byte every
    0.2 s. With slots never taken back (``ERRKB_BIG_BODY_MIN_RATE=0``), big logs are refused
    while they hold the slots; past ERRKB_BODY_SECONDS both get
    408 and the next big log is answered."""
    server = start(
        f"sqlite:///{tmp_path / 'e2e.db'}", tmp_path,
        ERRKB_BODY_SECONDS="2", ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_BIG_FOLLOWERS="0",
        ERRKB_BIG_BODY_MIN_RATE="0",  # the deadline alone; I6 below takes slow slots back
    )  # fmt: skip
    try:
        started = time.monotonic()
        trickles = [_trickle(server.url, 5 * MIB) for _ in range(2)]
        time.sleep(0.5)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            refused = client.post("/api/v1/match", content=_log(2 * MIB))
            statuses = [_status_while_trickling(each, within_s=10) for each in trickles]
            cut_after = time.monotonic() - started
            answered = client.post("/api/v1/match", content=_log(2 * MIB) + b"again\n")
        for each in trickles:
            each.close()
    finally:
        stop(server)
    assert refused.status_code == 503, refused.text
    assert statuses == ["HTTP/1.1 408 Request Timeout"] * 2
    assert 2.0 <= cut_after < 6.0
    assert answered.status_code == 200, answered.text


def _trickle_on(connection: socket.socket, stop_at: threading.Event, answers: list[str]) -> None:
    """Keep trickling a byte every 0.2 s until told to stop or answered; record the answer."""
    while not stop_at.is_set():
        try:
            answers.append(connection.recv(4096).split(b"\r\n", 1)[0].decode())
            return
        except TimeoutError:
            with contextlib.suppress(OSError):
                connection.sendall(b"x")
    answers.append("still trickling")


@pytest.mark.parametrize("followers", ["64", "0"], ids=["followers", "no-followers"])
def test_i6_a_big_log_is_answered_while_two_trickles_hold_the_slots(
    tmp_path: Path, followers: str
) -> None:
    """Issue 24, item 2: two connections that trickle bodies took both big-match slots and kept
    every log of 1 MiB or more out (503), the hook's included. Now a slot held by a body that
    arrives slower than ``ERRKB_BIG_BODY_MIN_RATE`` goes to a request that needs it: two big
    logs in turn are answered while the trickles go on, and each trickle that lost its slot gets
    503. The body deadline is long (120 s): it plays no part here."""
    server = start(
        f"sqlite:///{tmp_path / 'e2e.db'}", tmp_path,
        ERRKB_BODY_SECONDS="120", ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_BIG_FOLLOWERS=followers,
    )  # fmt: skip
    stop_at = threading.Event()
    answers: list[list[str]] = [[], []]
    trickles = [_trickle(server.url, 5 * MIB) for _ in range(2)]
    threads = [
        threading.Thread(target=_trickle_on, args=(each, stop_at, out))
        for each, out in zip(trickles, answers, strict=True)
    ]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.5)  # past the 1 s grace: both trickles hold a slot and have sent ~8 bytes
        in_flight = sum(thread.is_alive() for thread in threads)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            logs = [_log(2 * MIB), _log(3 * MIB)]  # two different big logs at once: both slots
            with ThreadPoolExecutor(2) as pool:
                big = list(pool.map(lambda log: client.post("/api/v1/match", content=log), logs))
            health = client.get("/healthz")
            deadline = time.monotonic() + 10
            while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline:
                time.sleep(0.1)
            metrics = client.get("/metrics").text
    finally:
        stop_at.set()
        for thread in threads:
            thread.join(timeout=5)
        for each in trickles:
            each.close()
        stop(server)
    assert in_flight == 2
    assert [answer.status_code for answer in big] == [200, 200], [b.text for b in big]
    assert {answer.json()["matches"][0]["article_id"] for answer in big} == {"sample-error"}
    assert health.status_code == 200
    assert [out[0] for out in answers] == ["HTTP/1.1 503 Service Unavailable"] * 2, answers
    assert 'errkb_rejected_total{reason="slow"} 2.0' in metrics
