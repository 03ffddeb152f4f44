"""``SignatureIndex.first_span`` answers exactly what RE2's ``search(text).span()`` does.

It calls the binding on UTF-8 bytes and keeps the last text's encoding
(issue 23, P8); character offsets must come out the same on ASCII and
non-ASCII text, on hits, misses and alternating texts.
"""

from __future__ import annotations

import pytest

from app.matching.index import build_index
from tests.matching.test_pipeline import article

ARTICLES = [
    article("oom", error=[r"CUDA out of memory\. Tried to allocate \d+ [MG]iB", r"显存不足"]),
    article("widget", error=[r"Widget.{0,3}Exploded$", r"^\s*Gadget"], context=[r"é+"]),
]
TEXTS = [
    "",
    "CUDA out of memory. Tried to allocate 20 MiB",
    "错误：CUDA out of memory. Tried to allocate 20 GiB (显存不足)",
    "Widget!Exploded\nnext",
    "line\n  Gadget ééé Widget中Exploded",
    "ümlaut then Gadget",
    "nothing here at all",
    "\ud800 lone surrogate",
]


@pytest.mark.parametrize("engine", ["hyperscan", "re2"])
def test_first_span_equals_the_bindings_search(engine: str) -> None:
    index = build_index(ARTICLES, "r", engine=engine)
    for _ in range(2):  # the second pass alternates texts through the kept encoding
        for text in TEXTS:
            for sid in range(len(index.signatures)):
                program = index._program(sid)
                try:
                    match = program.search(text)
                except UnicodeEncodeError:
                    with pytest.raises(UnicodeEncodeError):
                        index.first_span(sid, text)
                    continue
                expected = None if match is None else match.span()
                assert index.first_span(sid, text) == expected, (sid, text)
