"""Real-shaped KBs of any size: today's articles, then clones with their own words (issue 23).

The synthetic KB (``synth.py``) draws signatures from a vocabulary in the
research note's shapes; this one takes the shapes of the articles in ``kb/``
as they are (their classes, alternations, anchors, flags, traceback
signatures) and gives each clone its own literals: every word of five or more
letters outside escapes, classes and group headers gets a suffix of letters
from the clone's number (``memory`` becomes ``memoryqbd``). So N articles mean
N articles' distinct literals, as a grown KB would have, not N copies of the
same 146 that Hyperscan would share. A clone's example logs get the same
words, so the KB lints clean; they are not meant to pass the self-tests.

    real_shaped_kb(source, target, n)   # files, for whole-process benchmarks
    real_shaped_articles(n)             # Article objects, for the in-process ones
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from app.articles.load import load_kb
from app.articles.model import Article
from app.articles.patterns import MAX_PATTERN_CHARS

REPO = Path(__file__).resolve().parents[1]
MIN_WORD = 5
_WORD = re.compile(rf"[A-Za-z]{{{MIN_WORD},}}")
_GROUP_HEADER = re.compile(r"\(\?(?:P?<[A-Za-z_]\w*>|[A-Za-z-]*[:)])")


def tag(number: int) -> str:
    """Letters for ``number`` (``q`` first, so no real word gains a real ending)."""
    letters = "q"
    while True:
        number, digit = divmod(number, 26)
        letters += chr(ord("a") + digit)
        if not number:
            return letters


def varied_pattern(pattern: str, suffix: str) -> str:
    """``pattern`` with ``suffix`` after each literal word of five or more letters."""
    out: list[str] = []
    position, size, in_class = 0, len(pattern), False
    while position < size:
        char = pattern[position]
        header = _GROUP_HEADER.match(pattern, position) if char == "(" else None
        word = _WORD.match(pattern, position) if not in_class else None
        if char == "\\":
            end = position + 2
            braced = pattern.startswith("{", end)
            end = pattern.index("}", end) + 1 if braced else end  # \p{Greek}, \x{41}
        elif in_class:
            in_class, end = char != "]", position + 1
        elif char == "[":
            in_class, end = True, position + 1
            end += pattern.startswith("^", end)
            end += pattern.startswith("]", end)
        elif header:
            end = header.end()
        elif word:
            out.append(word.group() + suffix)
            position = word.end()
            continue
        else:
            end = position + 1
        out.append(pattern[position:end])
        position = end
    return "".join(out)


def varied_text(text: str, suffix: str) -> str:
    """Plain text (messages, example logs) with the same words changed."""
    return _WORD.sub(lambda found: found.group() + suffix, text)


def clone_data(data: dict[str, Any], stem: str, number: int) -> dict[str, Any]:
    """The YAML data of clone ``number`` of an article: new id, its own words."""
    suffix = tag(number)
    clone = dict(data, id=f"{stem}-c{number:05d}")
    signatures = dict(clone["signatures"])
    for kind in ("error", "context", "exclude"):
        if signatures.get(kind):
            signatures[kind] = [varied_pattern(p, suffix) for p in signatures[kind]]
    if signatures.get("traceback"):
        traceback = dict(signatures["traceback"])
        for key in ("message",):
            if traceback.get(key):
                traceback[key] = varied_text(traceback[key], suffix)
        traceback["frames"] = [varied_text(f, suffix) for f in traceback.get("frames") or []]
        signatures["traceback"] = traceback
    clone["signatures"] = signatures
    return clone


def real_shaped_kb(source: Path, target: Path, count: int) -> Path:
    """Write a KB of ``count`` articles: ``source``'s, then clones, with examples and repros."""
    articles = sorted((source / "articles").glob("*.yaml"))
    for folder in ("articles", "examples", "repros"):
        (target / folder).mkdir(parents=True, exist_ok=True)
    for number in range(count):
        for step in range(len(articles)):  # a clone whose regex outgrows the limit: the next one
            original = articles[(number + step) % len(articles)]
            data = yaml.safe_load(original.read_text(encoding="utf-8"))
            stem = original.stem
            if number >= len(articles):
                data = clone_data(data, stem, number)
            if _within_limits(data):
                break
        _write_article(target, data)
        _copy_folder(source / "examples" / stem, target / "examples" / data["id"], number, stem)
        if (source / "repros" / stem).is_dir():
            shutil.copytree(source / "repros" / stem, target / "repros" / data["id"])
    return target


def _within_limits(data: dict[str, Any]) -> bool:
    """Whether every regex of the article is within the lint's length limit.

    The suffixes lengthen each literal word: a regex of many words (the
    PEFT version message) passed 512 characters at some clone numbers, and
    a KB with errors answers no ``errkb match`` from its snapshot.
    """
    signatures = data.get("signatures") or {}
    patterns = [p for kind in ("error", "context", "exclude") for p in signatures.get(kind) or []]
    return all(len(pattern) <= MAX_PATTERN_CHARS for pattern in patterns)


def _write_article(target: Path, data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    (target / "articles" / f"{data['id']}.yaml").write_text(text, encoding="utf-8")


def _copy_folder(source: Path, target: Path, number: int, stem: str) -> None:
    """Example logs; a clone's carry its words."""
    if not source.is_dir():
        return
    change: Callable[[str], str] = lambda text: text  # noqa: E731
    if target.name != stem:
        suffix = tag(number)
        change = lambda text: varied_text(text, suffix)  # noqa: E731
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            (target / path.name).write_text(change(text), encoding="utf-8")


@cache
def _today() -> tuple[tuple[str, dict[str, Any]], ...]:
    loaded = load_kb(REPO / "kb")
    return tuple(
        (stem, item.article.model_dump(mode="json"))
        for stem, item in sorted(loaded.kb.articles.items())
        if item.article.status == "active"
    )


def real_shaped_articles(count: int) -> list[Article]:
    """``count`` Article objects: today's active articles, then clones of them."""
    today = _today()
    found = []
    for number in range(count):
        stem, data = today[number % len(today)]
        if number >= len(today):
            data = clone_data(data, stem, number)
        found.append(Article.model_validate(data))
    return found
