# errkb: the service image. `docker compose up` runs it beside PostgreSQL 15.
# Dependencies come from the committed uv.lock (uv sync --locked), without the dev group.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    PATH=/app/.venv/bin:$PATH \
    ERRKB_HOST=0.0.0.0 \
    ERRKB_PORT=8000 \
    ERRKB_DATABASE_URL=sqlite:////app/var/errkb.db \
    ERRKB_INDEX_DIR=/app/var/index \
    ERRKB_KB_PATH=/app/kb

RUN pip install --no-cache-dir "uv==0.13.9" \
    && groupadd --system --gid 10001 errkb \
    && useradd --system --uid 10001 --gid errkb --home-dir /app --shell /usr/sbin/nologin errkb

WORKDIR /app
COPY pyproject.toml uv.lock README.md ./
COPY clients/python ./clients/python
RUN uv sync --locked --no-dev --no-install-project
COPY app ./app
COPY migrations ./migrations
COPY alembic.ini ./
COPY kb ./kb
# The project is installed editable, so UV_COMPILE_BYTECODE leaves app/ as source, and
# PYTHONDONTWRITEBYTECODE stops Python caching it: without this compile every `errkb match`
# compiled ~100 modules again (0.3-0.5 s of CPU, more than the match; issue 23).
RUN uv sync --locked --no-dev \
    && python -m compileall -q app \
    && mkdir -p /app/var \
    && chown -R errkb:errkb /app/var

USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["errkb", "serve"]
