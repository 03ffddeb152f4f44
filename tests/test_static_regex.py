"""Target B8: the static checks for catastrophic regexes report nothing in ``app/``.

Article signatures and redaction rules only ever run on RE2 and Hyperscan
(B2, B4); what is left for Python's ``re`` is our own fixed patterns. dlint
(its DUO rules, DUO138 for catastrophic backtracking) reads the source.
regexploit reads literal patterns only, and most of ours are built from
tables, so it is run here on the compiled patterns themselves, collected by
importing every module of ``app``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import app

with warnings.catch_warnings():  # regexploit imports sre_constants, deprecated since 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    from regexploit.ast.sre import SreOpParser
    from regexploit.redos import find

ROOT = Path(__file__).resolve().parents[1]
STARRINESS_LIMIT = 2  # regexploit's own threshold: above it, polynomial or worse backtracking


class _Parser(SreOpParser):  # type: ignore[misc]
    """regexploit predates Python 3.11's possessive repeats; read them as greedy ones,
    which can only overstate the backtracking."""

    def from_POSSESSIVE_REPEAT(self, data: Any) -> Any:
        return self.from_MAX_REPEAT(data)


def _patterns_in(value: Any) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _patterns_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _patterns_in(item)
    elif _builds_a_pattern(value):
        yield from _patterns_in(value())


def _builds_a_pattern(value: Any) -> bool:
    """A ``@cache``'d builder with no arguments that returns a pattern (``_prefix_re``)."""
    wrapped = getattr(value, "__wrapped__", None)
    if not hasattr(value, "cache_info") or wrapped is None:
        return False
    signature = inspect.signature(wrapped)
    return not signature.parameters and "Pattern" in str(signature.return_annotation)


def app_patterns() -> dict[str, re.Pattern[str]]:
    """Every compiled pattern a module of ``app`` holds, by ``module.name``."""
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(app.__path__, "app."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", None) != info.name:
                continue  # a builder imported from elsewhere is checked where it lives
            for number, pattern in enumerate(_patterns_in(value)):
                found[f"{info.name}.{name}[{number}]"] = pattern
    return found


def test_b8_the_collector_sees_the_patterns_built_from_tables() -> None:
    names = set(app_patterns())
    assert "app.matching.prefixes._prefix_re[0]" in names
    assert {f"app.web.highlight.RULES[{n}]" for n in range(5)} <= names
    assert len(names) >= 20


# The last one is possessive, which the parser reads as greedy.
@pytest.mark.parametrize("pattern", [r"(a+)+b", r"^(\w+\s?)*$", r"\d*+\d*\d*z"])
def test_b8_the_check_flags_known_catastrophic_patterns(pattern: str) -> None:
    worst = [r for r in find(_Parser().parse_sre(pattern)) if r.starriness > STARRINESS_LIMIT]
    assert worst


@pytest.mark.parametrize("name", sorted(app_patterns()))
def test_b8_regexploit_finds_no_catastrophic_backtracking(name: str) -> None:
    pattern = app_patterns()[name]
    parsed = _Parser().parse_sre(pattern.pattern, pattern.flags)
    worst = [r for r in find(parsed) if r.starriness > STARRINESS_LIMIT]
    assert worst == [], f"{name}: {pattern.pattern[:200]!r}"


def _flake8(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flake8", *argv],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_b8_dlint_reports_nothing_in_app() -> None:
    assert "dlint" in _flake8("--version").stdout, "dlint is not installed as a flake8 plugin"
    result = _flake8("--select=DUO", "app")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
