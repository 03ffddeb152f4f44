"""Every setting is documented: in its field description and in the README's table."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_setting_is_documented(name: str) -> None:
    field = Settings.model_fields[name]
    assert field.description
    assert len(field.description) > 10
    assert f"`ERRKB_{name.upper()}`" in README.read_text(encoding="utf-8")


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRKB_PORT", "9123")
    monkeypatch.setenv("ERRKB_DEFAULT_LANG", "zh")
    settings = Settings()
    assert (settings.port, settings.default_lang) == (9123, "zh")


def test_settings_refuse_bad_values_and_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRKB_DEFAULT_LANG", "fr")
    with pytest.raises(ValidationError):
        Settings()
    settings = Settings(default_lang="en")
    with pytest.raises(ValidationError):
        settings.port = 1  # type: ignore[misc]
