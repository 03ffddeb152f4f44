"""errkb for coding agents: an MCP server (``errkb mcp``) over the same KB and matcher.

An agent that watches a training run fail asks errkb the way a person would:
``match_log`` (the JSON answer of ``POST /api/v1/match``, computed in
process and not stored), ``get_article`` (one article in the asked language)
and ``search_articles``. Door: :func:`app.agents.server.build_server`.
"""
