"""What an anonymous paste costs the disk (issue 24, item 6; target I7), against ``errkb serve``.

Each paste stored its own excerpt and its own result-page view, identical
pastes included, and a crafted paste's view took some 60 KiB. Now the view is
bounded (``app.service.result_views.VIEW_BYTES``) and both texts live in
``stored_text`` rows shared by identical pastes. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import sqlalchemy as sa

from app.service.recorder import EXCERPT_BYTES
from app.service.result_views import VIEW_BYTES
from app.store.engine import make_engine
from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import start, stop

SAME = 20


def crafted(n: int) -> str:
    """A paste made to store as much as it can: 12 tracebacks of long lines."""
    parts = []
    for e in range(12):
        frames = "".join(
            f'  File "/srv/{"p" * 200}/m{n}_{e}_{i}.py", line {i}, in f{i}\n    {"q" * 390}\n'
            for i in range(40)
        )
        message = f"w{n} " * 600
        parts.append(f"Traceback (most recent call last):\n{frames}Error{e}Kind: {message}\n")
    return "".join(parts)


def _stored(
    db_url: str,
) -> list[sa.Row[tuple[int, int | None, int | None, str | None, str | None]]]:
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(
                conn.execute(
                    sa.text(
                        "SELECT e.id, e.excerpt_id, e.view_id, x.body, v.body FROM match_event e"
                        " LEFT JOIN stored_text x ON x.id = e.excerpt_id"
                        " LEFT JOIN stored_text v ON v.id = e.view_id ORDER BY e.id"
                    )
                ).all()
            )
    finally:
        engine.dispose()


def _uses(db_url: str) -> dict[int, int]:
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT id, uses FROM stored_text")).all()
    finally:
        engine.dispose()
    return {int(i): int(u) for i, u in rows}


def test_i7_identical_pastes_share_one_body_and_a_crafted_paste_is_bounded(
    db_url: str, tmp_path: Path
) -> None:
    server = start(db_url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0")
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            same = [client.post("/api/v1/match", content=TRACEBACK).json() for _ in range(SAME)]
            big = [
                client.post(
                    "/api/v1/match", content=crafted(n), headers={"Accept": "application/json"}
                )
                for n in range(3)
            ]
            page = client.get(big[0].json()["result_url"])
    finally:
        stop(server)
    rows = _stored(db_url)
    uses = _uses(db_url)
    assert len(rows) == SAME + 3  # the cache is off: each paste is its own event
    assert len({r[0] for r in rows}) == SAME + 3
    identical = rows[:SAME]
    assert len({r[1] for r in identical}) == 1  # one excerpt ...
    assert len({r[2] for r in identical}) == 1  # ... and one view for the 20 identical pastes
    assert uses[identical[0][1]] == SAME
    assert uses[identical[0][2]] == SAME
    assert len({b["result_key"] for b in same}) == SAME  # each event keeps its own permalink
    for _, _, _, excerpt, view in rows[SAME:]:
        assert excerpt is not None
        assert view is not None
        assert len(excerpt.encode()) <= EXCERPT_BYTES
        assert len(view.encode()) <= VIEW_BYTES
        assert '"trimmed":true' in view
    assert [b.status_code for b in big] == [200] * 3
    assert page.status_code == 200
    assert "Error0Kind" in page.text
    stored = sum(len((x or "").encode()) + len((v or "").encode()) for *_, x, v in rows[SAME:])
    print(f"I7: a crafted paste stores {stored / 3 / 1024:.1f} KiB of text (excerpt + view)")


def test_i7_a_client_past_its_daily_allowance_is_answered_but_stores_no_text(
    tmp_path: Path,
) -> None:
    """Distinct crafted pastes at the rate limit still stored ~20 KiB each; past
    ``ERRKB_STORED_BYTES_PER_CLIENT_DAY`` a client is answered and counted, without text."""
    allowance = 100_000
    db_url = f"sqlite:///{tmp_path / 'e2e.db'}"
    server = start(
        db_url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_CACHE_SECONDS="0",
        ERRKB_STORED_BYTES_PER_CLIENT_DAY=str(allowance),
    )  # fmt: skip
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            answers = [
                client.post("/api/v1/match", json={"text": crafted(n)}).json() for n in range(10)
            ]
            page = client.post("/match", data={"text": crafted(99)}, follow_redirects=False)
    finally:
        stop(server)
    rows = _stored(db_url)
    linked = [a["result_url"] is not None for a in answers]
    stored = sum(len((x or "").encode()) + len((v or "").encode()) for *_, x, v in rows)
    assert all(a["match_event_id"] is not None for a in answers)  # every paste is counted
    assert len(rows) == 11
    assert 3 <= linked.count(True) <= 5  # about 20 KiB each
    assert linked == sorted(linked, reverse=True)  # the allowance ran out, then stayed out
    assert stored <= allowance
    assert [r[1] is None and r[2] is None for r in rows[:10]] == [not x for x in linked]
    assert page.status_code == 200  # the web page is shown, without a permalink to go to
    assert "Error0Kind" in page.text
