"""``errkb match`` starts light: no web framework, database layer or Ray (issue 23)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.kbfactory import write_kb

HEAVY = ("fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "ray", "httpx", "jinja2")

PROBE = """
import sys
from app.cli import main
log, kb, report = sys.argv[1:4]
sys.argv = ["errkb", "match", log, "--kb", kb]
try:
    main()
except SystemExit as exc:
    code = exc.code
loaded = sorted(name for name in {heavy!r} if name in sys.modules)
with open(report, "w") as out:
    out.write(f"{{code}} {{','.join(loaded)}}")
"""


def _match_in_a_fresh_process(tmp_path: Path) -> tuple[str, str]:
    kb_root = write_kb(tmp_path / "kb")
    log = tmp_path / "job.log"
    log.write_text("step 1\nSampleError: widget 3 exploded\n")
    report = tmp_path / "report.txt"
    env = {**os.environ, "ERRKB_INDEX_DIR": str(tmp_path / "index")}
    command = [sys.executable, "-c", PROBE.format(heavy=HEAVY), str(log), str(kb_root), str(report)]
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)
    code, _, loaded = report.read_text().partition(" ")
    return code, loaded


def test_match_imports_no_web_database_or_ray(tmp_path: Path) -> None:
    code, loaded = _match_in_a_fresh_process(tmp_path)  # builds the snapshot
    assert code == "0"
    assert loaded == ""
    assert list((tmp_path / "index").glob("*.kb"))
    code, loaded = _match_in_a_fresh_process(tmp_path)  # reads it
    assert (code, loaded) == ("0", "")


# The PostgreSQL dialect is imported by the first PostgreSQL insert, never on SQLite.
SERVE_LATER = (
    "alembic",
    "mako",
    "pygments",
    "jinja2",
    "markdown_it",
    "sqlalchemy.dialects.postgresql",
)


def test_the_server_imports_pages_and_alembic_only_when_it_needs_them() -> None:
    """``errkb serve`` is ready without Alembic (database at head) or the page stack (warm-up)."""
    probe = (
        "import sys\nimport app.main\n"
        "def later():\n"
        f"    return sorted(n for n in {SERVE_LATER!r} if n in sys.modules)\n"
        "before = later()\n"
        "from app.web.pages import warm_pages\nwarm_pages()\n"
        "import json\nprint(json.dumps([before, later()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout) == [[], ["jinja2", "markdown_it"]]


def test_the_server_compiles_the_cjk_patterns_in_the_warm_up_not_at_import() -> None:
    """``re`` spends tens of milliseconds on the CJK classes: not before ``/readyz``."""
    probe = (
        "import app.main\nfrom app.web import cjk\n"
        "before = cjk._patterns.cache_info().currsize\n"
        "from app.web.pages import warm_pages\nwarm_pages()\n"
        "print(before, cjk._patterns.cache_info().currsize)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["0", "1"]


def test_serve_does_not_import_the_job_hooks_http_client() -> None:
    """``errkb report`` and ``run`` are the job hooks; a server starting has no use for them."""
    probe = (
        "import sys\nimport app.cli.launch, app.cli.serving, app.main\n"
        "app.cli.launch.serve_tree()\n"
        "print(sorted(m for m in ('errkb_client.cli', 'errkb_client.send') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
