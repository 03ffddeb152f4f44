"""Fixed: the repository's package is importable because the repository root
is on sys.path.

Run from the repository root as a module (``python -m llava.train.train``),
which puts the current folder on sys.path; ``PYTHONPATH=.`` or
``pip install -e .`` (where the repository has packaging metadata) do the same.

CPU only, no downloads (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

FILES = {
    "llava/__init__.py": "",
    "llava/model.py": "def build():\n    return 'model'\n",
    "llava/train/__init__.py": "",
    "llava/train/train.py": "from llava.model import build\n\nprint('built', build())\n",
}


def make_repo(root: str) -> None:
    for rel, text in FILES.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def main() -> int:
    with tempfile.TemporaryDirectory() as repo:
        make_repo(repo)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        # FIX: run it as a module from the repository root, which puts the root on sys.path
        cmd = [sys.executable, "-m", "llava.train.train"]
        result = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
