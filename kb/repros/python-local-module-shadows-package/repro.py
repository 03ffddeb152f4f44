"""Reproduce: "partially initialized module 'wandb' has no attribute 'init'
(most likely due to a circular import)" -- the training script is itself named
like the package it imports.

Python puts the script's own folder first on sys.path. A script saved as
``wandb.py`` that says ``import wandb`` therefore imports *itself* a second time
(as the module ``wandb``, the first run being ``__main__``); while that copy is
still executing its first line, ``wandb.init`` does not exist yet. A tiny
stand-in package plays the installed wandb (``site/wandb/__init__.py`` on
PYTHONPATH), so no network and no wandb install are needed.

CPU only, no downloads (launcher: python).
"""

import os
import subprocess
import sys
import tempfile

INSTALLED_PACKAGE = 'def init(**kwargs):\n    print("wandb.init", kwargs)\n'
SCRIPT = 'import wandb\n\nrun = wandb.init(project="sft-demo")\nprint("training starts")\n'


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        site = os.path.join(tmp, "site", "wandb")
        os.makedirs(site)
        with open(os.path.join(site, "__init__.py"), "w") as f:
            f.write(INSTALLED_PACKAGE)
        project = os.path.join(tmp, "project")
        os.makedirs(project)
        script = os.path.join(project, "wandb.py")  # BUG: the script is named like the package it imports
        with open(script, "w") as f:
            f.write(SCRIPT)
        env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "site"))
        result = subprocess.run([sys.executable, script], cwd=project, env=env, capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
