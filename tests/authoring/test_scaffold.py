"""Drafts from real messages: the masked regex passes the KB's own lint and matches its
sample and its siblings with other numbers; the scaffold is a valid draft article."""

from __future__ import annotations

import pytest
import yaml

from app.articles.model import Article
from app.articles.patterns import check_pattern
from app.authoring.scaffold import Seed, scaffold, suggest_id
from app.authoring.signature import message_regex
from app.matching import rx

MESSAGES = [
    (
        "torch.OutOfMemoryError",
        "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 1.20 GiB is free.",
        "OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a "
        "total capacity of 39.39 GiB of which 10.00 MiB is free.",
    ),
    (
        "RuntimeError",
        "Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!",
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:7 and cpu!",
    ),
    (
        "RuntimeError",
        "The size of tensor a (1024) must match the size of tensor b (512) at non-singleton "
        "dimension 2",
        "RuntimeError: The size of tensor a (77) must match the size of tensor b (64) at "
        "non-singleton dimension 1",
    ),
    (
        "KeyError",
        "'labels'",
        "KeyError: 'labels'",
    ),
    (
        None,
        "NCCL WARN Call to bind failed : Cannot assign requested address at 10.0.0.12:29500",
        "NCCL WARN Call to bind failed : Cannot assign requested address at 10.3.9.1:40000",
    ),
]


@pytest.mark.parametrize(("exception", "message", "sibling"), MESSAGES)
def test_the_masked_regex_lints_clean_and_matches_sample_and_sibling(
    exception: str | None, message: str, sibling: str
) -> None:
    pattern = message_regex(exception, message)
    assert check_pattern(pattern) == []
    sample = f"{exception}: {message}" if exception else message
    compiled = rx.compiled(pattern)
    assert compiled.search(rx.encode(sample)) is not None
    assert compiled.search(rx.encode(sibling)) is not None


def test_kept_words_stay_literal() -> None:
    pattern = message_regex("KeyError", "'labels'")
    assert rx.compiled(pattern).search(rx.encode("KeyError: 'input_ids'")) is None


def test_a_scaffold_is_a_valid_draft_in_both_languages() -> None:
    seed = Seed("f" * 64, "ValueError", "bad flux 42", ("ValueError: bad flux 42\n",), 3)
    files = scaffold("bad-flux", seed)
    article = Article.model_validate(yaml.safe_load(files["articles/bad-flux.yaml"]))
    assert article.status == "draft"
    assert article.title.en.startswith("TODO(errkb)")
    assert article.title.zh.startswith("TODO(errkb)")
    assert [e.file for e in article.examples] == ["sample-1.log"]
    assert files["examples/bad-flux/sample-1.log"] == "ValueError: bad flux 42\n"
    assert set(files) == {
        "articles/bad-flux.yaml",
        "examples/bad-flux/sample-1.log",
        "repros/bad-flux/repro.py",
        "repros/bad-flux/fixed.py",
    }


def test_a_hostile_sample_stays_a_yaml_string() -> None:
    message = 'x": 1\nstatus: active\n# {{7*7}} \\u0000'
    seed = Seed("e" * 64, "ValueError", message, (message,), 1)
    article = yaml.safe_load(scaffold("hostile", seed)["articles/hostile.yaml"])
    assert article["status"] == "draft"
    assert article["signatures"]["traceback"]["message"] == 'x": 1'


def test_suggested_ids_are_valid_ids() -> None:
    seed = Seed("d" * 64, "torch.OutOfMemoryError", "CUDA out of memory. Tried", (), 1)
    assert suggest_id(seed) == "torch-outofmemoryerror-cuda-out"
    assert suggest_id(Seed("d" * 64, None, "", (), 1)) == "new-article"


def test_a5_a_secret_that_survived_storage_never_reaches_the_kb() -> None:
    """A sample stored under older rules still holds a key: the draft must not copy it."""
    key = "gsk_" + "Q7x" * 16 + "Ab9z"  # built here: no token-shaped literal in the file
    seed = Seed(
        fingerprint="f" * 64,
        exception="RuntimeError",
        message=f"upload failed with GROQ_API_KEY={key}",
        samples=(f"Traceback (most recent call last):\nRuntimeError: upload failed: {key}\n",),
    )
    files = scaffold("runtimeerror-upload-failed", seed)
    assert len(files) >= 4
    assert all(key not in text and key[8:20] not in text for text in files.values())
    assert any("[REDACTED:groq-key]" in text for text in files.values())
