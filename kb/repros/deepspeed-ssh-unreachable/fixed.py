"""Fixed: a single-node job launches without a multi-node hostfile.

The message's own advice for a job that runs on one machine: remove the
hostfile. Any hostfile makes the launcher check ssh logins (even one naming
only localhost); without one it warns "Unable to find hostfile, will proceed
with training with local resources only", starts the rank locally, and the
training script runs. (On a real
cluster the fix is the other half of the message: passwordless ssh from the
launching node to every host in the hostfile, see the article.)

CPU only; no network; launcher: python.
"""

import os
import shutil
import subprocess
import sys
import tempfile

TRAIN = "import torch\nprint('rank started')\n"
SSH_STAND_IN = "#!/bin/sh\necho \"ssh: Could not resolve hostname $3: Name or service not known\" >&2\nexit 255\n"


def ssh_on_path(work: str) -> dict[str, str]:
    """The environment for the launcher: the real ssh client, or a stand-in where none is installed."""
    env = dict(os.environ)
    if shutil.which("ssh") is None:
        bin_dir = os.path.join(work, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "ssh"), "w") as stand_in:
            stand_in.write(SSH_STAND_IN)
        os.chmod(os.path.join(bin_dir, "ssh"), 0o755)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


def main() -> int:
    work = tempfile.mkdtemp(prefix="ds-multinode-")
    with open(os.path.join(work, "train.py"), "w") as script:
        script.write(TRAIN)
    # no hostfile: this machine's resources only
    launcher = [sys.executable, "-m", "deepspeed.launcher.runner", "--hostfile", "no-hostfile", "train.py"]
    result = subprocess.run(launcher, cwd=work, env=ssh_on_path(work), stdout=sys.stdout, stderr=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
