"""Pastes without the exception line (issue 18, shape 4): lower confidence and a note.

The lines are KB examples' own lines (output produced here), cut or retyped
the way people paste them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching.fragments import CLOSE_CAP, FOLDED_CAP, MESSAGE_CAP
from app.matching.literals import literal_runs
from app.matching.pipeline import match_text
from app.matching.result import Match
from app.service.kb import LiveKb

SOCKET = (
    "[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29500 "
    "(errno: 98 - Address already in use)."
)
SIZES = (
    "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32001, 4096]) "
    "from checkpoint, the shape in current model is torch.Size([32000, 4096])."
)
KB_EXAMPLES = Path(__file__).resolve().parents[2] / "kb" / "examples"
OOM = "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total capacity of 39.38 GiB"


def only(text: str, live: LiveKb) -> Match:
    result = match_text(text, live.index)
    assert result.top is not None, "no article matched"
    return result.top


def notes(match: Match) -> list[str]:
    return [e.hint for e in match.evidence if e.kind == "note"]


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (SOCKET, "addr-in-use"),
        (SIZES + "\n" + SIZES.replace("lm_head", "model.embed_tokens"), "size-mismatch-load"),
        (
            "训练一开始就挂了：\nExpected all tensors to be on the same device, but got mat1 is on "
            "cpu, different from other tensors on cuda:0 (when checking argument in method "
            "wrapper_CUDA_addmm)",
            "device-mismatch-user-code",
        ),
    ],
)
def test_a_message_without_its_exception_line_is_matched_at_medium_at_best(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    top = only(paste, repository_kb)
    assert top.article_id == article
    assert top.score <= MESSAGE_CAP
    assert top.confidence != "high"
    assert notes(top)[-1] == "the exception line is not in the paste: matched on the message alone"


def test_a_lower_cased_message_is_matched_at_low_confidence(repository_kb: LiveKb) -> None:
    top = only("torch.outofmemoryerror: " + OOM.lower(), repository_kb)
    assert top.article_id == "cuda-oom"
    assert top.score <= FOLDED_CAP
    assert top.confidence == "low"
    assert notes(top) == ["the message matched only when its case is ignored"]


@pytest.mark.parametrize(
    ("name", "article"),
    [
        ("evaluation_strategy", "trainingargs-evaluation-strategy"),
        ("lora_rank", "hfargparser-unused-arguments"),
    ],
)
def test_an_exclude_pattern_vetoes_a_lower_cased_match_too(
    name: str, article: str, repository_kb: LiveKb
) -> None:
    """The general article steps aside for the rename it excludes, with case ignored as well."""
    message = "Some specified arguments are not used by the HfArgumentParser"
    line = f"ValueError: {message}: ['--{name}', '8']"
    top = only(line.lower(), repository_kb)
    assert top.article_id == article
    assert top.score <= FOLDED_CAP


def test_a_misspelt_word_is_read_as_the_kb_spells_it(repository_kb: LiveKb) -> None:
    top = only("RuntimeError: chunk expects at least a 1-dimensional tennsor", repository_kb)
    assert top.article_id == "ddp-scalar-chunk"
    assert top.score <= CLOSE_CAP
    assert top.confidence == "low"
    assert notes(top) == [
        "the message matched once a misspelt word was read as the KB spells it: tennsor as tensor"
    ]


@pytest.mark.parametrize(
    "paste",
    [
        "cuda out of memory? no, training finished fine",
        "we use torch.distributed with nccl and it works",
        "RuntimeError: chunk expects `chunks` to be greater than 0, got: 0",
        "ValueError: the tokenizer has no pad token id and we set it to eos",
        "Training finished. Peak memory 38.2 GiB of 39.38 GiB.",
    ],
)
def test_what_is_not_a_known_failure_stays_unmatched(paste: str, repository_kb: LiveKb) -> None:
    assert match_text(paste, repository_kb.index).unknown


def test_a_traceback_cut_before_its_exception_line_gets_no_guess(repository_kb: LiveKb) -> None:
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/w/train.py", line 12, in <module>\n    loss.backward()\n'
        '  File "/v/torch/_tensor.py", line 626, in backward\n    torch.autograd.backward(\n'
    )
    result = match_text(frames, repository_kb.index)
    assert result.unknown
    assert "traceback without an exception line (cut off or interleaved)" in result.events[0].notes


def test_literal_runs_keep_escaped_punctuation_and_stop_at_operators() -> None:
    assert literal_runs(r"CUDA out of memory\. Tried to allocate (?:\d+)") == [
        "CUDA out of memory. Tried to allocate ",
        ":",
    ]
    runs = literal_runs(r"size mismatch for [\w.\-]{1,200}: copying")
    assert runs[0] == "size mismatch for "
    assert runs[-1] == ": copying"


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (
            "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: "
            "[211,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
            "device-side-assert",
        ),
        (
            "gpu-node07:31822:31901 [3] NCCL WARN Error while creating shared memory segment "
            "/dev/shm/nccl-7Qv4Ab (size 9637888)",
            "nccl-system-error",
        ),
        (
            "Root Cause (first observed failure):\n[0]:\n  time      : 2026-11-22_00:47:34\n"
            "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 13449)\n",
            "childfailed",
        ),
    ],
)
def test_lines_that_accompany_an_exception_are_answered_below_high(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    top = only(paste, repository_kb)
    assert top.article_id == article
    assert top.confidence != "high"
    assert any(note.startswith("the exception line is not in the paste") for note in notes(top))


def test_a_respelt_message_is_read_in_place(repository_kb: LiveKb) -> None:
    result = match_text(
        "RuntimeError: chunk expects at least a 1-dimensional tennsor", repository_kb.index
    )
    assert len(result.events) == 1
    assert result.events[0].root_cause
    assert result.events[0].message == "chunk expects at least a 1-dimensional tensor"


def test_a_lower_cased_line_still_earns_a_specialised_article_by_its_context(
    repository_kb: LiveKb,
) -> None:
    line = (
        "runtimeerror: expected all tensors to be on the same device, but found at least two "
        "devices, cuda:1 and cuda:0! (when checking argument for argument index in method "
        "wrapper_cuda__index_select)"
    )
    top = only(line, repository_kb)
    assert top.article_id == "device-mismatch-multi-gpu"
    assert top.confidence == "low"


def test_a_quoted_key_is_data_not_a_misspelt_word(repository_kb: LiveKb) -> None:
    """``KeyError: 'label'`` from the user's own dict is not ``labels`` misspelt."""
    log = (
        b"Traceback (most recent call last):\n"
        b'  File "t.py", line 9, in collate\n'
        b"KeyError: 'label'\n"
    )
    assert match_text(log, repository_kb.index).top is None


def test_the_compiler_wrapper_yields_to_the_error_it_wraps(repository_kb: LiveKb) -> None:
    """``BackendCompilerFailed: backend='inductor' raised:`` then the real error: that one leads."""
    log = (
        b"[rank1]: torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        b"[rank1]: RuntimeError: Cannot find a working triton installation.\n"
    )
    result = match_text(log, repository_kb.index)
    assert result.events[0].exception == "RuntimeError"
    assert result.events[1].consequence


def test_the_dcp_wrapper_yields_to_the_rank_error_it_wraps(repository_kb: LiveKb) -> None:
    """DCP's ``CheckpointException ranks:...`` prints each rank's traceback: that error leads."""
    log = (
        b"torch.distributed.checkpoint.api.CheckpointException: "
        b"CheckpointException ranks:dict_keys([0])\n"
        b"Traceback (most recent call last): (RANK 0)\n"
        b'  File "/venv/lib/python3.11/site-packages/torch/distributed/checkpoint/'
        b'default_planner.py", line 495, in create_default_local_load_plan\n'
        b'    raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")\n'
        b"RuntimeError: Missing key in checkpoint state_dict: model.layer.weight.\n"
    )
    result = match_text(log, repository_kb.index)
    assert result.events[0].exception == "RuntimeError"
    assert result.events[1].consequence
    assert result.top is not None
    assert result.top.article_id == "dcp-missing-key"


def ids(text: str, live: LiveKb) -> list[str]:
    return [m.article_id for m in match_text(text, live.index).matches]


@pytest.mark.parametrize(
    ("paste", "article", "never"),
    [
        # gpu-xid-fallen-off-bus requires its context (an Xid in the kernel log)
        (
            "runtimeerror: cuda error: unspecified launch failure",
            "unspecified-launch-failure",
            "gpu-xid-fallen-off-bus",
        ),
        # trl-config-renamed-fields excludes the tokenizer keyword: its neighbour's case
        (
            "typeerror: sfttrainer.__init__() got an unexpected keyword argument 'tokenizer'",
            "trainer-tokenizer-processing-class",
            "trl-config-renamed-fields",
        ),
    ],
)
def test_a_lower_cased_line_keeps_the_required_context_and_the_excludes(
    paste: str, article: str, never: str, repository_kb: LiveKb
) -> None:
    found = ids(paste, repository_kb)
    assert found[0] == article
    assert never not in found


FLASH_UNDEFINED = (
    "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64"
    "-linux-gnu.so: undeefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEE"
)


def test_a_respelt_reading_keeps_the_lead_that_context_earned(repository_kb: LiveKb) -> None:
    """Capping keeps the order: flash_attn's own article stays above the general one."""
    found = ids(FLASH_UNDEFINED, repository_kb)
    assert found[0] == "flash-attn-import"
    assert "broken-install-undefined-symbol" not in found  # its exclude reads the respelt line


def test_a_respelt_pattern_hit_beats_similarity_alone(repository_kb: LiveKb) -> None:
    paste = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "NCCLUtils.hpp:275, unhaandled system error (run with NCCL_DEBUG=INFO for details), "
        "NCCL version 2.18.1"
    )
    match = only(paste, repository_kb)
    assert match.article_id == "nccl-system-error"
    assert match.score <= CLOSE_CAP
    assert any("unhaandled as unhandled" in hint for hint in notes(match))


def test_a_wrapper_whose_wrapped_traceback_was_cut_is_a_medium_answer(
    repository_kb: LiveKb,
) -> None:
    """mp.spawn's wrapper names the child's error below it; cut before that error, it is all."""
    log = (KB_EXAMPLES / "store-barrier-timeout" / "torch1x-worker-count-4.log").read_text()
    lines = log.split("\n")
    cut = next(i for i, line in enumerate(lines) if line.startswith("RuntimeError: Timed out"))
    whole, fragment = only(log, repository_kb), only("\n".join(lines[:cut]), repository_kb)
    assert whole.article_id == "store-barrier-timeout"
    assert fragment.article_id == "mp-spawn-errors"
    assert fragment.confidence == "medium"
    assert any("only its wrapper is" in hint for hint in notes(fragment))


def test_a_lower_cased_line_does_not_bypass_context_required(repository_kb: LiveKb) -> None:
    """unknown-model-type needs its context for a bare ``KeyError: '<name>'``, folded or not."""
    exact = b"KeyError: 'llava_qwen'\n"
    folded = b"keyerror: 'llava_qwen' when i start the training script\n"
    for paste in (exact, folded):
        ids = [m.article_id for m in match_text(paste, repository_kb.index).matches]
        assert "unknown-model-type" not in ids


def test_a_lower_cased_reading_still_honours_exclude_signatures(repository_kb: LiveKb) -> None:
    """A -9 after a Slurm time limit is the scheduler's kill, not the OOM killer: vetoed."""
    log = (
        b"slurmstepd: error: *** JOB 771204 ON gpu-a17 CANCELLED AT 2026-11-20T23:59:58 "
        b"DUE TO TIME LIMIT ***\n"
        b"W1120 23:59:58.611000 51022 torch/distributed/elastic/multiprocessing/api.py:1028] "
        b"Sending process 51091 closing signal SIGTERM\n"
        b"E1121 00:00:28.702000 51022 torch/distributed/elastic/multiprocessing/api.py:1002] "
        b"failed (exitcode: -9) local_rank: 1 (pid: 51091) of binary: /opt/venv/bin/python3\n"
    )
    ids = [m.article_id for m in match_text(log, repository_kb.index).matches]
    assert "host-oom-killed-rank" not in ids
    without_slurm = log.split(b"\n", 1)[1]
    top = match_text(without_slurm, repository_kb.index).top
    assert top is not None
    assert top.article_id == "host-oom-killed-rank"


WRAPPED_ONLY = "\n".join(
    [
        "my rank 1 printed: index out of range in self",
        "[2026-11-25 10:00:05,117] torch.distributed.elastic.multiprocessing.api: [ERROR] failed "
        "(exitcode: 1) local_rank: 1 (pid: 4242) of binary: /usr/bin/python3",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "Root Cause (first observed failure):",
        "[0]:",
        "  rank      : 1 (local_rank: 1)",
        "  exitcode  : 1 (pid: 4242)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    ]
)


def test_a_wrapper_yields_to_the_cause_a_fallback_finds(repository_kb: LiveKb) -> None:
    """The launcher's wrapper is a consequence: the pasted cause line comes first."""
    found = ids(WRAPPED_ONLY, repository_kb)
    assert found[:2] == ["embedding-index-out-of-range-cpu", "childfailed"]
