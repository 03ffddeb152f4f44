"""The library search ranks (issue 21): a table of queries with the article that must come first.

Written from the 29 articles the KB started with; the KB grows on other
branches, so each row names a query that reads as one specific article would
answer it, in English and in Chinese. A search in id order, or one that
ignores titles and error messages, fails many rows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.articles.load import load_kb
from app.articles.model import Article
from app.articles.search import marked, rank_articles, search_articles, tokens

KB = Path(__file__).resolve().parents[2] / "kb"

TABLE = [
    ("out of memory", "cuda-oom"),
    ("CUDA out of memory. Tried to allocate 2.00 GiB", "cuda-oom"),
    ("cuda oom", "cuda-oom"),
    ("显存", "cuda-oom"),
    ("显存不足", "cuda-oom"),
    ("nccl timeout", "nccl-timeout"),
    ("watchdog 超时", "nccl-timeout"),
    ("Watchdog caught collective operation timeout", "nccl-timeout"),
    ("address already in use", "addr-in-use"),
    ("端口被占用", "addr-in-use"),
    ("backward through the graph a second time", "backward-twice"),
    ("bf16 not supported", "bf16-unsupported"),
    ("ChildFailedError", "childfailed"),
    ("CUBLAS_STATUS_EXECUTION_FAILED", "cublas-status"),
    ("CUDA_HOME is not set", "cuda-home-missing"),
    ("bus error shared memory", "dataloader-shm"),
    ("共享内存不足", "dataloader-shm"),
    ("chunk expects at least a 1-dimensional tensor", "ddp-scalar-chunk"),
    ("finished reduction in the prior iteration", "ddp-unused-params"),
    ("没有收到梯度", "ddp-unused-params"),
    ("zero-3 cpu offload same device", "device-mismatch-cpu-offload"),
    ("device_map auto multi gpu cuda:0 cuda:1", "device-mismatch-multi-gpu"),
    ("device-side assert triggered", "device-side-assert"),
    ("标签越界", "device-side-assert"),
    ("no DeviceMesh from dtensor args", "devicemesh-missing"),
    ("mixed torch.Tensor and DTensor", "dtensor-mixed"),
    ("mat1 and mat2 must have the same dtype", "dtype-mismatch"),
    ("浮点类型", "dtype-mismatch"),
    ("flash attention undefined symbol", "flash-attn-import"),
    ("modified by an inplace operation", "inplace-modified"),
    ("backward 之前被原地修改", "inplace-modified"),
    ("Cannot copy out of meta tensor", "meta-tensor"),
    ("ncclSystemError unhandled system error", "nccl-system-error"),
    ("does not require grad and does not have a grad_fn", "no-grad-fn"),
    ("no kernel image is available", "no-kernel-image"),
    ("GPU 架构", "no-kernel-image"),
    ("pad token", "pad-token-missing"),
    ("Default process group has not been initialized", "pg-not-initialized"),
    ("默认进程组", "pg-not-initialized"),
    ("size mismatch copying a param with shape", "size-mismatch-load"),
    ("Transformers does not recognize this architecture", "unknown-model-type"),
    ("Attempting to unscale FP16 gradients", "unscale-fp16"),
]


@pytest.fixture(scope="module")
def articles() -> list[Article]:
    return [loaded.article for loaded in load_kb(KB).kb.articles.values()]


def test_the_table_is_big_enough_and_in_both_languages() -> None:
    chinese = [q for q, _ in TABLE if not q.isascii()]
    assert len(TABLE) >= 30
    assert len(chinese) >= 10


@pytest.mark.parametrize(("query", "expected"), TABLE)
def test_the_expected_article_comes_first(
    articles: list[Article], query: str, expected: str
) -> None:
    found = [hit.article.id for hit in rank_articles(articles, query=query)]
    assert found, f"nothing found for {query!r}"
    assert found[0] == expected, f"{query!r}: {found[:5]}"


def test_chinese_is_cut_into_bigrams_and_english_drops_stop_words() -> None:
    assert tokens("CUDA 显存不足") == ["cuda", "显", "存", "不", "足", "显存", "存不", "不足"]
    assert tokens("out of memory") == ["out", "memory"]
    assert tokens("CUDA 显存不足", query=True) == ["cuda", "显存", "存不", "不足"]
    assert tokens("卡", query=True) == ["卡"]


def test_a_chinese_query_finds_the_articles_that_contain_it_not_its_characters(
    articles: list[Article],
) -> None:
    found = search_articles(articles, query="显存")
    assert found
    assert all("显存" in (a.title.zh + a.summary.zh + a.cause.zh + a.fix.zh) for a in found)


def test_filters_still_apply_and_no_query_lists_in_id_order(articles: list[Article]) -> None:
    deepspeed = search_articles(articles, library="deepspeed")
    assert deepspeed
    assert all("deepspeed" in a.libraries for a in deepspeed)
    everything = search_articles(articles)
    assert [a.id for a in everything] == sorted(a.id for a in everything)
    assert search_articles(articles, query="zzzqqq xyzzyplugh") == []


def test_drafts_are_never_found(articles: list[Article]) -> None:
    oom = next(a for a in articles if a.id == "cuda-oom")
    draft = oom.model_copy(update={"id": "draft-oom", "status": "draft"})
    found = [a.id for a in search_articles([*articles, draft], query="out of memory")]
    assert "draft-oom" not in found
    assert "draft-oom" not in [a.id for a in search_articles([*articles, draft])]


def test_marked_pieces_highlight_whole_terms_only() -> None:
    pieces = marked("CUDA out of memory in a room", ["oom", "memory"])
    assert [text for text, hit in pieces if hit] == ["memory"]
    assert "".join(text for text, _ in pieces) == "CUDA out of memory in a room"
    assert [t for t, hit in marked("CUDA 显存不足", ["显存"]) if hit] == ["显存"]
