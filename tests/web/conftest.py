"""Helpers for the page tests: post the paste form, follow to the permalink, read the token."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from httpx import Response

from tests.api.conftest import client, db_client, sqlite_url

__all__ = ["client", "db_client", "sqlite_url"]  # the API tests' app fixtures, reused

PERMALINK = re.compile(r"^/r/(\d+)/([A-Za-z0-9_-]{8,32})$")
CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


def paste(client: TestClient, text: str, **fields: str) -> Response:
    """POST the paste form as a browser does (multipart, an empty file part) without following."""
    return client.post(
        "/match",
        data={"text": text, "lang": "en", **fields},
        files={"log": ("", b"", "application/octet-stream")},
        follow_redirects=False,
    )


def paste_and_open(client: TestClient, text: str, **fields: str) -> tuple[str, Response]:
    """Paste, check the 303 to a permalink, open it; returns (permalink, page)."""
    posted = paste(client, text, **fields)
    assert posted.status_code == 303, posted.text
    link = posted.headers["location"]
    assert PERMALINK.match(link), link
    page = client.get(link)
    assert page.status_code == 200
    return link, page


def csrf_of(page: Response) -> str:
    found = CSRF_FIELD.search(page.text)
    assert found, "the page carries no feedback token"
    return found.group(1)
