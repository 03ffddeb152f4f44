"""Apps for the API tests: a fresh app per test on its own database and a one-article KB.

``app_client(db_url, tmp_path, **settings)`` builds the app the way
``errkb serve`` does (``create_app(Settings(...))``) after migrating the
database; the rate limit and the match cache are off unless a test turns
them on, so tests can post as often as they like and every post is matched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store import migrate
from tests.kbfactory import write_kb

TRACEBACK = (
    "step 10 loss 1.2\n"
    "Traceback (most recent call last):\n"
    '  File "/work/sample/module.py", line 3, in explode\n'
    "    raise SampleError(f'widget {n} exploded')\n"
    "SampleError: widget 3 exploded\n"
)
UNKNOWN = (
    "Traceback (most recent call last):\n"
    '  File "/work/train.py", line 9, in main\n'
    "ValueError: the flux capacitor is out of range 42\n"
)


def settings_for(db_url: str, kb_root: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": db_url,
        "kb_path": kb_root,
        "index_dir": kb_root.parent / "index",
        "rate_limit_per_minute": 0,
        "cache_seconds": 0,
    }
    return Settings(**(values | overrides))


@contextmanager
def app_client(db_url: str, tmp_path: Path, **overrides: Any) -> Iterator[TestClient]:
    """A started app on a migrated ``db_url`` with the sample KB under ``tmp_path``."""
    migrate.upgrade(db_url)
    kb_root = tmp_path / "kb"
    if not kb_root.exists():
        write_kb(kb_root)
    with TestClient(create_app(settings_for(db_url, kb_root, **overrides))) as client:
        yield client


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'errkb.db'}"


@pytest.fixture
def client(sqlite_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite (most API behaviour does not depend on the database)."""
    with app_client(sqlite_url, tmp_path) as built:
        yield built


@pytest.fixture
def db_client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The app on SQLite and on PostgreSQL, for what the database decides."""
    with app_client(db_url, tmp_path) as built:
        yield built
