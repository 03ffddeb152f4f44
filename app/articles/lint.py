"""Static checks of valid articles: what the schema alone cannot say.

Each check is a small function in ``ARTICLE_CHECKS`` (run per article, in this
order) or ``KB_CHECKS`` (run once over all articles). A check returns
problems; it never raises for a bad article. Self-tests that need the matcher
(examples ranking their article first) live with the matcher, which builds on
these.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from app.articles.model import Article
from app.articles.patterns import MAX_PATTERNS_PER_ARTICLE, check_pattern
from app.articles.problems import Problem, Severity
from app.articles.sources import ArticleSource, display_path

Pair = tuple[Article, ArticleSource]
ArticleCheck = Callable[[Article, ArticleSource, Path], Iterable[Problem]]
KbCheck = Callable[[Sequence[Pair]], Iterable[Problem]]


def check_id_matches_file(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """The file name is the id: links, examples and repros are found by it."""
    if article.id == source.stem:
        return []
    message = f"id {article.id!r} differs from the file name {source.stem!r}"
    return [Problem(source.display_path, source.line_of("id"), message)]


def check_patterns(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """Every regex compiles in RE2 and Hyperscan and keeps within the limits (B2, B3)."""
    problems = []
    patterns = article.signatures.all_patterns()
    if len(patterns) > MAX_PATTERNS_PER_ARTICLE:
        message = f"{len(patterns)} regexes (at most {MAX_PATTERNS_PER_ARTICLE} per article)"
        problems.append(Problem(source.display_path, source.line_of("signatures"), message))
    for kind, index, pattern in patterns:
        line = source.line_of("signatures", kind, index)
        for message in check_pattern(pattern):
            problems.append(Problem(source.display_path, line, f"signatures.{kind}: {message}"))
    return problems


def check_duplicate_patterns(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """A regex listed twice is a copy-paste slip; it would count its evidence twice."""
    counts = Counter(pattern for _, _, pattern in article.signatures.all_patterns())
    return [
        Problem(source.display_path, source.line_of("signatures"), f"regex listed twice: {p!r}")
        for p, n in counts.items()
        if n > 1
    ]


def check_examples(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """Each article proves itself on at least one log; every listed log exists."""
    folder = root / "examples" / source.stem
    problems = []
    if not any(example.expect == "match" for example in article.examples):
        message = "no must-match example (add one under examples:)"
        problems.append(Problem(source.display_path, source.line_of("examples"), message))
    listed = set()
    for index, example in enumerate(article.examples):
        listed.add(example.file)
        if not (folder / example.file).is_file():
            message = f"example file missing: {display_path(root, folder / example.file)}"
            line = source.line_of("examples", index, "file")
            problems.append(Problem(source.display_path, line, message))
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.name not in listed:
                shown = display_path(root, path)
                problems.append(
                    Problem(shown, None, "example not listed in its article", "warning")
                )
    return problems


def check_repro(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """A declared reproduction has both scripts; scripts without a declaration are a slip."""
    folder = root / "repros" / source.stem
    if article.repro is None:
        if folder.is_dir():
            message = f"{display_path(root, folder)} exists but the article has no repro:"
            return [Problem(source.display_path, None, message)]
        return []
    return [
        Problem(
            source.display_path,
            source.line_of("repro"),
            f"repro file missing: {display_path(root, folder / name)}",
        )
        for name in ("repro.py", "fixed.py")
        if not (folder / name).is_file()
    ]


def check_fixed_requires(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """A second set for fixed.py must name another environment, and only a CPU repro has one.

    The verifier's environments leave torch out of a set (every one runs the
    pinned torch), so ``["torch>=2.4", "six"]`` and ``["six"]`` are one
    environment. GPU runs use one interpreter (``--python``) for both scripts.
    """
    repro = article.repro
    if repro is None or repro.fixed_requires is None:
        return []
    line = source.line_of("repro", "fixed_requires")
    if repro.requires.gpus > 0:
        message = (
            "repro.fixed_requires needs a CPU repro (gpus: 0): a GPU run uses one interpreter "
            "(--python) for repro.py and fixed.py"
        )
        return [Problem(source.display_path, line, message)]
    if _one_environment(repro.requires.packages) == _one_environment(repro.fixed_requires.packages):
        message = (
            "repro.fixed_requires.packages is the same set as requires.packages (torch left "
            "out): one environment; drop fixed_requires"
        )
        return [Problem(source.display_path, line, message)]
    return []


def _one_environment(packages: Iterable[str]) -> frozenset[str]:
    """The set as the verifier keys it: names canonicalised, torch left to the pin."""
    kept = set()
    for text in packages:
        requirement = Requirement(text)  # the model already checked it parses
        requirement.name = canonicalize_name(requirement.name)
        if requirement.name != "torch":
            kept.add(str(requirement))
    return frozenset(kept)


PLACEHOLDER = "TODO(errkb)"
"""What ``errkb new`` leaves in every gap (``app.authoring.scaffold`` writes it)."""


def check_placeholders(article: Article, source: ArticleSource, root: Path) -> list[Problem]:
    """A gap left by ``errkb new``: an error in a served article, a reminder in a draft."""
    severity: Severity = "error" if article.status == "active" else "warning"
    problems = []
    for key, value in article.model_dump(mode="json").items():
        if PLACEHOLDER in json.dumps(value, ensure_ascii=False):
            message = f"{key}: {PLACEHOLDER} left to fill in"
            problems.append(Problem(source.display_path, source.line_of(key), message, severity))
    if article.status == "retired":
        return problems
    for folder in ("examples", "repros"):
        base = root / folder / source.stem
        files = sorted(base.iterdir()) if base.is_dir() else []
        for path in files:
            if path.is_file() and PLACEHOLDER.encode() in path.read_bytes()[: 1 << 20]:
                message = f"{PLACEHOLDER} left to fill in"
                problems.append(Problem(display_path(root, path), None, message, severity))
    return problems


def check_unique_ids(pairs: Sequence[Pair]) -> list[Problem]:
    """Two files claiming one id would make links and verification ambiguous."""
    by_id: dict[str, list[ArticleSource]] = {}
    for article, source in pairs:
        by_id.setdefault(article.id, []).append(source)
    return [
        Problem(s.display_path, s.line_of("id"), f"duplicate id {article_id!r}")
        for article_id, sources in by_id.items()
        if len(sources) > 1
        for s in sources
    ]


# Per-article checks, cheapest first; all run, so an author sees every problem at once.
ARTICLE_CHECKS: tuple[ArticleCheck, ...] = (
    check_id_matches_file,
    check_patterns,
    check_duplicate_patterns,
    check_examples,
    check_repro,
    check_fixed_requires,
    check_placeholders,
)
KB_CHECKS: tuple[KbCheck, ...] = (check_unique_ids,)


def lint_articles(root: Path, pairs: Sequence[Pair]) -> list[Problem]:
    """Run every check over the valid articles of the KB at ``root``."""
    problems: list[Problem] = []
    for article, source in pairs:
        for check in ARTICLE_CHECKS:
            problems.extend(check(article, source, root))
    for kb_check in KB_CHECKS:
        problems.extend(kb_check(pairs))
    return problems
