"""The authoring loop through the real command, on SQLite and PostgreSQL (issue 9):
a gap becomes a draft, a KB change is previewed on stored events, feedback becomes fixtures."""

from __future__ import annotations

import json
import re
import shutil
import time
from datetime import timedelta
from pathlib import Path

import yaml
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import prepare_valid_kb
from app.service.recorder import sighting_of, store_sightings
from app.store.match_events import list_unmatched, record_feedback, record_match_event
from app.store.tables import utcnow
from tests.api.conftest import app_client
from tests.kbfactory import variant, write_kb
from tests.logfixtures import read_fixture
from tests.test_cli import errkb

FLUX = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/train.py", line 9, in main\n'
    "ValueError: the flux capacitor is out of range {n} at step {n}\n"
)
SAMPLE = "step 3\nSampleError: widget {n} exploded\n"


def _sightings(engine: Engine, kb: Path, texts: list[str]) -> list[int]:
    """Match ``texts`` with the KB at ``kb`` and store them as the service does."""
    live = prepare_valid_kb(kb, self_tests=False)
    now = utcnow()
    batch = []
    for i, text in enumerate(texts):
        result = match_text(text.encode(), live.index, MatchOptions())
        sighting = sighting_of(
            result, client_kind="curl", lang="en", duration_ms=1.0, kb_revision=live.revision
        )
        batch.append((sighting, now - timedelta(minutes=len(texts) - i)))
    return store_sightings(engine, batch)


def _db(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def test_a_cluster_becomes_a_draft_that_matches_its_samples(engine: Engine, tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb")
    _sightings(engine, kb, [FLUX.format(n=n) for n in (42, 17, 42, 99)])
    with Session(engine) as session:
        (cluster,) = list_unmatched(session)
    assert cluster.count == 4

    made = errkb(
        "new", "flux-range", "--from-cluster", cluster.fingerprint[:12],
        "--kb", str(kb), "--database-url", _db(engine),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    article = yaml.safe_load((kb / "articles" / "flux-range.yaml").read_text())
    assert article["status"] == "draft"
    assert article["signatures"]["traceback"]["exception"] == "ValueError"
    (regex,) = article["signatures"]["error"]
    assert regex.startswith("ValueError: the flux capacitor is out of range ")
    samples = sorted((kb / "examples" / "flux-range").iterdir())
    assert [p.name for p in samples] == ["sample-1.log", "sample-2.log", "sample-3.log"]
    assert "out of range 99" in samples[0].read_text()  # newest first, distinct
    assert (kb / "repros" / "flux-range" / "repro.py").is_file()

    lint = errkb("lint", "--kb", str(kb))
    assert lint.returncode == 0, lint.stderr
    assert "flux-range.yaml:" in lint.stdout
    assert "warning: title: TODO(errkb) left to fill in" in lint.stdout
    assert "ranks" not in lint.stdout  # the masked regex matches every sample

    path = kb / "articles" / "flux-range.yaml"
    path.write_text(path.read_text().replace("status: draft", "status: active"))
    refused = errkb("lint", "--kb", str(kb))
    assert refused.returncode == 1
    assert "kb/articles/flux-range.yaml:" in refused.stderr
    assert "cause: TODO(errkb) left to fill in" in refused.stderr

    again = errkb("new", "flux-range", "--kb", str(kb))
    assert again.returncode == 2
    assert "exists (use --force" in again.stderr


def test_new_refuses_a_bad_id_and_an_unknown_cluster(engine: Engine, tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb")
    assert "is not an article id" in errkb("new", "Bad_Id", "--kb", str(kb)).stderr
    unknown = errkb(
        "new", "x-y", "--from-cluster", "abcdef0123", "--kb", str(kb), "--database-url", _db(engine)
    )
    assert unknown.returncode == 2
    assert "no unmatched cluster" in unknown.stderr


def test_dryrun_previews_drafts_and_flags_an_article_losing_its_matches(
    engine: Engine, tmp_path: Path
) -> None:
    kb = write_kb(tmp_path / "kb")
    _sightings(engine, kb, [SAMPLE.format(n=n) for n in (1, 2, 3)] + [FLUX.format(n=5)])
    proposed = tmp_path / "proposed"
    shutil.copytree(kb, proposed)
    made = errkb("new", "flux-range", "--kb", str(proposed))
    assert made.returncode == 0, made.stderr
    article = proposed / "articles" / "flux-range.yaml"
    article.write_text(
        article.read_text().replace(
            '"TODO(errkb): a regex of the error line"', r'"ValueError: the flux capacitor"'
        )
    )
    (proposed / "examples" / "flux-range" / "sample-1.log").write_text(FLUX.format(n=1))
    base = ("dryrun", "--kb", str(proposed), "--current-kb", str(kb), "--database-url", _db(engine))

    quiet = errkb(*base)
    assert quiet.returncode == 0, quiet.stderr
    assert "replayed 4 stored match event(s): 0 changed, 0 gained, 0 lost" in quiet.stdout

    drafts = errkb(*base, "--include-drafts", "--json")
    assert drafts.returncode == 0, drafts.stderr
    diff = json.loads(drafts.stdout)
    assert diff["counts"] == {"changed": 0, "gained": 1, "lost": 0, "confidence": 0}
    gained = {a["article_id"]: a for a in diff["articles"]}["flux-range"]
    assert (gained["before"], gained["after"], gained["gained"]) == (0, 1, 1)

    narrowed = variant(signatures={"error": [r"SampleError: widget 3 exploded"]})
    write_kb(proposed, narrowed)
    flagged = errkb(*base)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "sample-error" in flagged.stdout
    assert "FLAGGED: loses 67% (> 20%)" in flagged.stdout
    assert "sample: event " in flagged.stdout
    assert "SampleError: widget 2 exploded" in flagged.stdout  # the sample's redacted line


def test_feedback_becomes_fixtures_with_the_verdict_inside(engine: Engine, tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb")
    ids = _sightings(engine, kb, [SAMPLE.format(n=1), SAMPLE.format(n=2), FLUX.format(n=3)])
    with Session(engine) as session:
        record_feedback(session, match_event_id=ids[0], verdict="fixed")
        record_feedback(session, match_event_id=ids[1], verdict="wrong")
        record_feedback(
            session, match_event_id=ids[2], verdict="wrong", right_article_id="flux-range"
        )
    out = tmp_path / "fixtures"
    done = errkb(
        "feedback", "export", "--output", str(out), "--kb", str(kb), "--database-url", _db(engine)
    )
    assert done.returncode == 0, done.stderr
    assert "3 candidate fixture(s)" in done.stdout
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    verdicts = {row["verdict"] + str(row["right"]): row for row in index}
    fixed = read_fixture(out / verdicts["fixedNone"]["file"])
    assert (fixed.expected, fixed.text.split("\n")[fixed.line - 1]) == (  # type: ignore[operator]
        "sample-error",
        "SampleError: widget 1 exploded",
    )
    nothing = read_fixture(out / verdicts["wrongNone"]["file"])
    assert nothing.expected is None
    assert "SampleError: widget 2 exploded" in nothing.text
    right = read_fixture(out / verdicts["wrongflux-range"]["file"])
    assert right.expected == "flux-range"
    assert right.text.split("\n")[right.line - 1].startswith("ValueError: the flux")  # type: ignore[operator]


def test_the_unmatched_page_offers_the_draft_errkb_new_would_write(
    db_url: str, tmp_path: Path
) -> None:
    kb = write_kb(tmp_path / "kb")
    with app_client(db_url, tmp_path) as client:
        for n in (4, 8):
            assert client.post("/api/v1/match", json={"text": FLUX.format(n=n)}).json()["unknown"]
        deadline = time.monotonic() + 10
        while "/draft" not in (page := client.get("/unmatched").text):
            assert time.monotonic() < deadline, "the unmatched cluster was never stored"
            time.sleep(0.05)
        link = re.search(r'href="(/unmatched/[0-9a-f]{64}/draft)"', page)
        assert link is not None
        draft = client.get(link.group(1))
        assert draft.status_code == 200
        assert "errkb new valueerror-flux-capacitor-out --from-cluster " in draft.text
        assert "kb/articles/valueerror-flux-capacitor-out.yaml" in draft.text
        assert "status: draft" in draft.text
        assert "ValueError: the flux capacitor is out of range" in draft.text
        zh = client.get(link.group(1), params={"lang": "zh"}).text
        assert "为这个错误起草一篇文章" in zh
        assert client.get("/unmatched/" + "0" * 64 + "/draft").status_code == 404
        assert client.get("/unmatched/nothex/draft").status_code == 404
    assert kb.is_dir()


def test_lint_warns_about_an_article_stale_for_long(engine: Engine, tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb")
    with Session(engine) as session:
        record_match_event(
            session,
            fingerprint="c" * 64,
            excerpt="OSError: something else",
            top_article_id=None,
            score=None,
            client_kind="curl",
            lang="en",
            input_bytes=10,
            event_count=1,
            duration_ms=1.0,
            kb_revision="r",
            created_at=utcnow() - timedelta(days=200),
        )
    lint = errkb("lint", "--kb", str(kb), "--database-url", _db(engine))
    assert lint.returncode == 0, lint.stderr
    assert "kb/articles/sample-error.yaml:1: warning: stale for 110 days (no hits for 90 days)" in (
        lint.stdout
    )
    quiet = errkb(
        "lint", "--kb", str(kb), "--database-url", _db(engine), env={"ERRKB_STALE_WARN_DAYS": "200"}
    )
    assert "stale for" not in quiet.stdout
