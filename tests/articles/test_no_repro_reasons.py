"""Every article without a repro says why in docs/verification.md; no row outlives its reason."""

from __future__ import annotations

import re
from pathlib import Path

from app.articles.load import load_kb

REPO = Path(__file__).resolve().parents[2]
HEADING = "### Articles without a repro, and why"


def _table_rows() -> set[str]:
    text = (REPO / "docs" / "verification.md").read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1].split("\n#", 1)[0]
    rows = set(re.findall(r"^\| ([a-z0-9][a-z0-9-]+) \| ", section, flags=re.MULTILINE))
    return rows - {"article"}  # the header row


def _without_repro() -> set[str]:
    kb = load_kb(REPO / "kb").kb
    return {
        key
        for key, loaded in kb.articles.items()
        if loaded.article.repro is None and loaded.article.status != "retired"
    }


def test_every_article_without_a_repro_has_its_reason_in_the_table() -> None:
    missing = sorted(_without_repro() - _table_rows())
    assert not missing, f"add a row with the reason to docs/verification.md: {missing}"


def test_no_row_names_an_article_that_has_a_repro_now() -> None:
    stale = sorted(_table_rows() - _without_repro())
    assert not stale, f"these have a repro (or no article) now; drop their rows: {stale}"
