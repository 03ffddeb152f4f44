"""``errkb new``: the files of a new draft article, in both languages, ready to fill in.

From nothing, a skeleton whose every gap says ``TODO(errkb)``. From an
unmatched cluster, the exception, a masked signature regex and the fuzzy
signature come from the cluster's own redacted samples, and the samples
become the draft's must-match examples: the draft proves on day one that it
recognises what users hit. The samples were redacted when they were stored,
by the rules of that day; they are redacted again here with today's, so a
secret an older rule set missed never reaches ``kb/`` (git). The draft is
``status: draft`` (not served) and ``errkb lint`` refuses to call it active
while a ``TODO(errkb)`` is left.

Pure: returns {relative path: text}; the CLI writes the files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from app.articles.lint import PLACEHOLDER
from app.authoring.signature import first_line, message_regex, short_exception
from app.matching.redact import redact


@dataclass(frozen=True)
class Seed:
    """What an unmatched cluster tells a new article: its error and redacted samples."""

    fingerprint: str
    exception: str | None
    message: str
    samples: Sequence[str] = field(default_factory=tuple)
    count: int = 1


def suggest_id(seed: Seed) -> str:
    """``valueerror-flux-capacitor-out``: a starting id from the error's first words."""
    words = re.findall(
        r"[a-z][a-z0-9]+", f"{seed.exception or ''} {first_line(seed.message)}".lower()
    )
    kept = [w for w in dict.fromkeys(words) if w not in _FILLER][:4]
    return "-".join(kept) or "new-article"


_FILLER = frozenset({"the", "a", "an", "of", "to", "in", "is", "at", "and", "or", "for", "error"})


def _q(text: str) -> str:
    """A YAML scalar for any text: JSON's double-quoted strings are valid YAML."""
    return json.dumps(text, ensure_ascii=False)


def _todo(en: str, zh: str) -> str:
    return f"  en: {_q(f'{PLACEHOLDER}: {en}')}\n  zh: {_q(f'{PLACEHOLDER}: {zh}')}\n"


def scaffold(article_id: str, seed: Seed | None = None, *, today: str = "") -> dict[str, str]:
    """The draft's files: article YAML, example logs, repro.py and fixed.py."""
    seed = _redacted(seed) if seed else None
    samples = [s for s in (seed.samples if seed else ()) if s.strip()]
    examples = {f"sample-{n}.log": text for n, text in enumerate(samples, start=1)}
    if not examples:
        examples = {"sample-1.log": f"{PLACEHOLDER}: paste a real log of this failure here\n"}
    files = {f"articles/{article_id}.yaml": _article_yaml(article_id, seed, examples, today)}
    for name, text in examples.items():
        files[f"examples/{article_id}/{name}"] = text if text.endswith("\n") else text + "\n"
    files[f"repros/{article_id}/repro.py"] = _script(article_id, fixed=False)
    files[f"repros/{article_id}/fixed.py"] = _script(article_id, fixed=True)
    return {str(PurePosixPath(path)): text for path, text in files.items()}


def _redacted(seed: Seed) -> Seed:
    """The seed with today's redaction applied again to everything that is written out."""
    return replace(
        seed,
        message=redact(seed.message).text,
        samples=tuple(redact(sample).text for sample in seed.samples),
    )


def _article_yaml(article_id: str, seed: Seed | None, examples: dict[str, str], today: str) -> str:
    origin = "by hand"
    if seed is not None:
        origin = f"from unmatched cluster {seed.fingerprint[:12]} (seen {seed.count} times)"
    lines = [
        f"# Draft written by `errkb new` {('on ' + today + ' ') if today else ''}{origin}.",
        f"# Fill in every {PLACEHOLDER}, check the signatures, then set status: active.",
        f"id: {article_id}",
        "status: draft",
        "title:\n" + _todo("what fails, in a few words", "用几个词说明出了什么错").rstrip(),
        "summary:\n" + _todo("one sentence: what happened", "一句话说明发生了什么").rstrip(),
        "libraries: [torch]",
        "tags: []",
        "# hardware | cluster | environment | framework | user-code: who fixes it",
        "layer: user-code",
        "signatures:",
        *_signature_lines(seed),
        "cause:\n" + _todo("why it happens (Markdown)", "为什么会发生（Markdown）").rstrip(),
        "fix:\n" + _todo("1. what to do (Markdown, code blocks)", "1. 怎么修（Markdown）").rstrip(),
        "references: []",
        "repro:",
        "  requires: {gpus: 0, processes: 1, packages: []}",
        "  launcher: python",
        "  timeout_s: 120",
        "examples:",
        *[f"  - {{file: {name}, expect: match, note: {_q(_note(seed))}}}" for name in examples],
    ]
    return "\n".join(lines) + "\n"


def _signature_lines(seed: Seed | None) -> list[str]:
    if seed is None or not first_line(seed.message):
        return ["  error:", f"    - {_q(PLACEHOLDER + ': a regex of the error line')}"]
    exception = seed.exception or ""
    lines = ["  error:", f"    - {_q(message_regex(seed.exception, seed.message))}"]
    if exception:
        lines += [
            "  traceback:",
            f"    exception: {_q(short_exception(exception))}",
            f"    message: {_q(first_line(seed.message))}",
        ]
    return lines


def _note(seed: Seed | None) -> str:
    if seed is None:
        return f"{PLACEHOLDER}: where this log comes from"
    return f"redacted sample of unmatched cluster {seed.fingerprint[:12]}"


def _script(article_id: str, *, fixed: bool) -> str:
    what = (
        "the same program with the article's fix applied; exits 0"
        if fixed
        else ("triggers the failure the article describes")
    )
    return (
        f'"""{article_id}: {what}.\n\n'
        "Small and deterministic: no network, no downloads (build tiny models in code);\n"
        'CPU when the failure allows it. See docs/verification.md."""\n\n'
        f'raise NotImplementedError("{PLACEHOLDER}: write this script")\n'
    )
