"""Bearer tokens for workers and admins: minted, found (constant time), revoked, listed.

Callers: ``app.api.auth`` and ``errkb token``. Only a token's SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.errors import InputError
from app.store.tables import ApiToken, utcnow
from app.store.transaction import done, guarded

TOKEN_PREFIX = "errkb_"  # noqa: S105 (a public prefix, not a secret)
_SCOPE = re.compile(r"[a-z][a-z0-9-]{0,31}")


def _token_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def _scope_words(scopes: str | Sequence[str]) -> list[str]:
    words = scopes.split() if isinstance(scopes, str) else list(scopes)
    bad = [w for w in words if not _SCOPE.fullmatch(w)]
    if not words or bad:
        raise InputError(f"scopes must be lowercase words like 'verify admin', got {scopes!r}")
    return words


@guarded
def create_token(
    session: Session, *, name: str, scopes: str | Sequence[str]
) -> tuple[str, ApiToken]:
    """Mint a token and return ``(plaintext, row)``; only its sha256 is stored.

    The plaintext ('errkb_<first scope>_...') is shown once; the prefix lets
    secret scanners and log redaction recognise it.
    """
    words = _scope_words(scopes)
    if session.exec(select(ApiToken.id).where(ApiToken.name == name)).first() is not None:
        session.rollback()
        raise InputError(f"a token named {name!r} exists")
    plaintext = f"{TOKEN_PREFIX}{words[0]}_{secrets.token_urlsafe(32)}"
    row = ApiToken(name=name, token_hash=_token_hash(plaintext), scopes=" ".join(words))
    session.add(row)
    session.flush()
    done(session, [row])
    return plaintext, row


@guarded
def find_token(session: Session, *, plaintext: str) -> ApiToken | None:
    """The live token whose plaintext this is, or None; records when it was last used."""
    digest = _token_hash(plaintext)
    query = select(ApiToken).where(
        ApiToken.token_hash == digest, col(ApiToken.revoked_at).is_(None)
    )
    row = session.exec(query).first()
    if row is None or not hmac.compare_digest(row.token_hash, digest):
        done(session)
        return None
    row.last_used_at = utcnow()
    session.flush()
    done(session, [row])
    return row


@guarded
def revoke_token(session: Session, *, name: str) -> bool:
    """Revoke the token called ``name``; False when there is no live one."""
    stmt = (
        sa.update(ApiToken)
        .where(col(ApiToken.name) == name, col(ApiToken.revoked_at).is_(None))
        .values(revoked_at=utcnow())
    )
    revoked = session.exec(stmt).rowcount == 1
    done(session)
    return revoked


@guarded
def list_tokens(session: Session) -> list[ApiToken]:
    """Every token, revoked ones included, by name (hashes, never plaintexts)."""
    rows = list(session.exec(select(ApiToken).order_by(col(ApiToken.name))))
    done(session, rows)
    return rows
