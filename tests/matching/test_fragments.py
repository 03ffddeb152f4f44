"""Pastes without the exception line (issue 18, shape 4): lower confidence and a note.

The lines are KB examples' own lines (output produced here), cut or retyped
the way people paste them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching.fragments import CLOSE_CAP, FOLDED_CAP, MESSAGE_CAP, RAISED_CAP, RAISED_IN
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
        # the quoted "RuntimeError: ..." made an event of its own; the line's start is the wrapper's
        (
            "debug_wrapper raised RuntimeError: Triton Error [CUDA]: invalid argument",
            "torch-compile-backend-failed",
        ),
        (
            "HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded with url: "
            "/Qwen/Qwen2.5-0.5B-Instruct/resolve/main/config.json (Caused by NewConnectionError("
            "\"HTTPConnection(host='127.0.0.1', port=9): Failed to establish a new connection: "
            '[Errno 111] Connection refused"))',
            "hub-connection-max-retries",
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


def test_the_vllm_start_up_wrapper_yields_to_the_engine_error(repository_kb: LiveKb) -> None:
    """vLLM's ``Engine core initialization failed`` wrapper follows the engine's own error."""
    log = (
        b"(EngineCore_0 pid=2211) ERROR 09-10 23:09:12 [core.py:700] EngineCore failed to start.\n"
        b"(EngineCore_0 pid=2211) ERROR 09-10 23:09:12 [core.py:700] "
        b"Traceback (most recent call last):\n"
        b"(EngineCore_0 pid=2211) ERROR 09-10 23:09:12 [core.py:700] torch.OutOfMemoryError: "
        b"CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.11 GiB "
        b"of which 3.06 MiB is free.\n"
        b"Traceback (most recent call last):\n"
        b'  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/utils.py", line 759, '
        b"in wait_for_engine_startup\n"
        b'    raise RuntimeError("Engine core initialization failed. "\n'
        b"RuntimeError: Engine core initialization failed. See root cause above. "
        b"Failed core proc(s): {}\n"
    )
    result = match_text(log, repository_kb.index)
    assert "CUDA out of memory" in result.events[0].message
    wrapper = [e for e in result.events if "Engine core initialization failed" in e.message]
    assert wrapper
    assert all(e.consequence for e in wrapper)
    assert result.top is not None
    assert result.top.article_id == "cuda-oom"


def test_the_dataparallel_wrapper_yields_to_the_replica_error(repository_kb: LiveKb) -> None:
    """``Caught X in replica N on device N.`` follows the replica's own error under it."""
    log = (
        b"Traceback (most recent call last):\n"
        b'  File "/opt/conda/lib/python3.11/site-packages/torch/nn/parallel/parallel_apply.py", '
        b"line 126, in parallel_apply\n"
        b"    output.reraise()\n"
        b'  File "/opt/conda/lib/python3.11/site-packages/torch/_utils.py", line 794, in reraise\n'
        b"    raise exception\n"
        b"RuntimeError: Caught RuntimeError in replica 0 on device 0.\n"
        b"Original Traceback (most recent call last):\n"
        b'  File "/home/user/proj/model.py", line 7, in forward\n'
        b"    return a @ w\n"
        b"RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x8 and 16x4)\n"
    )
    result = match_text(log, repository_kb.index)
    wrapper = [e for e in result.events if "in replica 0 on device 0" in e.message]
    assert wrapper
    assert all(e.consequence for e in wrapper)
    assert [m.article_id for m in result.matches][:2] == [
        "mat1-mat2-shape-mismatch",
        "dataparallel-replica-wrapper",
    ]


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


@pytest.mark.parametrize(
    ("paste", "article", "read"),
    [
        # a respelt pattern hit beats similarity alone
        (
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:275, unhaandled system error (run with NCCL_DEBUG=INFO for details), "
            "NCCL version 2.18.1",
            "nccl-system-error",
            "unhaandled as unhandled",
        ),
        # a typo that let only the general pattern hit: the respelt line earns multi-gpu
        (
            "RuntimeError: Expected all tensors to be on the same device, but got index is on "
            "cuda:0, diffferent from other tensors on cuda:1 (when checking argument in method "
            "wrapper_CUDA__index_select)",
            "device-mismatch-multi-gpu",
            "diffferent as different",
        ),
        # shape "misspelt word": only a quoted span without whitespace is the user's name
        # a contraction's apostrophe opens no quotation: "objeect" sat between 't and 'main
        (
            "AttributeError: Can't pickle local objeect 'main.<locals>.collate'",
            "dataloader-pickle-local-object",
            "objeect as object",
        ),
        # a quoted sentence is the message itself (pyarrow's tuple), not a name
        (
            "pyarrow.lib.ArrowInvalid: ('Could not convvert 1 with type int: tried to convert to "
            "str', 'Conversion failed for column label with type object')",
            "datasets-arrow-invalid",
            "convvert as convert",
        ),
    ],
)
def test_a_respelt_reading_answers_at_low_with_its_note(
    paste: str, article: str, read: str, repository_kb: LiveKb
) -> None:
    match = only(paste, repository_kb)
    assert match.article_id == article
    assert match.score <= CLOSE_CAP
    assert any(read in hint for hint in notes(match))


def cut_at(example: str, start: str) -> tuple[list[str], int]:
    """A KB example's lines and the index of the first that starts with ``start``."""
    lines = (KB_EXAMPLES / example).read_text().split("\n")
    return lines, next(i for i, line in enumerate(lines) if line.startswith(start))


BARRIER = "store-barrier-timeout/torch1x-worker-count-4.log"


def test_a_wrapper_whose_wrapped_traceback_was_cut_is_a_medium_answer(
    repository_kb: LiveKb,
) -> None:
    """mp.spawn's wrapper names the child's error below it; cut before that error, it is all."""
    lines, cut = cut_at(BARRIER, "RuntimeError: Timed out")
    log = "\n".join(lines)
    # cut above the frame that raised: the child's traceback ends in init_process_group's call
    assert lines[cut - 1].strip().startswith("raise RuntimeError(")
    whole, fragment = only(log, repository_kb), only("\n".join(lines[: cut - 2]), repository_kb)
    assert whole.article_id == "store-barrier-timeout"
    assert fragment.article_id == "mp-spawn-errors"
    assert fragment.confidence == "medium"
    assert any("only its wrapper is" in hint for hint in notes(fragment))


def test_a_wrapped_traceback_cut_at_its_raise_names_the_function_s_article(
    repository_kb: LiveKb,
) -> None:
    """Cut at ``raise RuntimeError(`` in ``_store_based_barrier``: that function's one failure."""
    lines, cut = cut_at(BARRIER, "RuntimeError: Timed out")
    found = match_text("\n".join(lines[:cut]), repository_kb.index).matches
    assert [m.article_id for m in found][:2] == ["store-barrier-timeout", "mp-spawn-errors"]
    assert found[0].score <= RAISED_CAP
    assert found[0].confidence == "low"
    assert notes(found[0]) == [RAISED_IN.format("_store_based_barrier")]


def test_a_cut_traceback_without_a_wrapper_exception_gets_no_frame_guess(
    repository_kb: LiveKb,
) -> None:
    """``Killing subprocess`` is no wrapper: torch's launch.py is not DeepSpeed's launcher."""
    lines, cut = cut_at("childfailed/launch-calledprocesserror.log", "subprocess.CalledProcess")
    found = [m.article_id for m in match_text("\n".join(lines[:cut]), repository_kb.index).matches]
    assert "deepspeed-launcher-killed-subprocess" not in found


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


def test_a_quoted_name_stays_as_pasted_beside_a_respelt_word(repository_kb: LiveKb) -> None:
    """``<locals>`` inside the quoted name is not respelt to the vocabulary's ``local``."""
    result = match_text(
        "AttributeError: Can't pickle local objeect 'main.<locals>.collate'", repository_kb.index
    )
    assert result.top is not None
    event = result.events[result.top.event_index]
    assert event.message == "Can't pickle local object 'main.<locals>.collate'"


@pytest.mark.parametrize(
    ("paste", "article", "read"),
    [
        # "Exception" alone is no standalone exception name: the line makes no event
        (
            "Exception: Current loss scale already at minimum - cannot decrrease scale anymore. "
            "Exiting run.",
            "fp16-overflow-loss-scale-min",
            "decrrease as decrease",
        ),
        ("Exception: process 2 termminated with signal SIGKILL", "mp-spawn-errors", None),
        # the message without its class, retyped
        (
            "训练时报错：\nCurrent loss scale already at minimum - cannot decrrease scale anymore.",
            "fp16-overflow-loss-scale-min",
            "decrrease as decrease",
        ),
    ],
)
def test_a_misspelt_line_that_makes_no_event_is_respelt(
    paste: str, article: str, read: str | None, repository_kb: LiveKb
) -> None:
    top = only(paste, repository_kb)
    assert top.article_id == article
    assert top.score <= CLOSE_CAP
    assert read is None or any(read in hint for hint in notes(top))


def test_a_long_paste_does_not_respell_its_loose_lines(repository_kb: LiveKb) -> None:
    """Only a short paste (a retyped message) has its uncovered lines respelt."""
    line = "Exception: Current loss scale already at minimum - cannot decrrease scale anymore."
    filler = [f"step {i} loss 2.3{i % 10}" for i in range(30)]
    assert match_text("\n".join([*filler, line]), repository_kb.index).unknown


def test_a_respelt_line_that_names_no_specialised_article_keeps_its_answer(
    repository_kb: LiveKb,
) -> None:
    """cpu beside cuda:0 is the general article's case, respelt or not, and keeps its score."""
    paste = (
        "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, "
        "diffferent from other tensors on cuda:0 (when checking argument in method "
        "wrapper_CUDA_addmm)"
    )
    top = only(paste, repository_kb)
    assert top.article_id == "device-mismatch-user-code"
    assert not any("as different" in hint for hint in notes(top))


HUB_MESSAGE = (
    "An error happened while trying to locate the file on the Hub and we cannot find the "
    "requested files in the local cache. Please check your connection and try again or make "
    "sure your Internet connection is on."
)


def test_a_lower_cased_line_is_read_without_case_when_that_reads_more_of_it(
    repository_kb: LiveKb,
) -> None:
    """As pasted, only a lower-case fragment of the line hits; the whole sentence hits folded."""
    line = f"huggingface_hub.errors.LocalEntryNotFoundError: {HUB_MESSAGE}".lower()
    found = ids(line, repository_kb)
    assert found[0] == "hub-connection-max-retries"
    assert only(line, repository_kb).score <= FOLDED_CAP


def test_a_natively_lower_case_line_stays_a_medium_answer(repository_kb: LiveKb) -> None:
    """A line printed in lower case hits as much as pasted as folded: message alone answers."""
    top = only(SIZES, repository_kb)
    assert top.article_id == "size-mismatch-load"
    assert FOLDED_CAP < top.score <= MESSAGE_CAP
