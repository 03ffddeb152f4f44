"""A loaded index's signatures, stored as columns and built on first use (issue 23).

They must read exactly as the built index's tuple: same ids, fields and order,
tuple indexing (negative ids, slices, IndexError), and a damaged column is
refused at load rather than answering with a shifted signature.
"""

from __future__ import annotations

import json

import pytest

from app.matching.index import (
    FORMAT,
    IndexFormatError,
    StoredSignatures,
    build_index,
    dump_index,
    load_index,
)
from app.matching.pipeline import match_text
from tests.matching.test_pipeline import ARTICLES


def test_loaded_signatures_read_as_the_built_ones() -> None:
    built = build_index(ARTICLES, "r")
    loaded = load_index(dump_index(built), "r")
    assert isinstance(loaded.signatures, StoredSignatures)
    assert len(loaded.signatures) == len(built.signatures) > 3
    assert loaded.signatures[-1] == built.signatures[-1]
    assert loaded.signatures[1:3] == built.signatures[1:3]
    assert tuple(loaded.signatures) == built.signatures
    assert [s.sid for s in loaded.signatures] == list(range(len(built.signatures)))
    assert loaded.signatures[0] is loaded.signatures[0]  # built once, then kept
    with pytest.raises(IndexError):
        loaded.signatures[len(built.signatures)]
    text = "RuntimeError: CUDA out of memory. Tried to allocate 1 GiB"
    assert match_text(text, loaded).to_json() == match_text(text, built).to_json()


def test_columns_of_different_lengths_are_refused() -> None:
    blob = dump_index(build_index(ARTICLES, "r"))
    size = int.from_bytes(blob[len(FORMAT) : len(FORMAT) + 8], "big")
    header = json.loads(blob[len(FORMAT) + 8 : len(FORMAT) + 8 + size])
    header["signatures"]["kind"].pop()
    encoded = json.dumps(header).encode()
    cut = FORMAT + len(encoded).to_bytes(8, "big") + encoded + blob[len(FORMAT) + 8 + size :]
    with pytest.raises(IndexFormatError):
        load_index(cut, "r")


def test_the_error_patterns_are_read_from_the_columns() -> None:
    built = build_index(ARTICLES, "r")
    loaded = load_index(dump_index(built), "r")
    assert loaded.error_words == built.error_words
    assert loaded.folded_errors.sids == built.folded_errors.sids
    assert isinstance(loaded.signatures, StoredSignatures)
    assert loaded.signatures._built == [None] * len(built.signatures)  # none built for them
