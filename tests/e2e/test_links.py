"""Answer links never follow a forged ``Host`` header (issue 24, item 8; target I8).

Against ``errkb serve``: every answer format of ``POST /api/v1/match`` (for a
matched and an unmatched log) and the article answers, asked with a forged
``Host``. Without ``ERRKB_PUBLIC_URL`` the links are relative; with it they
carry the configured URL. The forged name appears nowhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from app.http.clients import FORMATS
from tests.api.conftest import TRACEBACK, UNKNOWN
from tests.e2e.conftest import Server, start, stop

FORGED = "attacker.example"


def _answers(server: Server) -> dict[str, str]:
    """Every answer with links, asked with the forged Host: name -> body text."""
    forged = {"Host": FORGED}
    answers = {}
    with httpx.Client(base_url=server.url, timeout=30, headers=forged) as client:
        for log_name, log in (("matched", TRACEBACK), ("unmatched", UNKNOWN)):
            for fmt in FORMATS:
                response = client.post(f"/api/v1/match?format={fmt}", content=log)
                assert response.status_code == 200, (fmt, response.text)
                answers[f"{log_name} {fmt}"] = response.text
        for path in ("/api/v1/articles", "/api/v1/articles/sample-error"):
            response = client.get(path)
            assert response.status_code == 200, response.text
            answers[path] = response.text
    return answers


@pytest.mark.parametrize("public_url", ["", "https://errkb.example.org"], ids=["unset", "set"])
def test_i8_a_forged_host_never_reaches_an_answer_link(tmp_path: Path, public_url: str) -> None:
    server = start(
        f"sqlite:///{tmp_path / 'e2e.db'}", tmp_path,
        ERRKB_RATE_LIMIT_PER_MINUTE="0", ERRKB_PUBLIC_URL=public_url,
    )  # fmt: skip
    try:
        answers = _answers(server)
    finally:
        stop(server)
    assert len(answers) == 2 * len(FORMATS) + 2
    carrying = [name for name, text in answers.items() if FORGED in text]
    assert carrying == []
    matched = json.loads(answers["matched json"])
    unmatched = json.loads(answers["unmatched json"])
    assert matched["result_url"].startswith(f"{public_url}/r/"), matched["result_url"]
    assert matched["matches"][0]["url"] == f"{public_url}/articles/sample-error"
    assert unmatched["result_url"].startswith(f"{public_url}/r/"), unmatched["result_url"]
    assert answers["unmatched text"].rstrip().endswith(f"to-do list: {public_url}/unmatched")
    assert f"see: {public_url}/articles/sample-error" in answers["matched text"]
    article = json.loads(answers["/api/v1/articles/sample-error"])
    assert article["url"] == f"{public_url}/articles/sample-error"
