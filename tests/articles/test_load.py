"""load_kb: every problem comes back as `kb/articles/<id>.yaml:<line>: <what>`, nothing raises."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from app.articles.load import kb_revision, load_kb, load_valid_kb
from app.errors import KbInvalid
from tests.kbfactory import VALID_ARTICLE, variant, write_article, write_kb


def messages(root: Path) -> list[str]:
    return [p.format() for p in load_kb(root).problems]


def test_valid_kb_loads_without_problems(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    result = load_kb(kb_root)
    assert result.problems == ()
    assert list(result.kb.articles) == ["sample-error"]
    assert result.kb.articles["sample-error"].article.title.get("zh") == "示例错误"
    assert len(result.kb.revision) == 64


def test_yaml_syntax_error_reports_file_and_line(tmp_path: Path) -> None:
    kb_root = tmp_path / "kb"
    write_article(kb_root, VALID_ARTICLE, text="id: sample-error\ntitle: {en: x\nsummary: [\n")
    (problem,) = load_kb(kb_root).problems
    assert problem.path == "kb/articles/sample-error.yaml"
    assert problem.line is not None
    assert problem.line >= 2
    assert "invalid YAML" in problem.message


def test_duplicate_key_is_an_error_with_its_line(tmp_path: Path) -> None:
    kb_root = tmp_path / "kb"
    text = "id: sample-error\nlibraries: [torch]\nlibraries: [deepspeed]\n"
    write_article(kb_root, VALID_ARTICLE, text=text)
    assert messages(kb_root) == ["kb/articles/sample-error.yaml:3: duplicate key 'libraries'"]


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    kb_root = tmp_path / "kb"
    write_article(kb_root, VALID_ARTICLE, text="- just\n- a list\n")
    assert "must be a YAML mapping" in messages(kb_root)[0]


def test_missing_language_names_the_field_and_line(tmp_path: Path) -> None:
    article = copy.deepcopy(VALID_ARTICLE)
    article["cause"] = {"en": "Only English."}
    kb_root = write_kb(tmp_path / "kb", article)
    (message,) = messages(kb_root)
    line = (kb_root / "articles/sample-error.yaml").read_text().splitlines()
    cause_line = next(i for i, text in enumerate(line, 1) if text.startswith("cause:"))
    assert (
        message
        == f"kb/articles/sample-error.yaml:{cause_line + 1}: cause: missing the Chinese (zh) text"
    )


def test_unknown_key_is_rejected_as_a_typo(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb", variant(contxt=["foo"]))
    (message,) = messages(kb_root)
    assert message.endswith("contxt: unknown key (typo? see kb/schema.json)")


def test_schema_error_points_at_the_nested_line(tmp_path: Path) -> None:
    article = copy.deepcopy(VALID_ARTICLE)
    article["repro"] = {"requires": {"gpus": -1}}
    kb_root = write_kb(tmp_path / "kb", article)
    (problem,) = load_kb(kb_root).problems
    text = (kb_root / "articles/sample-error.yaml").read_text().splitlines()
    assert text[problem.line - 1].strip() == "gpus: -1"  # type: ignore[operator]
    assert "repro.requires.gpus" in problem.message


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"affects": {"torch": ">=two"}}, "affects.torch: Value error, not a PEP 440"),
        ({"id": "Bad_ID"}, "id: String should match pattern"),
        ({"libraries": []}, "libraries: List should have at least 1 item"),
        ({"references": ["ftp://x"]}, "references.0: String should match pattern"),
    ],
)
def test_schema_errors_are_reported(
    tmp_path: Path, changes: dict[str, object], expected: str
) -> None:
    kb_root = write_kb(tmp_path / "kb", variant(**changes))
    assert any(expected in m for m in messages(kb_root)), messages(kb_root)


def test_invalid_utf8_is_reported_not_raised(tmp_path: Path) -> None:
    path = write_article(tmp_path / "kb", VALID_ARTICLE)
    path.write_bytes(b"id: sample-error\ntitle: \xff\xfe\n")
    assert messages(tmp_path / "kb") == [
        "kb/articles/sample-error.yaml:2: the file is not valid UTF-8"
    ]


def test_non_yaml_file_in_articles_is_reported(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    (kb_root / "articles" / "notes.yml").write_text("x: 1\n")
    assert messages(kb_root) == ["kb/articles/notes.yml: not an article: files here end in .yaml"]


def test_missing_articles_folder(tmp_path: Path) -> None:
    assert messages(tmp_path / "kb") == ["kb/articles: no articles folder"]


def test_load_valid_kb_raises_with_every_error(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb", variant(libraries=[], tags=["Not A Slug"]))
    with pytest.raises(KbInvalid) as caught:
        load_valid_kb(kb_root)
    assert "kb/articles/sample-error.yaml" in str(caught.value)
    assert len(caught.value.problems) == 2


def test_revision_changes_with_any_kb_file(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    before = kb_revision(kb_root)
    (kb_root / "examples/sample-error/sample.log").write_text("changed\n")
    assert kb_revision(kb_root) != before


def test_i8_an_article_symlinked_out_of_the_kb_is_served_with_a_warning(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    article = kb_root / "articles" / "sample-error.yaml"
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes(article.read_bytes())
    article.unlink()
    article.symlink_to(outside)
    inside = kb_root / "articles" / "sample-error.yaml"
    result = load_kb(kb_root)
    assert list(result.kb.articles) == ["sample-error"]
    assert result.errors == ()
    (warning,) = result.problems
    assert warning.severity == "warning"
    assert warning.path == "kb/articles/sample-error.yaml"
    assert "outside the KB" in warning.message
    inside.unlink()  # a link that stays inside the KB is no news
    (kb_root / "articles" / "target.txt").write_bytes(outside.read_bytes())
    inside.symlink_to(kb_root / "articles" / "target.txt")
    assert all("outside the KB" not in p.message for p in load_kb(kb_root).problems)
