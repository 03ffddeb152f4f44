"""What the service learns, in SQLite or PostgreSQL: tables, engine, migrations, queries.

``tables`` (SQLModel), ``engine`` (make_engine, reader), ``migrate``
(Alembic from code, and the /readyz probe); the queries, keyword-only and one
transaction each (``transaction``), split by their callers: ``match_events``
(the recorder, feedback, the unmatched list), ``verifications`` (the
verifier's runs), ``api_tokens`` (auth and ``errkb token``), ``stats``
(article pages and metrics), ``authoring`` (drafts, dry runs, fixtures),
``environments``, ``backup``. Callers pass URLs and values in; nothing here
reads settings or builds an engine at import.
"""
