"""Response models of the JSON API; the OpenAPI schema is generated from these."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Health(BaseModel):
    """The process is alive; says nothing about its dependencies."""

    status: Literal["ok"] = "ok"


class Readiness(BaseModel):
    """Whether this replica should receive traffic, and which KB it serves."""

    status: Literal["ready", "not-ready"]
    database: Literal["ok", "unreachable"]
    kb_revision: str = Field(description="Content hash of the KB in use.")
    articles: int = Field(description="Number of articles in the KB in use.")
