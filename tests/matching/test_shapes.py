"""Pastes as people write them (issue 18): the error inside prose, Markdown, chat and launchers.

Every paste here is an error line produced here (a KB example's own line)
wrapped by hand in one shape; the negatives are prose that names a library or
an exception without failing, and runs that survived a warning.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.matching.chat import as_printed
from app.matching.events import extract_events
from app.matching.inline import find_quoted
from app.matching.pipeline import match_text
from app.matching.tracebacks import is_header, parse_frame
from app.service.kb import LiveKb

CHUNK = "RuntimeError: chunk expects at least a 1-dimensional tensor"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a "
    "total capacity of 39.38 GiB of which 6.50 MiB is free."
)
DEVICES = (
    "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, "
    "different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"
)


def top(text: str, live: LiveKb) -> str | None:
    result = match_text(text, live.index)
    return result.top.article_id if result.top else None


@pytest.mark.parametrize(
    "paste",
    [
        f"I get `{CHUNK}` when I train with 2 GPUs",
        f"训练时报错：{CHUNK}",
        f"训练时报错{CHUNK}，怎么办？",
        f"raised error: {CHUNK}",
        f'the log says "{CHUNK}" and stops',
        f"日志最后一行是“{CHUNK}”",
        f"**{CHUNK}**",
        f"_{CHUNK}_",
        f"### {CHUNK}",
        f"> {CHUNK}",
        f"- {CHUNK}",
        f"1. {CHUNK}",
        f"stderr: {CHUNK}",
        f"Error: {CHUNK}",
        f"报错信息：{CHUNK}",
        'raise RuntimeError("chunk expects at least a 1-dimensional tensor")',
        "RuntimeError('chunk expects at least a 1-dimensional tensor')",
        "RuntimeError：chunk expects at least a 1-dimensional tensor",
    ],
)
def test_an_error_line_inside_other_text_matches(paste: str, repository_kb: LiveKb) -> None:
    assert top(paste, repository_kb) == "ddp-scalar-chunk"


def test_the_quoted_event_says_so_and_keeps_the_prose_out(repository_kb: LiveKb) -> None:
    result = match_text(f"I get `{CHUNK}` when I train with 2 GPUs\nany idea?", repository_kb.index)
    event = result.events[result.matches[0].event_index]
    assert event.error_text == CHUNK
    assert event.message == "chunk expects at least a 1-dimensional tensor"
    assert "the error line was quoted inside other text" in event.notes
    assert (event.error_line_start, event.error_line_end) == (1, 1)


def test_inner_code_does_not_close_the_quotation() -> None:
    quoted = find_quoted("I get `RuntimeError: chunk expects `chunks` to be > 0, got: 0` here")
    assert quoted is not None
    assert quoted.message == "chunk expects `chunks` to be > 0, got: 0"


def test_full_width_punctuation_inside_the_message(repository_kb: LiveKb) -> None:
    wide = DEVICES.replace(", ", "，").replace("Error: ", "Error：")
    assert top(wide, repository_kb) == "device-mismatch-user-code"
    assert as_printed("设备不一致，cuda:0 和 cpu") == "设备不一致, cuda:0 和 cpu"


def test_a_markdown_link_inside_a_path_is_the_file_name() -> None:
    line = "OSError: /usr/lib/[libcudart.so](http://libcudart.so).12: cannot open shared object"
    assert as_printed(line) == "OSError: /usr/lib/libcudart.so.12: cannot open shared object"


def test_a_fenced_log_between_prose_lines(repository_kb: LiveKb) -> None:
    paste = f"Hi, training crashed:\n\n```text\n[default3]:{OOM}\n```\n\nThanks!"
    assert top(paste, repository_kb) == "cuda-oom"


@pytest.mark.parametrize(
    "prefix",
    [
        "(RayTrainWorker pid=4123, ip=10.0.0.5) ",
        "trainer-1  | ",
        "[pod/trainer-0/pytorch] ",
        "0: ",
        "worker-3: ",
        "2026-11-25T10:00:01.1234567Z ",
        "> ",
    ],
)
def test_launcher_prefixes_on_a_traceback(prefix: str, repository_kb: LiveKb) -> None:
    lines = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/w/train.py", line 12, in <module>',
        "[rank1]:     out = model(x)",
        f"[rank1]: {DEVICES}",
    ]
    paste = "\n".join(prefix + line for line in lines) + " [repeated 6x across cluster]"
    result = match_text(paste, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "device-mismatch-user-code"
    assert result.events[0].ranks == (1,)


@pytest.mark.parametrize(
    "paste",
    [
        "We train with torch 2.4 and DeepSpeed ZeRO-3 on 8 GPUs; NCCL is 2.21. Any tips?",
        "How do I catch a RuntimeError in my training loop?",
        "I read the docs about `CUDA out of memory` but my run works fine now, thanks!",
        "WARNING: retrying after RuntimeError: chunk expects at least a 1-dimensional tensor",
        "> UserWarning: torch.cuda.amp.GradScaler is deprecated, use torch.amp.GradScaler\n"
        "> step 100 loss 0.12\n> training finished",
        "- `pip install flash-attn` worked, and `torchrun` ran to the end",
        "训练正常结束，没有报错。用的是 transformers 4.57 和 accelerate。",
    ],
)
def test_prose_without_a_failure_matches_nothing(paste: str, repository_kb: LiveKb) -> None:
    assert top(paste, repository_kb) is None


def test_a_shared_message_alone_names_the_general_article_first(repository_kb: LiveKb) -> None:
    bare = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu!"
    )
    result = match_text(bare, repository_kb.index)
    ids = [m.article_id for m in result.matches]
    assert ids[:2] == ["device-mismatch-user-code", "device-mismatch-cpu-offload"]
    notes = [e.hint for e in result.matches[0].evidence if e.kind == "note"]
    assert notes == [
        "device-mismatch-cpu-offload instead if the log shows deepspeed/runtime/zero/stage3.py, "
        "unscale_and_clip_grads, fp32_partitioned_groups_flat"
    ]
    offload = (
        'Traceback (most recent call last):\n  File "/v/deepspeed/runtime/zero/stage3.py", '
        f"line 2117, in unscale_and_clip_grads\n    self.x.mul_(y)\n{bare}"
    )
    assert top(offload, repository_kb) == "device-mismatch-cpu-offload"  # earned by its context


def test_an_explanatory_event_beats_its_symptom_in_a_chain() -> None:
    log = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/v/torch/serialization.py", line 628, in save',
            "    _save(obj, opened_zipfile, pickle_module, pickle_protocol)",
            "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter "
            "failed writing file data/3: file write failed",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            '  File "/w/train.py", line 88, in <module>',
            "    torch.save(state, path)",
            '  File "/v/torch/serialization.py", line 627, in save',
            "    with _open_zipfile_writer(f) as opened_zipfile:",
            "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 3149248 vs "
            "3149136",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            '  File "/w/train.py", line 90, in <module>',
            "    os.fsync(handle)",
            "OSError: [Errno 28] No space left on device",
        ]
    )
    events = extract_events(log.split("\n"))
    assert [e.chain_depth for e in events] == [2, 0, 1]  # printed last, read first
    assert events[0].root_cause
    assert (events[0].exception, events[0].message) == (
        "OSError",
        "[Errno 28] No space left on device",
    )


def test_ipython_source_lines_and_frames_alone_are_no_errors(repository_kb: LiveKb) -> None:
    listing = (
        "Cell In[3], line 5\n      4 x = torch.randn(4, 10)\n"
        "----> 5 raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(\n"
    )
    assert match_text(listing, repository_kb.index).unknown
    commented = (
        "Traceback (most recent call last):\n"
        '  File "/w/train.py", line 15, in <module>\n'
        '    loss.backward(retain_graph=True)  # after "Trying to backward through the graph '
        'a second time"\n'
    )
    assert match_text(commented, repository_kb.index).unknown


def _logged_then_fatal(progress_lines: int) -> str:
    survived = [
        "ERROR:__main__:evaluation failed, skipping this round",
        "Traceback (most recent call last):",
        '  File "/w/train.py", line 50, in evaluate',
        "    preds = model.generate(**batch)",
        "KeyError: 'labels'",
    ]
    steps = [f"step {n} loss {1.5 - n / 100:.4f} lr 2.0e-05" for n in range(progress_lines)]
    fatal = [
        "Traceback (most recent call last):",
        '  File "/w/train.py", line 80, in <module>',
        "    loss.backward()",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
        "total capacity of 79.19 GiB of which 1.09 GiB is free.",
    ]
    return "\n".join(["step 0 loss 1.5000", *survived, *steps, *fatal])


def test_a_traceback_the_run_survived_does_not_beat_the_fatal_one() -> None:
    events = extract_events(_logged_then_fatal(45).split("\n"))
    assert events[0].exception == "torch.OutOfMemoryError"
    assert events[1].exception == "KeyError"
    close = extract_events(_logged_then_fatal(3).split("\n"))  # no sign it kept running
    assert close[0].exception == "KeyError"


@given(st.text(max_size=400))
def test_reading_a_line_never_raises_and_keeps_it_one_line(line: str) -> None:
    line = line.replace("\n", " ")
    assert "\n" not in as_printed(line)
    quoted = find_quoted(line)
    assert quoted is None or quoted.name in line


@pytest.mark.parametrize(
    "hostile",
    [
        "`" * 100_000,
        "aError(" * 20_000,
        "x.y." * 30_000 + "RuntimeError: " + "`a " * 30_000,
        "**" + "ValueError: " * 10_000,
        "[a](http://" + "(" * 50_000,
        "，：" * 50_000,
    ],
    ids=lambda s: repr(s[:12]),
)
def test_hostile_lines_are_read_in_linear_time(hostile: str) -> None:
    start = time.perf_counter()
    find_quoted(hostile)
    as_printed(hostile)
    assert time.perf_counter() - start < 0.5


NOTEBOOK_CHAIN = "\n".join(
    [
        "---------------------------------------------------------------------------",
        "ConnectionRefusedError                    Traceback (most recent call last)",
        "File /opt/venv/lib/python3.11/site-packages/urllib3/connection.py:198, in _new_conn(self)",
        "    197 try:",
        "--> 198     sock = connection.create_connection(",
        "    199         (self._dns_host, self.port),",
        "",
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "---------------------------------------------------------------------------",
        "ConnectionError                           Traceback (most recent call last)",
        "Cell In[4], line 3",
        "      1 from transformers import AutoConfig",
        "----> 3 AutoConfig.from_pretrained('Qwen/Qwen2.5-0.5B')",
        "",
        "File /opt/venv/lib/python3.11/site-packages/requests/adapters.py:700, in send(self, "
        "request, stream, timeout)",
        "--> 700     raise ConnectionError(e, request=request)",
        "",
        "ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
        "exceeded with url: /Qwen/Qwen2.5-0.5B/resolve/main/config.json (Caused by "
        "NewConnectionError('Failed to establish a new connection: [Errno 111] Connection "
        "refused'))",
    ]
)


def test_an_ipython_chain_is_one_traceback_with_its_frames() -> None:
    """A notebook prints the chain in its own shape: one event, cause first, frames kept."""
    events = extract_events(NOTEBOOK_CHAIN.split("\n"))
    assert [(e.exception, e.chain_depth, e.root_cause) for e in events] == [
        ("ConnectionRefusedError", 0, True),
        ("ConnectionError", 1, False),
    ]
    outer = next(e for e in events if e.exception == "ConnectionError")
    assert [(f.path, f.lineno, f.function) for f in outer.frames] == [
        ("Cell In[4]", 3, "<module>"),
        ("/opt/venv/lib/python3.11/site-packages/requests/adapters.py", 700, "send"),
    ]
    assert "Max retries exceeded" in outer.error_text


def test_an_ipython_chain_keeps_the_exclude_of_its_neighbour(repository_kb: LiveKb) -> None:
    """The hub-offline article yields to max-retries when the chain says the network refused."""
    result = match_text(NOTEBOOK_CHAIN, repository_kb.index)
    assert top(NOTEBOOK_CHAIN, repository_kb) == "hub-connection-max-retries"
    assert "hub-offline-local-entry" not in [m.article_id for m in result.matches]


@pytest.mark.parametrize(
    "line",
    [
        "File is large, in my experience, so I split it",
        "File /tmp/a b.py:3, in f()",
        "Cell In[3] is where it fails",
        "NOTE                      Traceback (most recent call last) follows",
    ],
)
def test_prose_that_looks_like_ipython_is_no_frame_or_header(line: str) -> None:
    assert parse_frame(line) is None
    assert not is_header(line)


@pytest.mark.parametrize(
    "paste",
    [
        "pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 2 but got length 4",
        'raise pyarrow.lib.ArrowInvalid("Column 1 named input_ids expected length 2 but got '
        'length 4")',
        "map() fails with `pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 2 "
        "but got length 4` on my dataset",
    ],
)
def test_pyarrow_s_invalid_is_an_exception_line_of_its_own(
    paste: str, repository_kb: LiveKb
) -> None:
    """``ArrowInvalid`` ends in neither Error nor Exception, yet it is what datasets.map raises."""
    result = match_text(paste, repository_kb.index)
    assert result.events[0].exception == "pyarrow.lib.ArrowInvalid"
    assert top(paste, repository_kb) == "datasets-arrow-invalid"


RICH = "\n".join(
    [
        "╭───────────────────── Traceback (most recent call last) ──────────────────────╮",
        "│ /home/u/train.py:353 in <module>                                             │",
        "│                                                                              │",
        "│ ❱ 353 │   main()                                                             │",
        "│                                                                              │",
        "│ /opt/conda/lib/python3.10/site-packages/torch/nn/parallel/distributed.py:1643 │",
        "│ in forward                                                                   │",
        "│ ❱ 1643 │   │   inputs, kwargs = self._pre_forward(*inputs, **kwargs)         │",
        "╰──────────────────────────────────────────────────────────────────────────────╯",
        "RuntimeError: Expected to have finished reduction in the prior iteration before",
        "starting a new one. This error indicates that your module has parameters that",
        "were not used in producing loss.",
    ]
)


def test_a_rich_traceback_is_one_event_and_its_wrapped_message_matches(
    repository_kb: LiveKb,
) -> None:
    """rich draws a box around the frames and wraps the message at the terminal's width."""
    events = extract_events(RICH.split("\n"))
    assert len(events) == 1
    assert events[0].exception == "RuntimeError"
    assert [(f.path, f.lineno) for f in events[0].frames] == [
        ("/home/u/train.py", 353),
        ("/opt/conda/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", 1643),
    ]
    result = match_text(RICH, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "ddp-unused-params"
    assert any(e.kind == "error" for e in result.top.evidence)  # the unwrapped message hit


def test_a_specialised_article_with_its_context_goes_above_the_general_one(
    repository_kb: LiveKb,
) -> None:
    """A watchdog timeout is nccl-timeout's; beside RTX 4090s, rtx40-p2p-hang's (issue 18 rule)."""
    watchdog = (
        "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=2, OpType=BROADCAST, NumelIn=2, NumelOut=2, "
        "Timeout(ms)=600000) ran for 600124 milliseconds before timing out."
    )
    assert top(watchdog, repository_kb) == "nccl-timeout"
    names = "GPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n"
    result = match_text(names + watchdog, repository_kb.index)
    ids = [m.article_id for m in result.matches]
    assert ids[:2] == ["rtx40-p2p-hang", "nccl-timeout"]
    assert result.matches[0].score > result.matches[1].score


def test_a_progress_bar_between_frame_lines_is_no_exception() -> None:
    """Another rank's ``Map: 100%|...`` printed inside a traceback is not an exception "Map"."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/w/train.py", line 9, in <module>',
        "Map: 100%|██████████| 2/2 [00:00<00:00, 87.56 examples/s]",
        "    ds = ds.map(tokenize, remove_columns=['text'])",
        "ValueError: Column to remove ['text'] not in the dataset.",
    ]
    events = extract_events(lines)
    assert [e.exception for e in events] == ["ValueError"]
    assert events[0].root_cause


@pytest.mark.parametrize(
    ("message", "article"),
    [
        ("backend='inductor' raised:", "torch-compile-backend-failed"),
        (
            "401 Client Error. (Request ID: Root=1-687696a1-3f66c2915b2296982727aed2;"
            "b08e9476-dba2-42d6-b24a-18232fe32042)",
            "hub-gated-repo",
        ),
        ("Column 'text' doesn't exist.", "datasets-column-not-in-dataset"),
        (
            "__init__() got an unexpected keyword argument 'use_rslora'",
            "peft-adapter-config-newer-version",
        ),
    ],
)
def test_a_message_pasted_without_its_class_names_its_article(
    message: str, article: str, repository_kb: LiveKb
) -> None:
    """Shape "no exception class": the articles' patterns no longer need the class to read it."""
    result = match_text(f"报错信息如下\n{message}", repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == article
    assert result.top.confidence != "high"


@pytest.mark.parametrize(
    "paste",
    [
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://a.example/v1",
        "FileNotFoundError: The file 'data.csv' doesn't exist.",
        "TypeError: __init__() got an unexpected keyword argument 'use_cache_dir'",
        "the logs say backend is ready and the server raised no error",
    ],
)
def test_the_widened_patterns_keep_their_neighbours_out(paste: str, repository_kb: LiveKb) -> None:
    assert top(paste, repository_kb) is None


HUB_UNREACHABLE = (
    "An error happened while trying to locate the file on the Hub and we cannot find the "
    "requested files in the local cache. Please check your connection and try again or make "
    "sure your Internet connection is on."
)


def test_the_hub_s_connection_message_is_the_unreachable_hub_s(repository_kb: LiveKb) -> None:
    """huggingface_hub raises it for a connection issue, never in offline mode.

    Offline mode says "outgoing traffic has been disabled"; the offline article
    no longer claims the connection message as its own, so the message alone
    (its class dropped) names the unreachable Hub, not the empty offline cache.
    """
    for paste in (HUB_UNREACHABLE, f"LocalEntryNotFoundError: {HUB_UNREACHABLE}"):
        ids = [m.article_id for m in match_text(paste, repository_kb.index).matches]
        assert ids[0] == "hub-connection-max-retries"
        assert "hub-offline-local-entry" not in ids
    offline = (
        "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in the "
        "disk cache and outgoing traffic has been disabled. To enable hf.co look-ups and "
        "downloads online, set 'local_files_only' to False."
    )
    assert top(offline, repository_kb) == "hub-offline-local-entry"
