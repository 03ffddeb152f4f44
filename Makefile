# errkb: `make run` serves the KB on http://127.0.0.1:8000, `make test` runs the whole suite.
# Everything installs itself on a fresh machine that has Python 3.11 and make:
# uv goes into .tools/, the project into .venv/ (from uv.lock).

PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: run test check install install-dev schema bless bench soak fuzz repro-env clean help

help:
	@echo "make run     install, migrate the SQLite database, load kb/, serve on 127.0.0.1:8000"
	@echo "make test    install the dev dependencies and run the whole test suite"
	@echo "make check   ruff, mypy (strict), import-linter contracts, errkb lint"
	@echo "make schema  regenerate kb/schema.json from the article model"
	@echo "make bless   rewrite the verdict markers of tests/data/logs from the matcher (review the diff)"
	@echo "make bench   run the matching and HTTP benchmarks (not part of make test)"
	@echo "make soak    10-minute mixed load on SQLite, then on PostgreSQL if ERRKB_TEST_POSTGRES_URL is set"
	@echo "make fuzz    10 minutes of atheris on decode, redact and the match pipeline (FUZZ_SECONDS)"
	@echo "make repro-env  build .venv-repro/<key>/: one environment per CPU repro package set (torch 2.13.0+cpu)"

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

install: $(UV)
	$(UV) sync --locked --no-dev --inexact --python $(PYTHON)

install-dev: $(UV)
	$(UV) sync --locked --all-extras --python $(PYTHON)

run: install
	$(BIN)/errkb db upgrade
	$(BIN)/errkb serve

# The whole suite runs the real-repro module beside the rest (tests/beside.py); a
# PYTEST_ARGS run is plain pytest with those arguments.
test: install-dev
ifeq ($(strip $(PYTEST_ARGS)),)
	$(BIN)/python -m tests.beside
else
	$(BIN)/python -m pytest $(PYTEST_ARGS)
endif

check: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/errkb lint

schema: install
	$(BIN)/errkb schema > kb/schema.json

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache

repro-env: install-dev
	$(BIN)/errkb verify envs --uv $(UV)

bless: install-dev
	$(BIN)/python -m tests.bless

BENCH_ARGS ?= --quick
bench: install-dev
	$(BIN)/python -m benchmarks.throughput $(BENCH_ARGS)
	$(BIN)/python -m benchmarks.accuracy
	$(BIN)/python -m benchmarks.shapes
	$(BIN)/python -m benchmarks.http

SOAK_MINUTES ?= 10
soak: install-dev
	$(BIN)/python -m benchmarks.soak --minutes $(SOAK_MINUTES) --database sqlite
	@if [ -n "$$ERRKB_TEST_POSTGRES_URL" ]; then \
		$(BIN)/python -m benchmarks.soak --minutes $(SOAK_MINUTES) --database postgres; \
	else echo "soak: PostgreSQL skipped (set ERRKB_TEST_POSTGRES_URL)"; fi

FUZZ_SECONDS ?= 600
fuzz: install-dev
	$(BIN)/python -m fuzz.pipeline -max_total_time=$(FUZZ_SECONDS)
