"""Fixed: use the builtin (or the explicit NumPy type) instead of the removed alias.

Same function as repro.py with ``np.float`` replaced by ``np.float64`` (the
alias always meant Python's ``float``, i.e. float64); ``np.nan`` is used in
place of the NumPy-2-removed ``np.NaN``. The script checks the result.

CPU only, no downloads (launcher: python).
"""

import sys

import numpy as np


def mean_score(scores):
    arr = np.asarray(scores, dtype=np.float64)  # FIX: explicit dtype (or plain float)
    return float(arr.mean()) if arr.size else np.nan  # FIX: np.nan, not np.NaN


def main() -> int:
    value = mean_score([0.5, 0.75, 1.0])
    if value != 0.75:
        print(f"unexpected mean {value}", file=sys.stderr)
        return 1
    print(value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
