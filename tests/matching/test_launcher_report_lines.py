"""Issue 18: launcher and engine lines pasted without an exception line, and xtuner's wrapper.

Each shape is composed from output produced here (torchrun 2.13 CPU with a
worker that aborts, ray 2.60 with an actor whose ``__init__`` raises) or from
the library's own wording (DeepSpeed's ``sigkill_handler``, vLLM's
``_wait_until_pg_ready``, xtuner's ``cli()``); beside each, the neighbours
that must not be read as the failure.
"""

from __future__ import annotations

import pytest

from app.matching.fragments import REPORT_CAP, REPORTING
from app.matching.inline import logged_failure
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

SIGNAL = "  traceback : Signal 6 (SIGABRT) received by PID 11204"
TITLE = "/workspace/trl/trl/commands/scripts/sft.py FAILED"
KILLING = (
    "[2026-11-26 01:14:03,217] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 12476"
)
CREATION = (
    "(LLMRayActor pid=14350) Exception raised in creation task: The actor died because of an "
    "error raised in its creation task, ray::LLMRayActor.__init__() (pid=14350, ip=192.0.2.2, "
    "actor_id=0750a4994935dd0d3521e9e701000000, repr=<actor.LLMRayActor object at 0x7fbb7518f7d0>)"
)
SPECS = (
    "specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes` to see if you "
    "have enough resources, and make sure the IP addresses used by ray cluster are the same as "
    "VLLM_HOST_IP environment variable specified in each node if you are running on a multi-node."
)
WAIT = (
    "(EngineCore_DP0 pid=84) INFO 06-07 18:13:55 [ray_utils.py:464] Waiting for creating a "
    f"placement group of specs for 10 seconds. {SPECS}"
)
OLD_WAIT = (
    "INFO 04-01 02:46:00 ray_utils.py:214] Waiting for creating a placement group of specs for "
    f"10 seconds. {SPECS}"
)


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (SIGNAL, "childfailed"),
        (TITLE, "childfailed"),
        ("sft.py FAILED", "childfailed"),
        ("  exitcode  : 1 (pid: 11204)\n  error_file: <N/A>", "childfailed"),
        (KILLING, "deepspeed-launcher-killed-subprocess"),
        ("pdsh 节点上只有这一行：\n" + KILLING, "deepspeed-launcher-killed-subprocess"),
        (CREATION, "ray-actor-died-wrapper"),
        (WAIT, "ray-resources-unschedulable"),
        (OLD_WAIT, "ray-resources-unschedulable"),
        (f"Waiting for creating a placement group of specs for 30 seconds. {SPECS}", None),
    ],
)
def test_a_report_line_alone_is_a_low_answer(
    paste: str, article: str | None, repository_kb: LiveKb
) -> None:
    article = article or "ray-resources-unschedulable"
    result = match_text(paste, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == article
    assert result.top.score <= REPORT_CAP
    assert result.top.confidence == "low"
    assert REPORTING in [e.hint for e in result.top.evidence if e.kind == "note"]


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # pytest, Ant and a script's own sentence: no torchrun title
        ("tests/test_train.py::test_step FAILED", "childfailed"),
        ("BUILD FAILED", "childfailed"),
        ("run_tests.py FAILED: see the report above", "childfailed"),
        ("why does torchrun print sft.py FAILED twice?", "childfailed"),
        # the failure's own exception line is in the paste: the report is its echo
        (f"{SIGNAL}\nValueError: shard 3 failed its checksum", "childfailed"),
        # torch.distributed.launch before torchrun printed the same words without the tag
        ("Killing subprocess 12476", "deepspeed-launcher-killed-subprocess"),
        # someone logging the launcher's line again, at their own level
        ("WARNING: " + KILLING.split("] ", 3)[-1], "deepspeed-launcher-killed-subprocess"),
        # the launcher itself was sent SIGTERM: the job was stopped from outside
        (
            KILLING + "\n[2026-11-26 01:14:03,221] [INFO] [launch.py:262:sigkill_handler] "
            "Main process received SIGTERM, exiting",
            "deepspeed-launcher-killed-subprocess",
        ),
        # the actor's own traceback under its line: that error is the answer
        (
            CREATION + "\n(LLMRayActor pid=14350) TypeError: EngineArgs.__init__() got an "
            "unexpected keyword argument 'worker_use_ray'",
            "ray-actor-died-wrapper",
        ),
        # prose about the wait, without vLLM's line
        ("vLLM says it is waiting for creating a placement group, is that normal?", None),
        # the wait passed (the model loaded) and an unrelated exception ended the engine
        (
            f"{WAIT}\n(EngineCore_DP0 pid=84) INFO 06-07 18:14:21 [gpu_model_runner.py:1595] "
            "Model loading took 14.99 GiB and 9.41 seconds\n"
            "(EngineCore_DP0 pid=84) KeyError: 'model.layers.0.mlp.gate_up_proj.weight'",
            None,
        ),
    ],
)
def test_a_report_line_that_is_no_failure_is_no_answer(
    paste: str, article: str | None, repository_kb: LiveKb
) -> None:
    article = article or "ray-resources-unschedulable"
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id != article for m in result.matches)


XTUNER = "05/30 18:04:29 - mmengine - WARNING - WARNING: command error: '{}'!"


def test_xtuner_command_error_is_read_as_the_message_inside(repository_kb: LiveKb) -> None:
    inner = "module 'cv2.dnn' has no attribute 'DictValue'"
    assert logged_failure(XTUNER.format(inner)) == inner
    for paste in (XTUNER.format(inner), f"WARNING: command error: '{inner}'!"):
        result = match_text(paste, repository_kb.index)
        assert result.top is not None
        assert result.top.article_id == "opencv-dictvalue-conflict"
        assert result.top.confidence != "high"


@pytest.mark.parametrize(
    "paste",
    [
        XTUNER.format("[Errno 2] No such file or directory: 'data/alpaca.json'"),
        "05/30 18:04:29 - mmengine - WARNING - WARNING: command error!",  # unknown mode
        # a logger warning that quotes the message without xtuner's wrapper was survived
        "05/30 18:04:29 - mmengine - WARNING - module 'cv2.dnn' has no attribute 'DictValue'",
        "xtuner prints WARNING: command error when cv2 is broken, see the opencv issue",
    ],
)
def test_xtuner_lines_without_a_known_message_are_no_answer(
    paste: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id != "opencv-dictvalue-conflict" for m in result.matches)


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        ("ImportError: No module named swift.llm", "module-not-found-launcher-interpreter"),
        ("ImportError: No module named torch", "module-not-found-launcher-interpreter"),
        (
            "OSError: Unable to load weights from pytorch checkpoint file for "
            "'out/pytorch_model.bin' at 'out/pytorch_model.bin'. If you tried to load a PyTorch "
            "model from a TF 2.0 checkpoint, please set from_tf=True.",
            "checkpoint-truncated-zip",
        ),
    ],
)
def test_widened_wordings_answer_below_high(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == article
    assert result.top.confidence != "high"


@pytest.mark.parametrize(
    "paste",
    [
        # Python 3 names the missing submodule of an installed package: version drift
        "ModuleNotFoundError: No module named 'xtuner.parallel'",
        "ModuleNotFoundError: No module named 'transformers.models.qwen2'",
        # runpy (python -m) with the package there and the submodule missing
        "/usr/bin/python3: No module named swift.llm",
        "ImportError: No module named swiftclient",
    ],
)
def test_module_wordings_of_other_causes_are_not_the_interpreter(
    paste: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id != "module-not-found-launcher-interpreter" for m in result.matches)
