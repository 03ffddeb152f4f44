"""Fixed: a pandas built for NumPy 2 (the article's fix 2), NumPy left at 2.4.6.

fixed.py runs in the environment of ``repro.fixed_requires.packages``: the
same NumPy 2.4.6 with pandas 3.1.1, whose wheels are compiled against NumPy
2 (pandas supports NumPy 2 from 2.2.2). The import that failed now works and
a small frame computes.

CPU only, one process (launcher: python).
"""

from importlib.metadata import version

print(f"numpy {version('numpy')}, pandas {version('pandas')}", flush=True)

import pandas  # noqa: E402

total = pandas.DataFrame({"a": [1, 2]})["a"].sum()
assert total == 3, total
print(f"pandas {pandas.__version__} imports and computes next to NumPy 2: sum {total}")
