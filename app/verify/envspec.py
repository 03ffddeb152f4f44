"""Print what the CPU environment under test needs: ``python -m app.verify.envspec KB``.

One PEP 508 requirement per line, torch left out (``scripts/repro-env.sh``
pins it). Articles that fail to load are skipped: ``errkb lint`` reports them.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.articles.load import load_kb
from app.verify.plan import cpu_requirements


def main(argv: list[str]) -> None:
    root = Path(argv[1] if len(argv) > 1 else "kb")
    articles = {key: loaded.article for key, loaded in load_kb(root).kb.articles.items()}
    for requirement in cpu_requirements(articles):
        sys.stdout.write(requirement + "\n")


if __name__ == "__main__":
    main(sys.argv)
