"""What the service learns, in SQLite or PostgreSQL: tables, engine, migrations, queries.

``tables`` (SQLModel), ``engine`` (make_engine, reader), ``migrate``
(Alembic from code, and the /readyz probe) and ``queries`` (keyword-only, one transaction each).
Callers pass URLs and values in; nothing here reads settings or builds an
engine at import.
"""
