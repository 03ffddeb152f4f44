"""``/docs``: the API reference as one server-rendered page, with no CDN and no script.

FastAPI's Swagger UI and ReDoc pages load their JavaScript and CSS from
``cdn.jsdelivr.net``: they break in an air-gapped cluster and under the CSP
of target C14, and neither fastapi nor starlette ships the assets (target
C15). This page is rendered from the same OpenAPI document
(``/openapi.json``): every operation with its parameters, body types and
answers; its one stylesheet is served from here. ``ERRKB_DOCS=false``
removes both pages.
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, Response

router = APIRouter(include_in_schema=False)

CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;padding:0 .2rem}
h3{margin-bottom:.2rem}table{border-collapse:collapse}td,th{padding:.1rem .6rem;text-align:left}
.method{font-weight:bold;text-transform:uppercase}"""


def _operation(method: str, path: str, op: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
        f"<td>{'required' if p.get('required') else ''}</td>"
        f"<td>{escape(str(p.get('description', '')))}</td></tr>"
        for p in op.get("parameters", [])
    )
    body = op.get("requestBody", {}).get("content", {})
    answers = ", ".join(escape(str(code)) for code in op.get("responses", {}))
    parts = [
        f'<h3><span class="method">{escape(method)}</span> <code>{escape(path)}</code></h3>',
        f"<p>{escape(op.get('summary', ''))}</p>",
        f"<p>{escape(op.get('description', ''))}</p>" if op.get("description") else "",
        f"<table>{rows}</table>" if rows else "",
        f"<p>Body: {', '.join(f'<code>{escape(t)}</code>' for t in body)}</p>" if body else "",
        f"<p>Answers: {answers}</p>",
        "<p>Needs <code>Authorization: Bearer</code></p>" if op.get("security") else "",
    ]
    return "\n".join(part for part in parts if part)


def render(schema: dict[str, Any]) -> str:
    """The whole page; every value from the schema is escaped."""
    info = schema.get("info", {})
    sections = [
        _operation(method, path, op)
        for path, item in schema.get("paths", {}).items()
        for method, op in item.items()
    ]
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(info.get('title', 'API'))} API</title>"
        '<link rel="stylesheet" href="/docs/docs.css"></head><body>'
        f"<h1>{escape(info.get('title', 'API'))} {escape(info.get('version', ''))}</h1>"
        f"<p>{escape(info.get('summary', ''))}</p>"
        '<p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>'
        + "\n".join(sections)
        + "</body></html>"
    )


@router.get("/docs")
async def docs(request: Request) -> HTMLResponse:
    return HTMLResponse(render(request.app.openapi()))


@router.get("/docs/docs.css")
async def docs_css() -> Response:
    return Response(CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})
