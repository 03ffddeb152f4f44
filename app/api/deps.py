"""``Annotated`` dependency aliases for the JSON routes (FastAPI convention, STYLE.md rule 11)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.services import Services


def get_services(request: Request) -> Services:
    """The ``Services`` that ``create_app`` attached to this app."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]
