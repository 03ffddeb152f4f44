"""Find and parse the article files of a KB folder, turning every failure into a Problem."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.articles.problems import Problem
from app.articles.yamlsource import Document, YamlDocument, YamlProblem, parse_yaml

MAX_ARTICLE_BYTES = 256 * 1024


@dataclass(frozen=True)
class ArticleSource:
    """One parsed article file; ``stem`` is the id its file name promises."""

    path: Path
    display_path: str
    document: Document

    @property
    def stem(self) -> str:
        return self.path.stem

    def line_of(self, *loc: str | int) -> int:
        return self.document.line_of(loc)


def display_path(root: Path, path: Path) -> str:
    """``kb/articles/x.yaml``: the path as an author sees it in the repository."""
    return (Path(root.name) / path.relative_to(root)).as_posix()


OUTSIDE = "a symbolic link to a file outside the KB: it is served, but not reviewed with it"


def read_article_sources(root: Path) -> tuple[list[ArticleSource], list[Problem]]:
    """Parse every ``articles/*.yaml`` under ``root``; unreadable files become problems."""
    folder = root / "articles"
    if not folder.is_dir():
        return [], [Problem(display_path(root, folder), None, "no articles folder")]
    sources: list[ArticleSource] = []
    problems: list[Problem] = []
    for path in sorted(folder.iterdir()):
        shown = display_path(root, path)
        if path.suffix != ".yaml" or not path.is_file():
            if not path.name.startswith("."):
                problems.append(Problem(shown, None, "not an article: files here end in .yaml"))
            continue
        if path.is_symlink() and not path.resolve().is_relative_to(root.resolve()):
            problems.append(Problem(shown, None, OUTSIDE, severity="warning"))
        try:
            sources.append(ArticleSource(path, shown, _parse(path)))
        except YamlProblem as exc:
            problems.append(Problem(shown, exc.line, exc.message))
    return sources, problems


def _parse(path: Path) -> YamlDocument:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise YamlProblem(None, f"cannot read the file: {exc.strerror}") from exc
    if len(raw) > MAX_ARTICLE_BYTES:
        raise YamlProblem(None, f"file is {len(raw)} bytes (at most {MAX_ARTICLE_BYTES})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise YamlProblem(line, "the file is not valid UTF-8") from exc
    return parse_yaml(text)
