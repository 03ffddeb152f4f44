"""schemathesis against the OpenAPI schema, on the ASGI app (targets D8, G4, C10).

Every documented operation gets bounded, derandomized examples (positive and
negative); the answers must conform to the schema (status codes, content
types, bodies), no request may cause a 500, and the write endpoints must
refuse a request whose token was removed (``ignored_auth``). The token holds
both scopes, so the examples reach the handlers. The two data-acceptance
checks are left out: pydantic's lax mode accepts ``false`` for a float, and
the handlers refuse some schema-valid values on purpose (an empty log, an
article id the KB does not have: 422 and 404).

G4 runs every check with 100 examples per operation (marked slow: about a
minute); D8 runs only ``ignored_auth``, on the operations whose schema asks
for a bearer token, so a write endpoint that forgot its dependency fails
on its own.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (
    ignored_auth,
    negative_data_rejection,
    positive_data_acceptance,
)
from sqlmodel import Session

from app.main import create_app
from app.store import api_tokens, migrate
from app.store.engine import make_engine
from tests.api.conftest import settings_for
from tests.kbfactory import write_kb


def _app_and_token() -> tuple[object, str]:
    """A migrated SQLite file and the test KB in a fresh temporary folder.

    Built when the module is collected: schemathesis needs the app to load the
    schema (its pytest fixture loader does not work with this pytest).
    """
    root = Path(tempfile.mkdtemp(prefix="errkb-fuzz-"))
    url = f"sqlite:///{root / 'fuzz.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    with Session(engine) as session:
        token, _ = api_tokens.create_token(session, name="fuzz", scopes="verify admin")
    engine.dispose()
    return create_app(settings_for(url, write_kb(root / "kb"))), token


APP, TOKEN = _app_and_token()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


SECURED = sorted(
    path
    for path, operations in APP.openapi()["paths"].items()  # type: ignore[attr-defined]
    for operation in operations.values()
    if operation.get("security")
)


def test_d8_the_write_endpoints_are_the_secured_operations() -> None:
    assert SECURED == ["/api/v1/admin/reload", "/api/v1/verifications"]


@schema.include(path=SECURED).parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_d8_write_endpoints_refuse_requests_without_their_token(case: schemathesis.Case) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"}, checks=[ignored_auth])


@schema.parametrize()
@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.slow
def test_g4_every_operation_conforms_to_the_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        excluded_checks=[positive_data_acceptance, negative_data_rejection],
    )
