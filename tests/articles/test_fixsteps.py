"""The first fix step, whole, for every shape of fix the KB uses (issue 20, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.articles.fixsteps import first_step
from app.articles.load import load_kb

KB = Path(__file__).resolve().parents[2] / "kb"
ARTICLES = {key: loaded.article for key, loaded in load_kb(KB).kb.articles.items()}

NUMBERED = """Pick one:

1. **Upgrade** (the real fix):

   ```bash
   pip install -U "pkg>=2"
   ```

2. **Or pin** the old one.
"""
BOLD_NUMBERED = """**1. See who holds the port** (on rank 0):

```bash
ss -ltnp 'sport = :29500'
```

If it is yours, stop it.

**2. Pick another port.**
"""
PROSE = "Keep fp32 weights; use autocast.\n\nMore words."
UNNUMBERED = """Drop `device_map="auto"`:

```python
model = load(device_map={"": rank})
```

`device_map="cuda"` works as well.

**Tensor parallel instead**: see below.
"""


@pytest.mark.parametrize(
    ("fix", "words", "code", "absent"),
    [
        (NUMBERED, "Upgrade (the real fix):", 'pip install -U "pkg>=2"', "Or pin"),
        (BOLD_NUMBERED, "See who holds the port (on rank 0):", "ss -ltnp", "Pick another"),
        (UNNUMBERED, 'Drop device_map="auto":', 'model = load(device_map={"": rank})', "Tensor"),
        (
            "Keep fp32 weights; use autocast.\n\nMore words.",
            "Keep fp32 weights; use autocast.",
            None,
            "More",
        ),
    ],
)
def test_each_shape_gives_its_first_step_with_its_code(
    fix: str, words: str, code: str | None, absent: str
) -> None:
    step = first_step(fix)
    lines = step.terminal_lines()
    assert lines[0] == words
    assert absent not in step.markdown
    if code is not None:
        assert any(line.startswith(f"    {code}") for line in lines)
        assert code in step.code_blocks()[0]
        assert "```" in step.markdown


@pytest.mark.parametrize("article_id", sorted(ARTICLES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_step_line_ends_in_a_dangling_colon(article_id: str, lang: str) -> None:
    """A line that announces code ("...:") is followed by that code in the terminal text."""
    step = first_step(ARTICLES[article_id].fix.get(lang))
    lines = step.terminal_lines()
    assert lines, article_id
    for number, line in enumerate(lines):
        if line.rstrip().endswith((":", "：")) and not line.startswith("    "):
            following = lines[number + 1] if number + 1 < len(lines) else ""
            assert following.startswith("    "), f"{article_id} [{lang}]: {line!r}"


@pytest.mark.parametrize("article_id", sorted(ARTICLES))
def test_a_step_that_shows_code_in_the_article_keeps_it(article_id: str) -> None:
    """Both languages' first steps carry the same number of code blocks (one fix, two languages)."""
    en = first_step(ARTICLES[article_id].fix.get("en")).code_blocks()
    zh = first_step(ARTICLES[article_id].fix.get("zh")).code_blocks()
    assert len(en) == len(zh), article_id
