"""How much of a field sample of training failures the KB answers (docs/coverage.md).

The sample is ``benchmarks/coverage_sample.tsv``: one failure a row, three
tab-separated fields: the short error message as a user would paste it (one
line, never a user's full text), the article that answers it (``-`` when no
article does or could; ``a|b`` when either is right) and the failure class.
Each message goes through ``match_text`` against the KB, alone, as a paste.

    python -m benchmarks.coverage [--kb kb] [--sample FILE] [--details]

Verdicts: *right* (the top article is one of the expected ones), *wrong* (an
article matched, but not an expected one), *none* (nothing matched). The
sample's coverage is the share of rows whose expected article exists in the
KB; its answer rate is right / rows.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from app.matching.pipeline import match_text
from app.service.kb import LiveKb, prepare_valid_kb
from benchmarks.common import REPO, table

SAMPLE = REPO / "benchmarks" / "coverage_sample.tsv"


@dataclass(frozen=True)
class Row:
    """One sampled failure."""

    message: str
    expected: tuple[str, ...]  # empty: no article answers it
    failure_class: str


def read_sample(path: Path) -> list[Row]:
    """The rows of the sample file; blank lines and ``#`` comments skipped."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"{path}:{number}: expected 3 tab-separated fields, got {len(fields)}")
        message, expected, failure_class = fields
        wanted = () if expected == "-" else tuple(expected.split("|"))
        rows.append(Row(message, wanted, failure_class))
    return rows


def verdict(row: Row, live: LiveKb) -> tuple[str, str | None]:
    """``right``/``wrong``/``none`` and the top article."""
    result = match_text(row.message + "\n", live.index)
    top = result.matches[0].article_id if result.matches else None
    if top is None:
        return "none", None
    return ("right" if top in row.expected else "wrong"), top


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=REPO / "kb")
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    parser.add_argument("--details", action="store_true", help="print every row's verdict")
    args = parser.parse_args()
    live = prepare_valid_kb(args.kb, self_tests=False)
    ids = set(live.kb.articles)
    rows = read_sample(args.sample)
    counts: Counter[str] = Counter()
    per_class: dict[str, Counter[str]] = {}
    covered = 0
    details = []
    for row in rows:
        said, top = verdict(row, live)
        counts[said] += 1
        per_class.setdefault(row.failure_class, Counter())[said] += 1
        covered += any(article in ids for article in row.expected)
        details.append([said, top or "-", "|".join(row.expected) or "-", row.message[:90]])
    total = len(rows)
    print(f"KB: {len(ids)} articles; sample: {total} failures")
    print(f"expected article in the KB: {covered}/{total} ({covered / total:.0%})")
    for name in ("right", "wrong", "none"):
        print(f"{name}: {counts[name]} ({counts[name] / total:.0%})")
    if args.details:
        print(table(["verdict", "top", "expected", "message"], details))
        ranked = sorted(per_class.items(), key=lambda item: -sum(item[1].values()))
        print(
            table(
                ["class", "rows", "right", "wrong", "none"],
                [
                    [name, str(sum(c.values())), str(c["right"]), str(c["wrong"]), str(c["none"])]
                    for name, c in ranked
                ],
            )
        )


if __name__ == "__main__":
    main()
