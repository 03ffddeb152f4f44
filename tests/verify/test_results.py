"""Where results go: the table, posting (idempotent by run_id), bundles and ingest, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.errors import InputError
from app.store.verifications import latest_verifications
from app.verify.bundle import read_bundle, write_bundle
from app.verify.ingest import ingest
from app.verify.post import PostFailed, post
from app.verify.report import all_good, summary, table
from tests.kbfactory import VALID_ARTICLE, write_kb
from tests.verify.test_outcome import verification

REPO = Path(__file__).resolve().parents[2]
RUNS = [
    verification(run_id="a" * 32),
    verification(
        run_id="b" * 32, article_id="other", outcome="unverifiable", reason="needs 2 GPU(s)"
    ),
]


def test_table_lists_article_outcome_duration_reason() -> None:
    lines = table(RUNS).splitlines()
    assert lines[0].split() == ["ARTICLE", "OUTCOME", "DURATION", "REASON"]
    assert lines[1].split()[:3] == ["sample-error", "verified", "12.5s"]
    assert lines[2].endswith("needs 2 GPU(s)")
    assert summary(RUNS) == "1 unverifiable, 1 verified"
    assert all_good(RUNS)
    assert not all_good([verification(outcome="drifted")])


class Service:
    """A fake /api/v1/verifications answering from a script of status codes."""

    def __init__(self, *answers: int | Exception) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, object]] = []
        self.headers: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/v1/verifications"
        self.bodies.append(json.loads(request.content))
        self.headers.append(request.headers["authorization"])
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return httpx.Response(answer, json={})


def send(service: Service, url: str = "https://errkb.example.org") -> object:
    return post(RUNS[:1], url, "tok", transport=httpx.MockTransport(service), sleep=lambda s: None)


def test_post_sends_each_run_with_the_bearer_token() -> None:
    service = Service(201)
    posted = send(service, "https://errkb.example.org/")
    assert posted.created == 1  # type: ignore[attr-defined]
    assert service.headers == ["Bearer tok"]
    assert service.bodies[0]["run_id"] == "a" * 32


@pytest.mark.parametrize(
    "answers",
    [(503, 200), (httpx.ConnectError("refused"), 201), (429, 500, 200)],
    ids=["5xx-then-duplicate", "transport-then-created", "several"],
)
def test_post_retries_with_the_same_run_id(answers: tuple[int | Exception, ...]) -> None:
    service = Service(*answers)
    send(service, "https://errkb.example.org/api/v1/verifications")
    assert len(service.bodies) == len(answers)
    assert {b["run_id"] for b in service.bodies} == {"a" * 32}


@pytest.mark.parametrize("status", [401, 403, 422])
def test_post_stops_at_a_refusal(status: int) -> None:
    service = Service(status, 201)
    with pytest.raises(PostFailed, match=f"HTTP {status}"):
        send(service)
    assert len(service.bodies) == 1


def test_post_gives_up_after_four_attempts() -> None:
    with pytest.raises(PostFailed, match="HTTP 503"):
        send(Service(503, 503, 503, 503))


def test_a_bundle_round_trips_and_names_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "v" / "bundle.jsonl"
    write_bundle(path, RUNS)
    assert [json.loads(line)["run_id"] for line in path.read_text().splitlines()] == [
        "a" * 32,
        "b" * 32,
    ]
    loaded = read_bundle(path)
    assert [r.to_json() for r in loaded] == [r.to_json() for r in RUNS]
    path.write_text(path.read_text() + '{"run_id": "c"}\n')
    with pytest.raises(InputError, match=r"bundle\.jsonl:3: not a verification run"):
        read_bundle(path)


def test_ingest_stores_each_run_once(engine: Engine) -> None:
    first = ingest(engine, RUNS)
    again = ingest(engine, RUNS)
    assert (first.created, first.duplicates) == (2, 0)
    assert (again.created, again.duplicates, again.conflicts) == (0, 2, ())
    changed = ingest(engine, [verification(run_id="a" * 32, outcome="drifted")])
    assert changed.conflicts == ("a" * 32,)
    with Session(engine) as session:
        [stored] = latest_verifications(session, article_id="sample-error")
    assert stored.outcome == "verified"
    assert stored.environment["packages"] == {"torch": "2.13.0+cpu"}


def errkb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    sample = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["pytest>=1"]}}}
    return write_kb(tmp_path / "kb", sample)


def test_cli_verifies_writes_a_bundle_and_ingests_it(kb_root: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "out.jsonl"
    done = errkb(
        "verify",
        "sample-error",
        "--kb",
        str(kb_root),
        "--python",
        sys.executable,
        "--output",
        str(bundle),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sample-error  verified" in done.stdout
    [line] = bundle.read_text().splitlines()
    fields = json.loads(line)
    assert {
        "run_id",
        "article_id",
        "content_hash",
        "outcome",
        "environment",
        "started_at",
        "duration_s",
        "detail",
    } <= set(fields)
    url = f"sqlite:///{tmp_path / 'errkb.db'}"
    assert errkb("db", "upgrade", "--database-url", url).returncode == 0
    first = errkb("verify", "ingest", str(bundle), "--database-url", url)
    again = errkb("verify", "ingest", str(bundle), "--database-url", url)
    assert first.returncode == 0
    assert "1 new, 0 already stored" in first.stdout
    assert again.returncode == 0
    assert "0 new, 1 already stored" in again.stdout


def test_cli_exits_1_when_an_article_does_not_verify(tmp_path: Path) -> None:
    stale = {**VALID_ARTICLE, "repro": {"requires": {"packages": ["pytest>=1"]}}}
    root = write_kb(tmp_path / "kb", stale)
    (root / "repros" / "sample-error" / "repro.py").write_text("print('all fine now')\n")
    done = errkb("verify", "--kb", str(root), "--python", sys.executable)
    assert done.returncode == 1
    assert "stale" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "no-such-article"),
        ("verify", "--post", "https://errkb.example.org"),
        ("verify", "--executor", "slurm"),
        ("verify", "--python", "/nonexistent/python"),
        ("verify", "ingest", "/nonexistent.jsonl", "--database-url", "sqlite://"),
    ],
)
def test_cli_usage_errors_exit_2(args: tuple[str, ...], kb_root: Path) -> None:
    done = errkb(*args, "--kb", str(kb_root)) if "ingest" not in args else errkb(*args)
    assert done.returncode == 2, done.stdout + done.stderr
