"""A KB with one article in each status an author can set: active, draft, retired."""

from __future__ import annotations

from pathlib import Path

from tests.kbfactory import VALID_ARTICLE, write_article, write_kb

DRAFT_LOG = "DraftError: gizmo 7 melted\n"
RETIRED_LOG = "RetiredError: sprocket 2 rusted\n"


def _variant(article_id: str, exception: str, pattern: str, **extra: object) -> dict[str, object]:
    article = dict(VALID_ARTICLE) | {"id": article_id, "repro": None, **extra}
    article["signatures"] = {"error": [pattern]}
    article["title"] = {"en": f"{exception} title", "zh": f"{exception} 标题"}
    return {key: value for key, value in article.items() if value is not None}


def write_status_kb(root: Path) -> Path:
    """sample-error (active), draft-error (draft), retired-error (retired), each with its log."""
    write_kb(root)
    draft = _variant("draft-error", "DraftError", r"DraftError: gizmo \d+ melted", status="draft")
    retired = _variant(
        "retired-error", "RetiredError", r"RetiredError: sprocket \d+ rusted", status="retired"
    )
    for article, log in ((draft, DRAFT_LOG), (retired, RETIRED_LOG)):
        write_article(root, article)
        (root / "examples" / str(article["id"]) / "sample.log").write_text(log)
    return root
