"""Fixed: remove the stale lock (no build is running), then build.

Same situation as repro.py: a ``lock`` file left in the extension's build
folder by a killed build. Before loading, the script checks that no other
process is building (here: nothing else runs) and deletes the lock file, as the
article's first step does with ``rm``; the extension then compiles and loads.

The extension is built with ``load`` from a source file, through the same
``_jit_compile`` and the same lock as repro.py's ``load_inline``, but its
source is a plain CPython module: ``load_inline`` prepends
``torch/extension.h``, whose parse cost about 40 s of CPU per CI run and
shows nothing more about the lock.

CPU only; needs ninja and a C++ compiler (launcher: python).
"""

import os
import sys
import tempfile

ROOT = tempfile.mkdtemp(prefix="torch_extensions_")
os.environ["TORCH_EXTENSIONS_DIR"] = ROOT

from torch.utils.cpp_extension import load  # noqa: E402

SOURCE = """\
#include <Python.h>

static PyObject* add_one(PyObject* self, PyObject* arg) {
  long x = PyLong_AsLong(arg);
  if (x == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLong(x + 1);
}

static PyMethodDef methods[] = {{"add_one", add_one, METH_O, "x + 1"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef add_one_module = {PyModuleDef_HEAD_INIT, "add_one", NULL, -1, methods};

PyMODINIT_FUNC PyInit_add_one(void) { return PyModule_Create(&add_one_module); }
"""


def main() -> int:
    lock = os.path.join(ROOT, "add_one", "lock")
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    open(lock, "w").close()  # left by a build that was killed
    if os.path.exists(lock):
        os.remove(lock)  # the fix: no build is running, so the lock is stale
    source = os.path.join(tempfile.mkdtemp(prefix="add_one_src_"), "add_one.cpp")
    with open(source, "w") as f:
        f.write(SOURCE)
    module = load(name="add_one", sources=[source], verbose=True)
    assert module.add_one(41) == 42
    print("ok: extension built and loaded", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
