"""Reproduce: "ModuleNotFoundError: No module named 'llava'" for a package that
lives in the cloned repository itself.

Research repositories ship their code as a top-level package (``llava/``,
``src/``, ``ldm/``, ``library/``) and scripts inside it that import it
absolutely (``from llava.model import ...``). ``python llava/train/train.py``
puts only the *script's* folder (``llava/train``) on sys.path, not the
repository root, so the package is not importable unless the repository was
installed (``pip install -e .``) or its root is on PYTHONPATH. This script
builds such a repository in a temporary folder and runs the training script by
its path from the repository root, with PYTHONPATH cleared.

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
        # BUG: the script is run by its path; only llava/train/ lands on sys.path, not the repository root
        cmd = [sys.executable, os.path.join("llava", "train", "train.py")]
        result = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
