"""Deterministic synthetic KBs and logs for the benchmarks (performance.md, section 1).

``synthetic_kb(n)`` returns ``n`` ``Article`` objects: the ten real-world-shaped
articles of ``vocab.REAL`` first, then generated ones in the research note's
signature shapes, so every KB is a prefix (superset) of the next. Each
generated article has 1-3 error and 0-3 context regexes and a traceback
signature. The research note's 1 % of literal-free signatures is left out on
purpose: ``check_pattern`` (a literal of 4+ characters) rejects them, so no KB
can contain one. ``ensure_log(size)`` writes a log of that many bytes into
``benchmarks/.cache/`` once and reuses it.

``python -m benchmarks.synth --check`` lints every pattern of the largest KB
and checks that the logs hit exactly the expected articles.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
from collections.abc import Callable, Sequence
from functools import cache

from app.articles.model import Article
from benchmarks.synth_logs import LOG_SIZES, ensure_log
from benchmarks.vocab import (
    EXCEPTIONS,
    FUNCTIONS,
    GENERIC_CONTEXT,
    LIBRARIES,
    PHRASES,
    REAL,
    SYLLABLES,
    RealSignature,
)

__all__ = ["KB_SIZES", "LOG_SIZES", "ensure_log", "kb_revision", "synthetic_kb"]

KB_SIZES = (10, 100, 1_000, 10_000)
# "real" in this variable: the KBs are real_shaped.py's (today's articles, then clones
# with their own words) instead of the generated ones; probes inherit it (issue 23).
KB_KIND_VARIABLE = "BENCH_KB"
SEED = 20250601
GENERATOR_VERSION = "synth-1"  # bump when the generator changes: cached indexes are keyed by it
_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\])")


def escape(text: str) -> str:
    """Escape only what RE2 and Hyperscan treat as special (``re.escape`` also escapes spaces)."""
    return _SPECIAL.sub(r"\\\1", text)


class Words:
    """The random choices one generated article is made of."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.token = "".join(rng.choice(SYLLABLES) for _ in range(3)) + str(rng.randrange(1000))
        self.exception = (
            rng.choice(EXCEPTIONS[:6]) if rng.random() < 0.7 else rng.choice(EXCEPTIONS)
        )
        self.phrase = rng.choice(PHRASES)
        self.library = rng.choice(LIBRARIES)

    def other_phrase(self) -> str:
        return self.rng.choice(PHRASES)

    def exceptions(self, k: int) -> list[str]:
        return self.rng.sample(EXCEPTIONS, k)


def _literal_with_class(w: Words) -> str:
    """45 %: an escaped message with one class (``\\d+``, ``[\\w.]{1,80}``)."""
    e, p, t = escape(w.exception), escape(w.phrase), w.token
    return w.rng.choice(
        (
            rf"{e}: {p} in {t} \(got \d+\)",
            rf"{p} for {t}\.[\w.]{{1,80}}",
            rf"{t}: {p} at step \d+",
            rf"{e}: {p} \(module {t}, rank \d+\)",
        )
    )


def _shape_classes(w: Words) -> str:
    """15 %: literals around shape classes such as ``torch\\.Size\\(\\[\\d+(?:, \\d+)*\\]\\)``."""
    p, t = escape(w.phrase), w.token
    return w.rng.choice(
        (
            rf"{p} for {t}\.weight: copying a param with shape torch\.Size\(\[\d+(?:, \d+)*\]\)",
            rf"{t} expected shape \(\d+(?:, \d+)*\) but got \(\d+(?:, \d+)*\)",
            rf"{t} got dtype torch\.(?:float16|bfloat16|float32) on cuda:\d+",
        )
    )


def _alternation(w: Words) -> str:
    """15 %: alternations of exception types and of phrases."""
    types = "|".join(escape(e) for e in w.exceptions(3))
    phrases = f"{escape(w.phrase)}|{escape(w.other_phrase())}"
    return rf"(?:{types}): (?:{phrases}) in {w.token}"


def _leading_class(w: Words) -> str:
    """10 %: a leading class and a wildcard before the literal."""
    return rf"\w+(?:Error|Exception): .*{escape(w.phrase)} in {w.token}"


def _collective(w: Words) -> str:
    """8 %: a collective-library warning with a bounded gap."""
    return rf"(?:NCCL|Gloo|MPI|UCC) (?:WARN|ERROR) .{{0,200}}{w.token} {escape(w.phrase)}"


def _rank_prefixed(w: Words) -> str:
    """5 %: a rank prefix, a wildcard, then the message."""
    return rf"\[rank\d+\]: .*{w.token} {escape(w.phrase)}"


def _case_insensitive(w: Words) -> str:
    """1 %: a scoped case-insensitive group."""
    return rf"(?i:{escape(w.phrase)} in {w.token})"


# (weight, shape) in the research note's proportions, without its literal-free 1 %.
SHAPES: tuple[tuple[float, Callable[[Words], str]], ...] = (
    (45, _literal_with_class),
    (15, _shape_classes),
    (15, _alternation),
    (10, _leading_class),
    (8, _collective),
    (5, _rank_prefixed),
    (1, _case_insensitive),
)


def _error_patterns(w: Words) -> list[str]:
    count = w.rng.choices((1, 2, 3), weights=(60, 30, 10))[0]
    shapes = w.rng.choices([s for _, s in SHAPES], weights=[wt for wt, _ in SHAPES], k=count)
    return list(dict.fromkeys(shape(w) for shape in shapes))


def _context_patterns(w: Words) -> list[str]:
    count = w.rng.choices((0, 1, 2, 3), weights=(30, 30, 25, 15))[0]
    found = []
    for _ in range(count):
        if w.rng.random() < 0.15:
            found.append(w.rng.choice(GENERIC_CONTEXT))
        elif w.rng.random() < 0.5:
            found.append(rf"{w.library}/{w.token}\.py.{{0,80}}in {w.rng.choice(FUNCTIONS)}")
        else:
            found.append(rf"{w.token}_(?:{'|'.join(w.rng.sample(FUNCTIONS, 2))})")
    return list(dict.fromkeys(found))


def generated_article(rng: random.Random, number: int) -> Article:
    """One generated article; its identifier token appears in none of the logs."""
    w = Words(rng)
    message = f"{w.phrase} in {w.token} (got {rng.randrange(2, 64)})"
    frames = [f"{w.library}/{w.token}.py:{rng.choice(FUNCTIONS)}"]
    frames.insert(0, rng.choice(("torch/nn/modules/module.py:_call_impl", "train.py:main")))
    return _article(
        f"synth-{number:05d}-{w.token}",
        f"{w.exception}: {w.phrase} in {w.token}",
        [w.library],
        {"error": _error_patterns(w), "context": _context_patterns(w)},
        {"exception": w.exception, "message": message, "frames": frames},
    )


def real_article(seed: RealSignature) -> Article:
    """One of the ten hand-written articles."""
    return _article(
        seed.id,
        seed.title,
        ["torch"],
        {"error": list(seed.error), "context": list(seed.context)},
        {"exception": seed.exception, "message": seed.message, "frames": list(seed.frames)},
    )


def _article(
    article_id: str,
    title: str,
    libraries: list[str],
    patterns: dict[str, list[str]],
    traceback: dict[str, object],
) -> Article:
    text = {"en": f"{title}.", "zh": f"{title}。"}
    return Article.model_validate(
        {
            "id": article_id,
            "title": {"en": title, "zh": f"{title}（中文）"},
            "summary": text,
            "libraries": libraries,
            "layer": "framework",
            "signatures": {**patterns, "traceback": traceback},
            "cause": text,
            "fix": text,
        }
    )


@cache
def _all_articles(limit: int) -> tuple[Article, ...]:
    rng = random.Random(SEED)
    articles = [real_article(seed) for seed in REAL]
    while len(articles) < limit:
        articles.append(generated_article(rng, len(articles)))
    return tuple(articles)


def kb_kind() -> str:
    return "real" if os.environ.get(KB_KIND_VARIABLE) == "real" else "synth"


def synthetic_kb(n: int) -> list[Article]:
    """The first ``n`` articles (n >= 10): the ten real ones, then generated ones.

    With ``BENCH_KB=real``: ``n`` real-shaped articles instead.
    """
    if kb_kind() == "real":
        from benchmarks.real_shaped import real_shaped_articles

        return real_shaped_articles(n)
    if n < len(REAL):
        raise ValueError(f"a synthetic KB has at least {len(REAL)} articles")
    return list(_all_articles(n))  # the generator's stream is the same whatever n


def kb_revision(n: int) -> str:
    """The revision a synthetic KB's index is keyed by (N and the generator's version)."""
    kind = kb_kind()
    real = "/real" if kind == "real" else ""  # the synthetic KBs keep their cached indexes
    digest = hashlib.sha256(f"{GENERATOR_VERSION}/{SEED}/{n}{real}".encode()).hexdigest()
    return f"{kind}-n{n}-{digest}"


def patterns_of(articles: Sequence[Article]) -> list[str]:
    return [p for a in articles for _, _, p in a.signatures.all_patterns()]


def _check(n: int, sizes: Sequence[str]) -> int:
    """Lint every pattern of the N-article KB and check which articles each log hits."""
    from benchmarks.synth_check import check_kb, check_logs

    articles = synthetic_kb(n)
    failures = check_kb(articles)
    failures += check_logs(articles, [ensure_log(LOG_SIZES[s]) for s in sizes])
    for failure in failures:
        print(failure)
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="*", default=list(LOG_SIZES), choices=list(LOG_SIZES))
    parser.add_argument("--check", action="store_true", help="lint the KB, check the log hits")
    parser.add_argument("-n", type=int, default=max(KB_SIZES), help="KB size for --check")
    args = parser.parse_args(argv)
    for size in args.sizes:
        print(ensure_log(LOG_SIZES[size]))
    return _check(args.n, args.sizes) if args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
