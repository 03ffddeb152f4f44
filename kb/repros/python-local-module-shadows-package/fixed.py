"""Fixed: the training script no longer carries the name of a package it imports.

Renamed from ``wandb.py`` to ``train_wandb.py`` (and no stale ``wandb.pyc`` or
``__pycache__/wandb.*.pyc`` beside it), ``import wandb`` finds the installed
package (the stand-in on PYTHONPATH) and ``wandb.init`` exists.

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
        script = os.path.join(project, "train_wandb.py")  # FIX: a name no installed package uses
        with open(script, "w") as f:
            f.write(SCRIPT)
        env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "site"))
        result = subprocess.run([sys.executable, script], cwd=project, env=env, capture_output=True, text=True, timeout=60)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
