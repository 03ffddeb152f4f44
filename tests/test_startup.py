"""``errkb match`` starts light: no web framework, database layer or Ray (issue 23)."""

from __future__ import annotations

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
