"""Reproduce: "AttributeError: module 'numpy' has no attribute 'float'" /
"`np.NaN` was removed in the NumPy 2.0 release".

NumPy 1.20 deprecated the aliases ``np.float``, ``np.int``, ``np.object``,
``np.bool``, ``np.str`` of Python builtins and NumPy 1.24 removed them; NumPy
2.0 removed more names (``np.NaN``, ``np.Inf``, ``np.float_``, ``np.string_``,
``np.unicode_``, ``np.product``, ...). Data-processing and evaluation code
(and older releases of libraries) written before that fails as soon as the
line runs in an environment with a current NumPy.

CPU only, no downloads (launcher: python); needs numpy >= 1.24.
"""

import sys

import numpy as np


def mean_score(scores):
    arr = np.asarray(scores, dtype=np.float)  # BUG: alias removed in NumPy 1.24
    return float(arr.mean())


def main() -> int:
    print(mean_score([0.5, 0.75, 1.0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
