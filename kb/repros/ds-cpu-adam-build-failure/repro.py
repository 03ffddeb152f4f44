"""Reproduce: DeepSpeedCPUAdam's JIT build of ``cpu_adam`` fails on a host
without a C++ compiler, "RuntimeError: Error building extension 'cpu_adam'".

A plain ``pip install deepspeed`` ships the ops as sources; the first
``DeepSpeedCPUAdam`` (any config that offloads the optimizer to the CPU)
builds ``cpu_adam`` with ninja and the host compiler (``$CXX``, default
``c++``). Slim container images (``python:3.x-slim``) have ninja from pip but
no compiler: ninja's compile step fails with ``c++: not found``, prints
``FAILED:`` and ``ninja: build stopped: subcommand failed``, and torch raises
the error; ``DeepSpeedCPUAdam.__del__`` adds its ``ds_opt_adam``
AttributeError. Here such a host is simulated by dropping every ``PATH``
folder that holds ``c++`` (the environment's own ``bin``, with python and
ninja, stays). The build goes to a fresh ``TORCH_EXTENSIONS_DIR`` so that no
earlier build is reused.

CPU only; DeepSpeed's CPU accelerator (launcher: python).
"""

import os
import sys
import tempfile
from pathlib import Path


def hide_compiler() -> None:
    """A host without a C++ compiler: no ``PATH`` folder holds ``c++``."""
    os.environ.pop("CXX", None)
    folders = os.environ.get("PATH", "").split(os.pathsep)
    os.environ["PATH"] = os.pathsep.join(f for f in folders if f and not Path(f, "c++").exists())


def main() -> int:
    os.environ["TORCH_EXTENSIONS_DIR"] = tempfile.mkdtemp(prefix="torch_extensions_")
    hide_compiler()

    import torch
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    model = torch.nn.Linear(4, 2)
    optimizer = DeepSpeedCPUAdam(model.parameters(), lr=1e-3)  # builds cpu_adam: fails here
    print("built", type(optimizer).__name__, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
