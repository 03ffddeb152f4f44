"""Issue 18, the fourth sample's covered-but-missed pastes: each shape as a family of wordings.

Every paste is composed from the libraries' own wording (torch's elastic agent
line, ``subprocess.CalledProcessError``'s ``Command '[...]' returned non-zero
exit status N``, THC's ``THCudaCheck FAIL file=... line=... error=N : ...``,
``cpp_extension._check_cuda_version``'s messages in both spellings, torch's
``check_generator``, transformers' ``CONFIG_MAPPING`` lookup and
``torch.utils.checkpoint``'s warning) in the shapes people paste them; beside
each shape, the neighbours that must not be read as it.
"""

from __future__ import annotations

import pytest

from app.matching.fragments import ALONE, ALONE_CAP
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

AGENT = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: {}) local_rank: 0 "
    "(pid: 5406) of binary: /usr/bin/python3"
)
AXOLOTL = (
    "[ERROR] [axolotl.cli.main.train:182] [PID:231138] [RANK:0] Failed to train/fine-tune config "
    "'examples/llama-3/qlora-fsdp.yaml': Command '['accelerate', 'launch', '-m', "
    "'axolotl.cli.train', 'examples/llama-3/qlora-fsdp.yaml', '--debug-num-examples', '0']' "
    "returned non-zero exit status 1."
)
ELIDED = (
    "subprocess.CalledProcessError: Command '['...python.exe', '...train.py', '...config.py']' "
    "returned non-zero exit status 1."
)
MISMATCH = (
    "RuntimeError: The detected CUDA version ({}) mismatches the version that was used to "
    "compile PyTorch ({}). Please make sure to use the same CUDA versions."
)
MISMATCH_TUPLE = (
    "RuntimeError: ('The detected CUDA version (%s) mismatches the version that was used to "
    "compilePyTorch (%s). Please make sure to use the same CUDA versions.', '13.0', '12.8')"
)
MINOR_WARN = (
    "UserWarning: The detected CUDA version (12.4) has a minor version mismatch with the version "
    "that was used to compile PyTorch (12.1). Most likely this shouldn't be a problem."
)
NO_GRAD_WARNING = (
    "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:31: UserWarning: None of "
    "the inputs have requires_grad=True. Gradients will be None"
)


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # torchrun's agent line for a rank killed by SIGBUS (-7): no signal article reads it
        (AGENT.format(-7), "childfailed"),
        # CalledProcessError of the launcher a tool starts, and of an elided interpreter path
        (AXOLOTL, "childfailed"),
        (AXOLOTL.split("': ", 1)[1], "childfailed"),
        (ELIDED, "childfailed"),
        (
            "subprocess.CalledProcessError: Command '['deepspeed', '--num_gpus', '8', "
            "'train.py']' returned non-zero exit status 1.",
            "childfailed",
        ),
        # THC's check with CUDA < 10.1 codes, and the codes of CUDA >= 10.1
        (
            "THCudaCheck FAIL file=/pytorch/aten/src/THC/generated/../generic/"
            "THCTensorMathPointwise.cu line=265 error=4 : unspecified launch failure",
            "unspecified-launch-failure",
        ),
        (
            "RuntimeError: cuda runtime error (4) : unspecified launch failure at /pytorch/x.cu:7",
            "unspecified-launch-failure",
        ),
        ("RuntimeError: cuda runtime error (710) :", "device-side-assert"),
        (
            "RuntimeError: cuda runtime error (710) : device-side assert triggered at /p/x.cu:1",
            "device-side-assert",
        ),
        (
            "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 "
            "error=710 : device-side assert triggered",
            "device-side-assert",
        ),
        (
            "RuntimeError: cuda runtime error (700) : an illegal memory access was encountered",
            "cuda-illegal-memory-access",
        ),
        # the CUDA string without its "CUDA error:" prefix
        ("an illegal memory access was encountered", "cuda-illegal-memory-access"),
        ("error:: an illegal memory access was encountered", "cuda-illegal-memory-access"),
        ("训练到一半报错：an illegal memory access was encountered", "cuda-illegal-memory-access"),
        # cpp_extension's check: torch 1.x-2.x formatted, newer torch's tuple
        (MISMATCH.format("10.0", "11.6"), "cuda-extension-version-mismatch"),
        (MISMATCH.format("12.3", "11.8"), "cuda-extension-version-mismatch"),
        (MISMATCH_TUPLE, "cuda-extension-version-mismatch"),
        # a retyped line: the exception class lower-cased, the device names upper-cased
        (
            "runtimeerror: expected a 'CUDA' device type for generator but found 'CPU'",
            "dataloader-generator-device",
        ),
        (
            "runtimeerror: Expected a 'CUDA' device type for generator but found 'CPU'",
            "dataloader-generator-device",
        ),
    ],
)
def test_a_wording_of_the_family_finds_its_article(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # signals that have their own article keep it
        (AGENT.format(-9), "host-oom-killed-rank"),
        (AGENT.format(-11), "segfault-training"),
        # the NCCL wrapper of an earlier kernel fault stays NCCL's article
        (
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            "NCCLUtils.hpp:275, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL "
            "version 2.20.5\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n"
            "Cuda failure 'an illegal memory access was encountered'",
            "nccl-unhandled-cuda-error",
        ),
        # a device-side assert's own line stays its article, not the illegal access
        ("RuntimeError: CUDA error: device-side assert triggered", "device-side-assert"),
        ("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/THC.cu:1", "cuda-oom"),
    ],
)
def test_neighbours_keep_their_article(paste: str, article: str, repository_kb: LiveKb) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        (
            "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
            "status 1.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command '['accelerate', 'config', 'default']' returned "
            "non-zero exit status 2.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command '['git', 'clone', 'x']' returned non-zero exit "
            "status 128.",
            "childfailed",
        ),
        # a signal stopped from outside: the agent's line says nothing of a failure of its own
        (AGENT.format(-15), "childfailed"),
        # the minor-version warning: torch says it is most likely no problem
        (MINOR_WARN, "cuda-extension-version-mismatch"),
        # a code of another CUDA error
        ("RuntimeError: cuda runtime error (2) : out of memory", "device-side-assert"),
        ("error=700 : an illegal memory access was encountered", "device-side-assert"),
        # prose that names the failure but pastes none
        ("is 'illegal memory access' always a bug in my kernel?", "cuda-illegal-memory-access"),
        ("runtimeerror: expected input to be on cuda", "dataloader-generator-device"),
    ],
)
def test_neighbours_are_not_read_as_the_family(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id != article for m in result.matches), paste


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        ("KeyError: 'llama'", "unknown-model-type"),
        ("KeyError: 'qwen2'", "unknown-model-type"),
        ("KeyError: 'mistral'", "unknown-model-type"),
        ("加载模型时报错 KeyError: 'qwen2_vl'", "unknown-model-type"),
        (NO_GRAD_WARNING, "no-grad-fn"),
        (NO_GRAD_WARNING + "\n  warnings.warn(", "no-grad-fn"),
        (
            "UserWarning: None of the inputs have requires_grad=True. Gradients will be None",
            "no-grad-fn",
        ),
    ],
)
def test_a_line_that_names_the_failure_only_alone_is_a_low_answer(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article
    assert result.top.score <= ALONE_CAP
    assert result.top.confidence == "low"
    assert ALONE in [e.hint for e in result.top.evidence if e.kind == "note"]


COLLATOR = """Traceback (most recent call last):
  File "/home/user/project/collate.py", line 22, in __call__
    labels = [f["llama"] for f in features]
KeyError: 'llama'"""

TRAIN_LOG = """{'loss': 2.31, 'learning_rate': 2e-05, 'epoch': 0.1}
/usr/lib/python3/site-packages/torch/utils/checkpoint.py:31: UserWarning: None of the inputs have \
requires_grad=True. Gradients will be None
  warnings.warn(
Traceback (most recent call last):
  File "/w/train.py", line 9, in <module>
    loss.backward()
ValueError: the batch held no tokens"""


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # other bare KeyErrors: a column, a label, a key of the user's own
        ("KeyError: 'input_ids'", "unknown-model-type"),
        ("KeyError: 'labels'", "unknown-model-type"),
        ("KeyError: 'train'", "unknown-model-type"),
        ("KeyError: 'messages'", "unknown-model-type"),
        ("KeyError: 'llama3_custom'", "unknown-model-type"),
        # model-type names that are ordinary words or config keys
        ("KeyError: 'opt'", "unknown-model-type"),
        ("KeyError: 'git'", "unknown-model-type"),
        # a traceback shows where the key was looked up, and it is not transformers
        (COLLATOR, "unknown-model-type"),
        # a failure in the paste: the warning is not the question
        (TRAIN_LOG, "no-grad-fn"),
        # the warning logged again by someone else
        (
            "WARNING: UserWarning: None of the inputs have requires_grad=True. Gradients will be "
            "None",
            "no-grad-fn",
        ),
    ],
)
def test_lines_alone_that_name_something_else_are_no_answer(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert all(m.article_id != article for m in result.matches), paste


def test_a_lone_line_in_a_long_paste_is_no_answer(repository_kb: LiveKb) -> None:
    """``alone`` patterns read short pastes only: in a job log the line is one of many."""
    steps = "".join(f"step {i} loss=2.{i:02d} lr=0.0003\n" for i in range(30))
    for paste in (steps + "KeyError: 'qwen2'", steps + NO_GRAD_WARNING):
        result = match_text(paste, repository_kb.index)
        assert all(m.article_id not in ("unknown-model-type", "no-grad-fn") for m in result.matches)
