"""``errkb mcp``: the MCP server for coding agents (``app.agents``)."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

from app.cli.common import settings_from


def mcp(
    transport: Annotated[
        str, typer.Option(help="stdio (the agent starts errkb) or streamable-http.")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="Address for streamable-http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port for streamable-http.")] = 8001,
) -> None:
    """Serve errkb's match_log, get_article and search_articles tools over MCP."""
    from app.agents.server import build_server
    from app.service.kb import prepare_valid_kb

    if transport not in ("stdio", "streamable-http"):
        raise typer.BadParameter("stdio or streamable-http", param_hint="--transport")
    settings = settings_from()
    live = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir, self_tests=False)
    base_url = settings.public_url or f"http://{settings.host}:{settings.port}"
    server = build_server(live, base_url=base_url)
    chosen: Literal["stdio", "streamable-http"] = (
        "stdio" if transport == "stdio" else "streamable-http"
    )
    if chosen == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
