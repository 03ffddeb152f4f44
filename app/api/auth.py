"""Bearer tokens for the write endpoints, scoped ``verify`` or ``admin`` (targets D1-D3).

Only ``Authorization: Bearer <token>`` is accepted. A token in the query
string is refused with 400 before anything else looks at it (and the access
log never records query strings), since URLs end up in proxy logs and shell
histories (ASVS 14.2.1). Tokens are stored as SHA-256 and compared in
constant time by ``store.api_tokens.find_token``. Missing, malformed, unknown
or revoked: 401 with ``WWW-Authenticate: Bearer``; a live token without the
scope: 403. Failures are logged without the token (ASVS 16.3.1, 16.2.5).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.api.deps import ServicesDep
from app.http.errors import HttpError
from app.store.api_tokens import find_token
from app.store.tables import ApiToken

log = logging.getLogger(__name__)

SCOPES = ("verify", "admin")
QUERY_NAMES = ("token", "access_token", "api_key")
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_.~+/=-]{16,256}")
_bearer = HTTPBearer(auto_error=False, description="errkb token: `errkb token create NAME`")


def _unauthorized(reason: str) -> HttpError:
    log.warning("authentication failed: %s", reason)
    challenge = 'Bearer realm="errkb"'
    if reason != "missing":
        challenge += ', error="invalid_token"'
    return HttpError(
        401, "a valid bearer token is required", headers={"WWW-Authenticate": challenge}
    )


def _lookup(engine: Engine, plaintext: str) -> ApiToken | None:
    with Session(engine) as session:
        return find_token(session, plaintext=plaintext)


def require(scope: str) -> Callable[..., Awaitable[ApiToken]]:
    """A dependency that admits a live token holding ``scope``."""

    async def check(
        request: Request,
        services: ServicesDep,
        _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> ApiToken:
        if any(name in request.query_params for name in QUERY_NAMES):
            log.warning("authentication refused: token in the query string")
            raise HttpError(400, "tokens are accepted only in the Authorization header")
        header = request.headers.get("authorization")
        if not header:
            raise _unauthorized("missing")
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not _TOKEN_SHAPE.fullmatch(value.strip()):
            raise _unauthorized("malformed")
        token = await run_in_threadpool(_lookup, services.engine, value.strip())
        if token is None:
            raise _unauthorized("unknown or revoked token")
        if scope not in token.scopes.split():
            log.warning("authorization failed: token %s lacks scope %s", token.name, scope)
            raise HttpError(403, f"this token lacks the '{scope}' scope")
        return token

    return check
