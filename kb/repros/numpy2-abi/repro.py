"""Reproduce: "numpy.dtype size changed, may indicate binary incompatibility".

repro.py runs in the environment of ``repro.requires.packages``: pandas
1.5.3, whose C extensions were compiled against NumPy 1.x, next to NumPy
2.4.6 (nothing in pandas 1.5.3's metadata keeps NumPy 2 out, so a plain
upgrade of numpy produces this pair). NumPy 2 changed the size of its dtype
struct; the first Cython extension pandas imports checks that size and
refuses to load.

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

print(f"numpy {version('numpy')}, pandas {version('pandas')}", flush=True)

import pandas  # noqa: E402  # fails here: pandas/_libs built for NumPy 1.x

print(pandas.DataFrame({"a": [1, 2]}).sum())
