"""Fixed: remove the stale lock (no build is running), then build.

Same situation as repro.py: a ``lock`` file left in the extension's build
folder by a killed build. Before loading, the script checks that no other
process is building (here: nothing else runs) and deletes the lock file, as the
article's first step does with ``rm``; the extension then compiles and loads.

CPU only; needs ninja and a C++ compiler; compiling takes up to a minute
(launcher: python).
"""

import os
import sys
import tempfile

ROOT = tempfile.mkdtemp(prefix="torch_extensions_")
os.environ["TORCH_EXTENSIONS_DIR"] = ROOT

from torch.utils.cpp_extension import load_inline  # noqa: E402


def main() -> int:
    lock = os.path.join(ROOT, "add_one", "lock")
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    open(lock, "w").close()  # left by a build that was killed
    if os.path.exists(lock):
        os.remove(lock)  # the fix: no build is running, so the lock is stale
    module = load_inline(
        name="add_one",
        cpp_sources="int add_one(int x) { return x + 1; }",
        functions=["add_one"],
        verbose=True,
    )
    assert module.add_one(41) == 42
    print("ok: extension built and loaded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
