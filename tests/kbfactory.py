"""Build small knowledge bases on disk for tests: one valid article, then break it on purpose."""

from __future__ import annotations

from pathlib import Path

import yaml

VALID_ARTICLE: dict[str, object] = {
    "id": "sample-error",
    "title": {"en": "Sample failure", "zh": "示例错误"},
    "summary": {"en": "A failure used by the tests.", "zh": "测试用的错误。"},
    "libraries": ["torch"],
    "tags": ["testing"],
    "layer": "user-code",
    "affects": {"torch": ">=2.4"},
    "signatures": {
        "error": [r"SampleError: widget \d+ exploded"],
        "context": [r"sample/module\.py"],
        "traceback": {
            "exception": "SampleError",
            "message": "widget 3 exploded",
            "frames": ["sample/module.py:explode"],
        },
    },
    "cause": {"en": "The widget was **overfed**.", "zh": "部件被**喂得太多**。"},
    "fix": {"en": "Feed it less:\n\n```python\nfeed(1)\n```", "zh": "少喂一点。"},
    "references": ["https://example.org/issue/1"],
    "repro": {"requires": {"gpus": 0, "processes": 1, "packages": ["torch>=2.4"]}},
    "examples": [{"file": "sample.log", "expect": "match"}],
}


def write_kb(root: Path, *articles: dict[str, object]) -> Path:
    """Write ``articles`` (default: the valid one) with their example and repro files."""
    for article in articles or (VALID_ARTICLE,):
        write_article(root, article)
    return root


def write_article(root: Path, article: dict[str, object], *, text: str | None = None) -> Path:
    """Write one article file (``text`` overrides the YAML) plus the files it names."""
    article_id = str(article.get("id", "sample-error"))
    path = root / "articles" / f"{article_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        text if text is not None else yaml.safe_dump(article, allow_unicode=True, sort_keys=False),
        encoding="utf-8",
    )
    for example in article.get("examples", []):  # type: ignore[attr-defined]
        folder = root / "examples" / article_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / example["file"]).write_text("SampleError: widget 3 exploded\n")
    if article.get("repro"):
        folder = root / "repros" / article_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "repro.py").write_text("raise SystemExit('SampleError: widget 3 exploded')\n")
        (folder / "fixed.py").write_text("print('ok')\n")
    return path


def variant(**changes: object) -> dict[str, object]:
    """The valid article with top-level keys replaced (None deletes a key)."""
    article = {**VALID_ARTICLE, **changes}
    return {key: value for key, value in article.items() if value is not None}
