"""Versions the result page shows and the ranker uses (issue 21): banners behind logger prefixes."""

from __future__ import annotations

from app.matching.environment import detect_versions


def test_deepspeed_banner_behind_a_logger_prefix_and_collect_env_cuda() -> None:
    lines = [
        "[2026-11-25 10:00:00,123] [INFO] [real_accelerator.py:203:get_accelerator] "
        "DeepSpeed info: version=0.16.4, git-hash=unknown, git-branch=unknown",
        "PyTorch version: 2.13.0+cu128",
        "CUDA used to build PyTorch: 12.8",
        "transformers==4.57.6",
    ]
    assert detect_versions(lines) == {
        "deepspeed": "0.16.4",
        "torch": "2.13.0+cu128",
        "cuda": "12.8",
        "transformers": "4.57.6",
    }


def test_a_sentence_that_mentions_deepspeed_is_no_version() -> None:
    assert detect_versions(["we use DeepSpeed info: none yet"]) == {}
