"""The API tests' SQLite fixture, for the authoring tests that start an app."""

from tests.api.conftest import sqlite_url

__all__ = ["sqlite_url"]
