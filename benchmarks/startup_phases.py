"""Where one ``errkb match`` process spends its CPU, phase by phase (issue 23).

Each run is a fresh process that does what the quick path does, timing each
step with ``time.process_time``: the imports of the quick path, the KB's
revision (from the memo when it is valid), the snapshot's verdict (its
checksum included), the serialised index's load, the first match (with its
one-time set-up: redaction set, prefix parser, RE2's lazily built DFAs) and
a second match of the same log; in a tree that has one, the redaction
prefilter's load before the first match, as the quick path does it.
Medians over the runs are printed.

    python -m benchmarks.startup_phases [--kb DIR] [--index-dir DIR] [--runs 5] [--tree DIR]

``--tree DIR`` runs another commit's tree (``git archive COMMIT app | tar -x
-C DIR``) with this interpreter, for a side-by-side.

The index and snapshot must exist (run ``errkb match`` once, or
``benchmarks.startup --keep DIR``); a missing or stale one is reported, not
built, since building is not what this measures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.startup import ROOT, child_environment, compile_tree, ten_kb_log

PROBE = r"""
import json, sys, time
T = time.process_time
marks = {}
start = T()
import app.cli.quick
from app.matching.pipeline import MatchOptions, match_text
import app.service.quick_index
from app.matching.index import index_key, load_index
from app.service.revision_memo import memo_revision
from app.service.snapshot import read_verdict
try:  # a tree whose quick path loads the redaction prefilter (issue 23)
    from app.service.redact_prefilter import install_prefilter
except ImportError:
    install_prefilter = None
marks["imports"] = T() - start
from pathlib import Path
kb, index_dir, log = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]).read_bytes()
step = T(); revision = memo_revision(kb, index_dir); marks["revision (memo)"] = T() - step
step = T(); verdict = read_verdict(index_dir, revision); marks["snapshot verdict"] = T() - step
if verdict is None:
    sys.exit("no valid snapshot for this KB revision: run errkb match once first")
step = T()
index = load_index((index_dir / f"{index_key(revision)}.idx").read_bytes(), revision)
marks["index load"] = T() - step
if install_prefilter is not None:
    step = T(); install_prefilter(index_dir); marks["redaction prefilter"] = T() - step
options = MatchOptions(lang="en", top_k=3)
step = T(); match_text(log, index, options); marks["first match"] = T() - step
step = T(); match_text(log, index, options); marks["second match"] = T() - step
marks["whole process so far"] = T()
print(json.dumps(marks))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=ROOT / "kb")
    parser.add_argument("--index-dir", type=Path, default=ROOT / "var" / "index")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the tree to run")
    args = parser.parse_args()
    compile_tree(args.tree, source=False)
    env = {**child_environment(source=False), "PYTHONPATH": str(args.tree)}
    with tempfile.TemporaryDirectory(prefix="errkb-phases-") as scratch:
        log = ten_kb_log(Path(scratch))
        command = [sys.executable, "-c", PROBE, str(args.kb), str(args.index_dir), str(log)]
        runs: list[dict[str, float]] = []
        for _ in range(args.runs):
            done = subprocess.run(command, env=env, cwd=args.tree, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(done.stderr.strip() or f"the probe exited {done.returncode}")
            runs.append(json.loads(done.stdout))
    load = os.getloadavg()[0]
    print(f"CPU seconds per phase, median of {args.runs} fresh processes (load {load:.1f}):")
    for phase in runs[0]:
        values = [run[phase] for run in runs]
        low, high = min(values), max(values)
        print(f"  {phase:24} {statistics.median(values):6.3f} s  ({low:.3f}-{high:.3f})")


if __name__ == "__main__":
    main()
