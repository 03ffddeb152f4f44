"""kb/schema.json is generated from the article model; a stale copy fails here."""

from __future__ import annotations

import json
from pathlib import Path

from app.articles.model import article_json_schema

REPO = Path(__file__).resolve().parents[1]


def test_schema_json_is_up_to_date() -> None:
    committed = json.loads((REPO / "kb" / "schema.json").read_text(encoding="utf-8"))
    assert committed == article_json_schema(), "kb/schema.json is stale: run `make schema`"


def test_schema_forbids_unknown_keys_and_requires_both_languages() -> None:
    schema = article_json_schema()
    assert schema["additionalProperties"] is False
    localized = schema["$defs"]["Localized"]  # type: ignore[index]
    assert sorted(localized["required"]) == ["en", "zh"]
