"""Logs the warm-up matches at load: a slice of the KB's own example logs (issue 23, goal P6).

RE2 builds its automata lazily, state by state, as text meets them: the
redaction rules' set, each signature's program, the masks. A fixed warm-up
line builds the states that line needs; the first real log still built most
of its own and took 9-17x a warm request. Matching a few real-shaped logs at
load builds the common states before the service says it is ready. The KB's
must-match examples are such logs and are already on disk; a byte budget
keeps the start-up cost bounded (64 KiB: about a quarter of a second of CPU).
"""

from __future__ import annotations

from app.articles.load import KnowledgeBase

SAMPLE_BYTES = 64 << 10


def warm_samples(kb: KnowledgeBase, budget: int = SAMPLE_BYTES) -> list[bytes]:
    """Must-match example logs, one article after another in id order, up to ``budget`` bytes."""
    samples: list[bytes] = []
    left = budget
    for article_id, loaded in sorted(kb.articles.items()):
        if loaded.article.status != "active":
            continue
        for example in loaded.article.examples:
            if example.expect != "match":
                continue
            path = kb.root / "examples" / article_id / example.file
            try:
                size = path.stat().st_size
                if size > left:
                    continue
                samples.append(path.read_bytes())
            except OSError:
                continue
            left -= size
            break  # one log an article: variety, not depth
        if left <= 0:
            break
    return samples
