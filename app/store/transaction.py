"""How every query of ``app.store`` runs: keyword-only functions, one transaction each.

Every function takes a Session, commits (or, for reads, ends) its own
transaction before it returns, and hands back detached rows. So no call leaves
a SQLite write lock behind while the caller renders a response, and callers
never juggle commits. Read-only callers may pass a session bound to
``engine.reader(engine)`` so that SQLite begins them DEFERRED.

Retries must be harmless (reliability targets F4, F5): the inserts that a
client may repeat use ``INSERT ... ON CONFLICT`` on a unique key, through the
SQLite or PostgreSQL ``insert`` construct, so two racing requests cannot both
insert. Database failures leave as ``StoreError``; a caller's mistake (an
unknown match event, a taken token name) as ``InputError``; a naive datetime,
a programming error, as ``ValueError``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.errors import StoreError
from app.store.tables import StoreModel

if TYPE_CHECKING:  # imported by the first PostgreSQL insert: 50 ms a SQLite server never needs
    from sqlalchemy.dialects import postgresql

P = ParamSpec("P")
R = TypeVar("R")


def guarded(fn: Callable[Concatenate[Session, P], R]) -> Callable[Concatenate[Session, P], R]:
    """Roll back and wrap database failures as StoreError, so the session stays usable."""

    @functools.wraps(fn)
    def wrapper(session: Session, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(session, *args, **kwargs)
        except SQLAlchemyError as exc:
            with contextlib.suppress(SQLAlchemyError):  # a dead connection cannot roll back
                session.rollback()
            # The driver's message, not str(exc): that one carries the statement's parameters.
            reason = getattr(exc, "orig", None) or type(exc).__name__
            raise StoreError(f"{fn.__name__} failed: {reason}") from exc

    return wrapper


def dialect_insert(session: Session, model: type[StoreModel]) -> sqlite.Insert | postgresql.Insert:
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(model)
    if dialect == "sqlite":
        return sqlite.insert(model)
    raise StoreError(f"unsupported database: {dialect}")


def done(session: Session, rows: Iterable[StoreModel] = ()) -> None:
    """Detach ``rows`` (so they stay readable) and end the transaction."""
    for row in rows:
        session.expunge(row)
    session.commit()


def aware(value: datetime, name: str) -> datetime:
    """``value``, refused when naive: every stored time is UTC and timezone-aware."""
    if value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware")
    return value
