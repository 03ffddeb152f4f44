"""How errkb reads the shapes people paste, beside the unwrapped original (issue 18).

Every must-match example of the KB and every log fixture is pasted again in
each shape of ``SHAPES``: the error line alone wrapped in prose (English,
Chinese), quotes, inline Markdown, a blockquote, a list bullet, a label, a
constructor call, lower-cased, with full-width punctuation, without its
exception class; the whole log in a code fence between prose lines, quoted,
or behind each launcher's prefix; and fragments (the traceback cut before its
exception line). The must-not-match examples and the NO-MATCH fixtures go
through the same shapes: any match of a forbidden article there is a false
match. Each row says top-1 beside its baseline (the whole log for the
whole-log shapes, the error line alone for the line shapes), wrong articles
and abstentions. A wrong article is one that is neither the label nor the
unwrapped form's answer: the error line alone may rightly name the general
article of a message that several share (``app/matching/ambiguity.py``).

    python -m benchmarks.shapes [--kb kb] [--logs tests/data/logs] [--misses]
"""

from __future__ import annotations

import argparse
import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.matching.pipeline import match_text
from app.matching.result import MatchResult
from app.service.kb import LiveKb, prepare_valid_kb
from benchmarks.accuracy import Case, example_cases, fixture_cases
from benchmarks.common import REPO, table
from tests.logfixtures import LOGS


@dataclass(frozen=True)
class Paste:
    """A labelled log and the error line its own match pointed at."""

    case: Case
    lines: tuple[str, ...]
    error_index: int  # 0-based line of the error line in ``lines``
    error_end: int  # 0-based last line of its message (continuation lines)
    error: str  # the first error line, launcher prefixes stripped
    exception: str | None
    frames: bool  # the event is a traceback with frames: a fragment can be cut from it


@dataclass(frozen=True)
class Shape:
    """One way of pasting: ``make`` returns the paste, or None when the shape does not apply."""

    name: str
    group: str  # "line" (baseline: the line alone), "log" (baseline: the log), "fragment"
    make: Callable[[Paste], str | None]
    # abstentions on pastes that keep no evidence (``_generic``, ``_bare``) are counted apart:
    # every fragment, and a message without its class that leaves a quoted key or a bare errno
    apart: bool = False


def _line(template: str) -> Callable[[Paste], str | None]:
    return lambda p: template.format(p.error)


def _per_line(prefix: Callable[[int], str], suffix: str = "") -> Callable[[Paste], str | None]:
    def make(p: Paste) -> str:
        lines = [prefix(i) + line for i, line in enumerate(p.lines)]
        lines[-1] += suffix
        return "\n".join(lines)

    return make


def _message(p: Paste) -> str | None:
    """The message without its exception class; None when nothing would be left."""
    if not p.exception or not p.error.startswith(p.exception + ":"):
        return None
    return p.error[len(p.exception) + 1 :].strip() or None


def _constructor(p: Paste) -> str | None:
    message = _message(p)
    if message is None:
        return None
    quote = "'" if '"' in message else '"'
    return f"raise {p.exception}({quote}{message}{quote})"


def _lowered(p: Paste) -> str | None:
    """The line retyped in lower case; a bare class name (no message of 3 words) is no retyping."""
    message = _message(p) if p.exception else p.error
    if message is None or len(message.split()) < 3:
        return None
    return p.error.lower()


def _fullwidth(p: Paste) -> str | None:
    message = _message(p)
    if message is None or not (", " in message or ": " in message):
        return None
    wide = message.replace(", ", "，").replace(": ", "：")
    return f"{p.exception}: {wide}"


def _misspelt(p: Paste) -> str | None:
    """One letter of the message's longest word doubled: the slip of a retyped message."""
    message = _message(p)
    words = sorted((w for w in (message or "").split() if w.isalpha()), key=len)
    if not words or len(words[-1]) < 6:
        return None
    word = words[-1]
    return p.error.replace(word, word[:3] + word[3] + word[3:], 1)


def _fenced(p: Paste) -> str:
    body = "\n".join(p.lines)
    return (
        "Hi, I ran `torchrun --nproc_per_node 2 train.py` and it crashed:\n\n"
        f"```text\n{body}\n```\n\nAny idea what is wrong? Thanks!"
    )


def _details(p: Paste) -> str:
    body = "\n".join(p.lines)
    return (
        "### Describe the bug\n\nTraining stops after a few steps.\n\n"
        f"<details><summary>Full log</summary>\n\n```\n{body}\n```\n</details>\n"
    )


def _joined(p: Paste) -> str | None:
    """The traceback's lines joined by spaces, as a chat app or a one-line input pastes it."""
    headers = [i for i in range(p.error_index + 1) if "Traceback (most recent" in p.lines[i]]
    if not p.frames or not headers:
        return None
    start, end = headers[-1], p.error_end + 1
    joined = "it fails with " + " ".join(line.strip() for line in p.lines[start:end])
    return "\n".join([*p.lines[:start], joined, *p.lines[end:]])


_FRAME = re.compile(r'^(?P<lead>.*?)File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)$')
_ESC = "\x1b[0;31m{}\x1b[0m"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _jupyter(p: Paste) -> str | None:
    """The traceback as IPython 8 prints it in a notebook, with its colours."""
    if not p.frames or not p.exception:
        return None
    header = f"{_ESC.format(p.exception.rsplit('.', 1)[-1]):<52}Traceback (most recent call last)"
    out: list[str] = []
    source_of: str | None = None
    for line in p.lines:
        frame = _FRAME.match(line)
        if "Traceback (most recent call last):" in line:
            out += ["-" * 75, header]
        elif frame is not None:
            lead, number = frame["lead"], frame["line"]
            where = (
                f"Cell In[3], line {number}"
                if frame["fn"] == "<module>"
                else (f"File {frame['path']}:{number}, in {frame['fn']}(*args, **kwargs)")
            )
            out += ["", lead + where]
            source_of = lead + _ESC.format(f"----> {number}") + " "
        elif source_of is not None and line.strip() and _indent(line) > _indent(source_of):
            out.append(source_of + line.strip())
            source_of = None
        else:
            out.append(line)
    return "\n".join(out)


def _continuation(p: Paste) -> str | None:
    """Only the lines that continue the message: a state-dict list, CUDA's hints."""
    lines = [line for line in p.lines[p.error_index + 1 : p.error_end + 1] if line.strip()]
    return "\n".join(lines) if lines else None


def _cut(p: Paste) -> str | None:
    if not p.frames or p.error_index < 2:
        return None
    return "\n".join(p.lines[: p.error_index])


RAY_REPEATED = " [repeated 6x across cluster]"
SHAPES: tuple[Shape, ...] = (
    # shape 1: the error line does not start the line
    Shape("prose (en)", "line", _line("I get `{}` when I train with 2 GPUs")),
    Shape("prose (zh)", "line", _line("训练时报错：{}")),
    Shape("prose (raised)", "line", _line("raised error: {}")),
    Shape("quotes (ASCII)", "line", _line('the log says "{}" and stops')),
    Shape("quotes (full-width)", "line", _line("日志最后一行是“{}”")),
    Shape("backticks", "line", _line("`{}`")),
    Shape("bold", "line", _line("**{}**")),
    Shape("italic", "line", _line("_{}_")),
    Shape("heading", "line", _line("### {}")),
    Shape("blockquote line", "line", _line("> {}")),
    Shape("list bullet", "line", _line("- {}")),
    Shape("label stderr:", "line", _line("stderr: {}")),
    Shape("label Error:", "line", _line("Error: {}")),
    Shape("label 报错信息：", "line", _line("报错信息：{}")),
    Shape("constructor call", "line", _constructor),
    # shape 2: chat formatting, the message retyped
    Shape("lower-cased", "line", _lowered),
    Shape("full-width punctuation", "line", _fullwidth),
    Shape("misspelt word", "line", _misspelt),
    Shape("no exception class", "line", _message, apart=True),
    Shape("code fence + prose", "log", _fenced),
    Shape("blockquoted log", "log", _per_line(lambda i: "> ")),
    Shape("GitHub <details>", "log", _details),
    Shape("joined into one line", "log", _joined),
    # shape 3: launcher and cluster prefixes
    Shape(
        "Ray worker",
        "log",
        _per_line(lambda i: "(RayTrainWorker pid=4123, ip=10.0.0.5) ", RAY_REPEATED),
    ),
    Shape("docker compose", "log", _per_line(lambda i: "trainer-1  | ")),
    Shape("kubectl --prefix", "log", _per_line(lambda i: "[pod/trainer-0/pytorch] ")),
    Shape("srun --label", "log", _per_line(lambda i: "0: ")),
    Shape("pdsh / DeepSpeed", "log", _per_line(lambda i: "worker-3: ")),
    Shape(
        "GHA timestamps",
        "log",
        _per_line(lambda i: f"2026-11-25T10:{i // 60 % 60:02d}:{i % 60:02d}.{i:07d}Z "),
    ),
    Shape("Jupyter / IPython", "log", _jupyter),
    # shape 4: fragments
    Shape("cut before the exception line", "fragment", _cut),
    Shape("continuation lines alone", "fragment", _continuation),
)


@dataclass
class Row:
    """Counts for one shape."""

    positives: int = 0
    baseline: int = 0  # top-1 of the unwrapped form
    top1: int = 0
    kept: int = 0  # top-1 among those the unwrapped form got right
    wrong: int = 0
    abstained: int = 0
    negatives: int = 0
    false: int = 0
    misses: list[str] = field(default_factory=list)
    # of the abstentions whose unwrapped form was right (``Shape.apart``):
    generic: int = 0  # pastes made only of lines that accompany any CUDA error
    bare: int = 0  # pastes that keep no evidence at all (``_bare``)


def _top(result: MatchResult) -> str | None:
    return result.top.article_id if result.top else None


def paste_of(case: Case, live: LiveKb) -> tuple[Paste, MatchResult] | None:
    """The case with the error line its match (or its root-cause event) points at."""
    result = match_text(case.text, live.index)
    if result.top is not None:
        event = result.events[result.top.event_index]
    elif result.events:
        event = result.events[0]
    else:
        return None
    lines = tuple(case.text.split("\n"))
    error = event.error_text.split("\n", 1)[0].strip()
    if not error:
        return None
    paste = Paste(
        case,
        lines,
        event.error_line_start - 1,
        event.error_line_end - 1,
        error,
        event.exception,
        bool(event.frames),
    )
    return paste, result


def _forbidden(case: Case, result: MatchResult) -> bool:
    if case.negative:
        return result.top is not None
    return case.forbidden in [m.article_id for m in result.matches]


def measure(
    live: LiveKb, cases: Sequence[Case], shapes: Sequence[Shape] = SHAPES
) -> dict[str, Row]:
    rows = {shape.name: Row() for shape in shapes}
    pastes = [found for case in cases if (found := paste_of(case, live)) is not None]
    for paste, original in pastes:
        case = paste.case
        alone = match_text(paste.error, live.index)
        for shape in shapes:
            text = shape.make(paste)
            if text is None:
                continue
            got = match_text(text, live.index)
            _count(rows[shape.name], shape, case, original, alone, got)
            apart = shape.apart or shape.group == "fragment"
            base = original if shape.group != "line" else alone
            if apart and case.expected and got.top is None and _top(base) == case.expected:
                generic = _generic(text)
                rows[shape.name].generic += generic
                rows[shape.name].bare += not generic and _bare(text, live)
    return rows


def _count(
    row: Row, shape: Shape, case: Case, original: MatchResult, alone: MatchResult, got: MatchResult
) -> None:
    if case.expected is None:
        if shape.group == "line" and _forbidden(case, alone):
            return  # the line alone is that article's error: without its log it is no negative
        row.negatives += 1
        row.false += _forbidden(case, got)
        if _forbidden(case, got):
            row.misses.append(f"FALSE {case.name}: {_top(got)}")
        return
    base = _top(alone if shape.group == "line" else original)
    base_right = base == case.expected
    top = _top(got)
    row.positives += 1
    row.baseline += base_right
    row.top1 += top == case.expected
    row.kept += base_right and top == case.expected
    row.abstained += top is None
    # a line without its log may rightly name the general article (ambiguity.py): only an
    # answer that is neither the label nor what the unwrapped form said is wrong
    row.wrong += top is not None and top not in (case.expected, base)
    if top != case.expected and (base_right or shape.group == "fragment"):
        row.misses.append(f"{case.name}: expected {case.expected}, got {top}")


GENERIC = re.compile(
    r"CUDA kernel errors might be asynchronously reported|CUDA_LAUNCH_BLOCKING=1"
    r"|TORCH_USE_CUDA_DSA|Search for `cuda\w+' in https://docs\.nvidia\.com"
)
"""Lines CUDA prints after every kernel error: no article can be told from them alone."""


def _generic(text: str) -> bool:
    """Whether every non-blank line of ``text`` is one of CUDA's generic hint lines."""
    lines = [line for line in text.split("\n") if line.strip()]
    return bool(lines) and all(GENERIC.search(line) for line in lines)


LIBRARY_FRAME = re.compile(r'File "[^"]*(?:site-packages|dist-packages|[/\\]lib[/\\]python\d)')
"""A frame in installed or standard-library code: the part of a traceback that names a library."""


def _bare(text: str, live: LiveKb) -> bool:
    """Whether a fragment keeps no evidence: no KB pattern hits it and no frame is a library's.

    What the generator left is then the user's own code or sentences (a cut
    traceback of ``train.py`` frames only, the user's line read as the
    message's tail): no reader could name the failure from it either.
    """
    hits = live.index.scan(text.encode())
    kinds = {live.index.signatures[sid].kind for sid in hits}
    return not kinds & {"error", "context"} and not LIBRARY_FRAME.search(text)


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "–"


def report(rows: dict[str, Row]) -> str:
    body = [
        [
            name,
            _pct(r.baseline, r.positives),
            _pct(r.top1, r.positives),
            _pct(r.kept, r.baseline),
            str(r.wrong),
            str(r.abstained),
            f"{r.false}/{r.negatives}",
        ]
        for name, r in rows.items()
    ]
    headers = [
        "shape",
        "unwrapped top-1",
        "shape top-1",
        "kept (of unwrapped right)",
        "wrong article",
        "abstained",
        "false matches",
    ]
    return table(headers, body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=REPO / "kb")
    parser.add_argument("--logs", type=Path, default=LOGS)
    parser.add_argument("--misses", action="store_true", help="list every miss and false match")
    parser.add_argument(
        "--shape",
        action="append",
        choices=[shape.name for shape in SHAPES],
        metavar="NAME",
        help="measure only this shape (repeatable), e.g. --shape 'no exception class'",
    )
    args = parser.parse_args(argv)
    live = prepare_valid_kb(args.kb, self_tests=False)
    cases = fixture_cases(args.logs) + example_cases(live)
    chosen = [shape for shape in SHAPES if not args.shape or shape.name in args.shape]
    rows = measure(live, cases, chosen)
    print(f"## Paste shapes, {datetime.date.today().isoformat()}\n")
    print(f"{len(cases)} labelled logs ({sum(c.expected is not None for c in cases)} must-match)\n")
    print(report(rows))
    for name, row in rows.items():
        if row.generic:
            print(f"\n{name}: {row.generic} of the abstentions are CUDA's generic hint lines alone")
        if row.bare:
            print(f"\n{name}: {row.bare} of the abstentions keep no evidence (no KB pattern hits")
            print("them, no library frame)", end="")
            kept = row.baseline - row.generic - row.bare
            print(f"; kept without those and the hint lines: {_pct(row.kept, kept)}")
    if args.misses:
        for name, row in rows.items():
            for miss in row.misses:
                print(f"{name}: {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
