"""Reproduce: "RuntimeError: Using hostfile at hostfile but host=node-a.invalid was
not reachable via ssh. If you are running with a single node please remove
hostfile or setup passwordless ssh." (after "subprocess.CalledProcessError:
Command '['ssh', '-o', 'PasswordAuthentication=no', ...]' returned non-zero exit
status 255.").

The ``deepspeed`` launcher reads the hostfile (here two nodes with one slot
each) and, before starting anything, checks that it can log in to the first
host with ssh and no password (``ssh -o PasswordAuthentication=no <host>
hostname``). The job starts on a machine that cannot: the host name does not
resolve (``.invalid``), exactly as when keys are not set up, the host is not in
known_hosts, the name is wrong or port 22 is closed. The check fails before any
rank runs.

Where no ssh client is installed, a stand-in ``ssh`` on PATH answers the way
the real client does for a name that does not resolve (exit status 255).

CPU only; no network needed (the name never resolves); launcher: python (the
script runs the deepspeed launcher itself, as a user would from a shell).
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
    with open(os.path.join(work, "hostfile"), "w") as hostfile:  # BUG: hosts this machine cannot ssh into
        hostfile.write("node-a.invalid slots=1\nnode-b.invalid slots=1\n")
    launcher = [sys.executable, "-m", "deepspeed.launcher.runner", "--hostfile", "hostfile", "train.py"]
    result = subprocess.run(launcher, cwd=work, env=ssh_on_path(work), stdout=sys.stdout, stderr=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
