"""Accuracy of errkb on the labelled logs, beside two baselines computed in the same run.

Corpus: every ``tests/data/logs/*.log`` (verdict inside the file: ``#=MATCH=#
<id>`` on the root-cause line, or ``#=NO-MATCH=#``) and every
``kb/examples/<id>/*.log`` with the verdict of its article's ``examples:``
list (``match``: <id> must rank first; ``no-match``: it must not be <id>).
errkb is ``match_text`` against the repository KB. The baselines answer the
question "is the matcher worth it?": (a) *first regex hit*, the first article
in KB file order with an ``error`` regex anywhere in the log (Python ``re``);
(b) *BM25* over the articles' text with the log's error lines as the query,
abstaining below a threshold tuned on this very corpus (so its figures are
optimistic). The KB examples are the articles' own self-tests: every figure on
them is a training-set figure.

    python -m benchmarks.accuracy [--kb kb] [--logs tests/data/logs] [--details]
"""

from __future__ import annotations

import argparse
import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from app.matching.pipeline import match_text
from app.service.kb import LiveKb, prepare_valid_kb
from benchmarks.bm25 import BM25
from benchmarks.common import REPO, machine, table
from tests.logfixtures import LOGS, read_fixture

MAX_BASELINE_CHARS = 4_000_000  # the regex baseline reads the tail only: Python re, no timeout
_RANK = re.compile(r"^\[(?:rank|default)(\d+)\]:", re.MULTILINE)
_ERROR_LINE = re.compile(
    r"\w+(?:Error|Exception|Interrupt)\b|CUDA error|NCCL (?:WARN|ERROR)|terminate called|"
    r"Killed process|FAILED|Traceback \(most recent call last\)|error:",
)


@dataclass(frozen=True)
class Case:
    """One labelled log."""

    name: str
    text: str
    expected: str | None = None  # must rank first
    forbidden: str | None = None  # its article's must-not-match example
    negative: bool = False  # a NO-MATCH fixture: must match nothing
    line: int | None = None  # the root-cause line: marked (fixtures) or a proxy (examples)
    marked: bool = False  # ``line`` was marked by a person

    @property
    def ranks(self) -> int:
        return len(set(_RANK.findall(self.text)))


@dataclass(frozen=True)
class Prediction:
    """What one matcher said about one log."""

    article: str | None  # top-1; None = abstained
    matched: tuple[str, ...] = ()  # everything it proposed
    lines: tuple[int, int] | None = None  # the error lines it points at


def fixture_cases(folder: Path) -> list[Case]:
    """Logs with the verdict inside (STYLE.md rule 13)."""
    cases = []
    for path in sorted(folder.glob("*.log")):
        fixture = read_fixture(path)
        cases.append(
            Case(
                name=str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
                text=fixture.text,
                expected=fixture.expected,
                negative=fixture.expected is None,
                line=fixture.line,
                marked=fixture.line is not None,
            )
        )
    return cases


def example_cases(live: LiveKb) -> list[Case]:
    """Each article's examples, labelled by its ``examples:`` list."""
    cases = []
    for article_id, loaded in live.kb.articles.items():
        for example in loaded.article.examples:
            path = live.kb.root / "examples" / article_id / example.file
            if not path.is_file():
                continue
            text = path.read_bytes().decode("utf-8", "replace")
            name = f"kb/examples/{article_id}/{example.file}"
            if example.expect == "match":
                line = proxy_line(text, loaded.article.signatures.error)
                cases.append(Case(name, text, expected=article_id, line=line))
            else:
                cases.append(Case(name, text, forbidden=article_id))
    return cases


def proxy_line(text: str, patterns: Sequence[str]) -> int | None:
    """No line is marked in an example: take the first line an error regex of its article hits.

    The root cause is the first failure in time (DESIGN.md, matching step 3),
    so the first line that shows the expected error is where it should point.
    """
    found = [m.start() for p in patterns if (m := _compile(p).search(text))]
    return text.count("\n", 0, min(found)) + 1 if found else None


def predict_errkb(case: Case, live: LiveKb) -> Prediction:
    result = match_text(case.text, live.index)
    if result.top is None:
        return Prediction(None)
    event = result.events[result.top.event_index]
    return Prediction(
        result.top.article_id,
        tuple(m.article_id for m in result.matches),
        (event.error_line_start, event.error_line_end),
    )


class FirstRegexHit:
    """Baseline (a): articles in KB file order; the first with an error regex anywhere wins."""

    def __init__(self, live: LiveKb) -> None:
        self.rules = [
            (article_id, [_compile(p) for p in loaded.article.signatures.error])
            for article_id, loaded in live.kb.articles.items()
        ]

    def __call__(self, case: Case) -> Prediction:
        text = case.text[-MAX_BASELINE_CHARS:]
        offset = case.text.count("\n", 0, len(case.text) - len(text))
        for article_id, patterns in self.rules:
            for pattern in patterns:
                found = pattern.search(text)
                if found:
                    line = offset + text.count("\n", 0, found.start()) + 1
                    return Prediction(article_id, (article_id,), (line, line))
        return Prediction(None)


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    """RE2 syntax as Python ``re`` reads it (the lint keeps signatures in the common subset)."""
    return re.compile(pattern)


def article_text(live: LiveKb, article_id: str) -> str:
    """What BM25 indexes: title, summary, cause and fix in both languages, signature literals."""
    article = live.kb.articles[article_id].article
    parts = [
        f.en + "\n" + f.zh for f in (article.title, article.summary, article.cause, article.fix)
    ]
    literals = [
        re.sub(r"\\[dDwWsSbB]|[\\^$.*+?()\[\]{}|]", " ", p) for p in article.signatures.error
    ]
    literals += [
        re.sub(r"\\[dDwWsSbB]|[\\^$.*+?()\[\]{}|]", " ", p) for p in article.signatures.context
    ]
    return "\n".join(parts + literals)


def error_lines(text: str, limit: int = 200) -> str:
    """The query of the BM25 baseline: the log's error-looking lines (the last 50 lines if none)."""
    lines = [line for line in text.split("\n") if _ERROR_LINE.search(line)]
    return "\n".join(lines[-limit:] or text.split("\n")[-50:])


class Bm25Baseline:
    """Baseline (b): the best BM25 article, if its score exceeds a threshold chosen later."""

    def __init__(self, live: LiveKb) -> None:
        self.index = BM25({a: article_text(live, a) for a in live.kb.articles})

    def __call__(self, case: Case) -> tuple[str | None, float]:
        return self.index.best(error_lines(case.text))


@dataclass
class Tally:
    """The counts behind the accuracy table, for one matcher."""

    positives: int = 0
    top1: int = 0
    abstained: int = 0
    negatives: int = 0
    false_matches: int = 0
    forbidden: int = 0
    violations: int = 0
    multi_marked: int = 0  # multi-rank must-match logs with a marked root-cause line
    first_marked: int = 0  # ... where the prediction points at that line
    multi_proxy: int = 0  # the same with the proxy line (KB examples)
    first_proxy: int = 0

    @property
    def right(self) -> int:
        return self.top1 + self.negatives - self.false_matches + self.forbidden - self.violations

    @property
    def total(self) -> int:
        return self.positives + self.negatives + self.forbidden


def tally(cases: Sequence[Case], predictions: Sequence[Prediction]) -> Tally:
    t = Tally()
    for case, p in zip(cases, predictions, strict=True):
        if case.expected is not None:
            t.positives += 1
            t.top1 += p.article == case.expected
            t.abstained += p.article is None
            if case.ranks >= 2 and case.line is not None:
                hit = (
                    p.article == case.expected and p.lines and p.lines[0] <= case.line <= p.lines[1]
                )
                if case.marked:
                    t.multi_marked += 1
                    t.first_marked += bool(hit)
                else:
                    t.multi_proxy += 1
                    t.first_proxy += bool(hit)
        elif case.negative:
            t.negatives += 1
            t.false_matches += p.article is not None
        else:
            t.forbidden += 1
            t.violations += case.forbidden in p.matched
    return t


def bm25_predictions(
    cases: Sequence[Case], scored: Sequence[tuple[str | None, float]]
) -> tuple[float, list[Prediction]]:
    """Pick the threshold that maximises BM25's own verdicts right (tuned on the test set)."""
    best: tuple[int, float, list[Prediction]] = (-1, 0.0, [])
    for threshold in sorted({0.0, *(score for _, score in scored)}):
        predictions = [
            Prediction(a, (a,)) if a and s > threshold else Prediction(None) for a, s in scored
        ]
        right = tally(cases, predictions).right
        if right > best[0]:
            best = (right, threshold, predictions)
    return best[1], best[2]


def _fraction(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "– (none)"


def metrics_table(tallies: dict[str, Tally]) -> str:
    rows: list[tuple[str, Callable[[Tally], str]]] = [
        ("top-1 accuracy on must-match logs", lambda t: _fraction(t.top1, t.positives)),
        ("abstentions on must-match logs", lambda t: _fraction(t.abstained, t.positives)),
        ("wrong article on must-match logs",
         lambda t: _fraction(t.positives - t.top1 - t.abstained, t.positives)),
        ("false matches on NO-MATCH logs", lambda t: _fraction(t.false_matches, t.negatives)),
        ("must-not-be violations (an article's own no-match examples)",
         lambda t: _fraction(t.violations, t.forbidden)),
        ("root cause first on multi-rank logs (marked line)",
         lambda t: _fraction(t.first_marked, t.multi_marked)),
        ("root cause first on multi-rank KB examples (proxy line)",
         lambda t: _fraction(t.first_proxy, t.multi_proxy)),
        ("all verdicts right", lambda t: _fraction(t.right, t.total)),
    ]  # fmt: skip
    body = [
        [name, *(_cell(name, column, f, t) for column, t in tallies.items())] for name, f in rows
    ]
    return table(["metric", *tallies], body)


def _cell(row: str, column: str, value: Callable[[Tally], str], t: Tally) -> str:
    """The root-cause rows mean nothing for a baseline that points at no line, or at the proxy."""
    if "root cause" in row and column != "errkb":
        if column.startswith("BM25") or "marked" in row:
            return "n/a (no line)" if column.startswith("BM25") else value(t)
        return "n/a (is the proxy)"
    return value(t)


def details_table(cases: Sequence[Case], columns: dict[str, list[Prediction]]) -> str:
    rows = []
    for number, case in enumerate(cases):
        label = case.expected or (f"not {case.forbidden}" if case.forbidden else "NO-MATCH")
        cells = [p[number].article or "–" for p in columns.values()]
        rows.append([f"`{case.name}`", label, str(case.ranks), *cells])
    return table(["log", "label", "ranks", *columns], rows)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=REPO / "kb")
    parser.add_argument("--logs", type=Path, default=LOGS, help="folder of marked *.log fixtures")
    parser.add_argument("--details", action="store_true", help="also print one row per log")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    live = prepare_valid_kb(args.kb, self_tests=False)
    cases = fixture_cases(args.logs) + example_cases(live)
    errkb = [predict_errkb(case, live) for case in cases]
    first = FirstRegexHit(live)
    regex = [first(case) for case in cases]
    bm25 = Bm25Baseline(live)
    threshold, ranked = bm25_predictions(cases, [bm25(case) for case in cases])
    columns = {
        "errkb": errkb,
        "first regex hit": regex,
        f"BM25 (threshold {threshold:.2f})": ranked,
    }
    tallies = {name: tally(cases, predictions) for name, predictions in columns.items()}
    print(header(args, live, cases, threshold))
    print(metrics_table(tallies))
    if args.details:
        print("\n" + details_table(cases, columns))
    return 0


def header(args: argparse.Namespace, live: LiveKb, cases: Sequence[Case], threshold: float) -> str:
    fixtures = sum(1 for c in cases if not c.name.startswith("kb/"))
    multi = sum(1 for c in cases if c.ranks >= 2 and c.expected)
    marked = sum(1 for c in cases if c.ranks >= 2 and c.expected and c.marked)
    return "\n".join(
        [
            f"## Accuracy, {datetime.date.today().isoformat()}",
            "",
            "Command: `python -m benchmarks.accuracy"
            + (" --details" if args.details else "")
            + "` (from the repository root).  ",
            f"Machine: {machine()}.  ",
            f"KB: {len(live.kb.articles)} articles (`{args.kb.name}/`, revision "
            f"{live.revision[:12]}). Corpus: {fixture_count(fixtures)} and "
            f"{len(cases) - fixtures} KB examples; {multi} must-match logs have two or more rank "
            f"prefixes ({marked} with a marked root-cause line; for the others the root-cause line "
            "is taken as the first line an error regex of the expected article matches).  ",
            f"BM25's threshold ({threshold:.2f}) was chosen to maximise its own verdicts right on "
            "this corpus, so its column is optimistic; the KB examples are the articles' own "
            "self-tests, so every column is a training-set figure.",
            "",
        ]
    )


def fixture_count(count: int) -> str:
    return f"{count} marked log fixture{'s' if count != 1 else ''} (`tests/data/logs/`)"


if __name__ == "__main__":
    raise SystemExit(main())
