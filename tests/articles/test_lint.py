"""Lint checks beyond the schema: ids, regexes, examples, repros (issue 2, targets B2/B3)."""

from __future__ import annotations

import copy
import shutil
import time
from pathlib import Path

import pytest

from app.articles.load import load_kb
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb


def with_signatures(**signatures: object) -> dict[str, object]:
    article = copy.deepcopy(VALID_ARTICLE)
    article["signatures"] = {**article["signatures"], **signatures}  # type: ignore[dict-item]
    return article


def problem_lines(root: Path) -> list[str]:
    return [p.format() for p in load_kb(root).problems]


def test_id_differs_from_file_name(tmp_path: Path) -> None:
    kb_root = tmp_path / "kb"
    path = write_article(kb_root, VALID_ARTICLE)
    path.rename(path.with_name("renamed.yaml"))
    shutil.move(kb_root / "examples/sample-error", kb_root / "examples/renamed")
    shutil.move(kb_root / "repros/sample-error", kb_root / "repros/renamed")
    assert problem_lines(kb_root) == [
        "kb/articles/renamed.yaml:1: id 'sample-error' differs from the file name 'renamed'"
    ]


def test_duplicate_ids_are_reported_for_both_files(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    shutil.copy(kb_root / "articles/sample-error.yaml", kb_root / "articles/copy.yaml")
    found = problem_lines(kb_root)
    assert "kb/articles/copy.yaml:1: duplicate id 'sample-error'" in found
    assert "kb/articles/sample-error.yaml:1: duplicate id 'sample-error'" in found


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(?=lookahead)Error", "unsupported regex construct (RE2)"),
        (r"(?<!x)SomeError", "unsupported regex construct (RE2)"),
        (r"(Error)\1", "unsupported regex construct (RE2)"),
        (r"Errors++", "unsupported regex construct (RE2)"),
        (r"(?>atomic)Error", "unsupported regex construct (RE2)"),
        (r"Error a{1001}", "unsupported regex construct (RE2)"),
        (r"Error ((a{100}){100}){100}", "unsupported regex construct (RE2)"),
        ("Error " + "x" * 520, "characters long (at most 512)"),
        (r"\d+ \w+", "needs a literal of at least 4 characters"),
        (r"(?:abc|abd)", "needs a literal of at least 4 characters"),
        (r"x*", "matches the empty string"),
        (r".*RuntimeError", "starts with .* or .+"),
    ],
)
def test_b2_b3_bad_regexes_are_rejected_with_their_line(
    tmp_path: Path, pattern: str, expected: str
) -> None:
    kb_root = write_kb(tmp_path / "kb", with_signatures(error=["SampleError: ok", pattern]))
    (problem,) = load_kb(kb_root).problems
    text = (kb_root / "articles/sample-error.yaml").read_text().splitlines()
    assert problem.line is not None
    assert text[problem.line - 1].lstrip().startswith("- ")
    assert problem.message.startswith("signatures.error: ")
    assert expected in problem.message


def test_b1_catastrophic_backtracking_patterns_are_accepted_by_linear_engines(
    tmp_path: Path,
) -> None:
    """(a+)+ is harmless in RE2/Hyperscan; it loads when it carries a real literal (B1)."""
    kb_root = write_kb(tmp_path / "kb", with_signatures(error=[r"(aaaa+)+Error$"]))
    assert problem_lines(kb_root) == []


def test_b3_too_many_patterns(tmp_path: Path) -> None:
    patterns = [f"SampleError number {i}" for i in range(21)]
    kb_root = write_kb(tmp_path / "kb", with_signatures(error=patterns, context=[]))
    assert any("21 regexes (at most 20 per article)" in m for m in problem_lines(kb_root))


def test_duplicate_pattern(tmp_path: Path) -> None:
    kb_root = write_kb(
        tmp_path / "kb", with_signatures(context=["SampleError: widget \\d+ exploded"])
    )
    assert any("regex listed twice" in m for m in problem_lines(kb_root))


def test_missing_example_file(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    (kb_root / "examples/sample-error/sample.log").unlink()
    (line,) = problem_lines(kb_root)
    assert line.endswith("example file missing: kb/examples/sample-error/sample.log")


def test_article_without_must_match_example(tmp_path: Path) -> None:
    article = copy.deepcopy(VALID_ARTICLE)
    article["examples"] = []
    kb_root = write_kb(tmp_path / "kb", article)
    assert any("no must-match example" in m for m in problem_lines(kb_root))


def test_unlisted_example_is_a_warning(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    (kb_root / "examples/sample-error/extra.log").write_text("x\n")
    result = load_kb(kb_root)
    (problem,) = result.problems
    assert problem.severity == "warning"
    assert result.errors == ()


@pytest.mark.parametrize("script", ["repro.py", "fixed.py"])
def test_missing_repro_script(tmp_path: Path, script: str) -> None:
    kb_root = write_kb(tmp_path / "kb")
    (kb_root / "repros/sample-error" / script).unlink()
    (line,) = problem_lines(kb_root)
    assert line.endswith(f"repro file missing: kb/repros/sample-error/{script}")


def test_repro_folder_without_repro_block(tmp_path: Path) -> None:
    article = copy.deepcopy(VALID_ARTICLE)
    del article["repro"]
    kb_root = write_kb(tmp_path / "kb", article)
    (kb_root / "repros/sample-error").mkdir(parents=True)
    assert problem_lines(kb_root) == [
        "kb/articles/sample-error.yaml: kb/repros/sample-error exists but the article has no repro:"
    ]


def alias_bomb(levels: int = 9) -> str:
    """Nested aliases: a few hundred bytes that name 9**9 nodes when walked."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels):
        lines.append(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_b10_nested_yaml_aliases_are_refused_fast_with_file_and_line(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    path = kb_root / "articles/sample-error.yaml"
    text = path.read_text(encoding="utf-8")
    line = text.count("\n") + 1
    path.write_text(text + alias_bomb(), encoding="utf-8")
    started = time.perf_counter()
    found = problem_lines(kb_root)
    assert time.perf_counter() - started < 1.0
    assert f"kb/articles/sample-error.yaml:{line}: YAML anchors and aliases" in "\n".join(found)


def test_b10_a_lone_alias_is_refused_with_its_line(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    path = kb_root / "articles/sample-error.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "extra: *nothing\n", encoding="utf-8")
    found = "\n".join(problem_lines(kb_root))
    assert f"sample-error.yaml:{text.count(chr(10)) + 1}: YAML anchors and aliases" in found
