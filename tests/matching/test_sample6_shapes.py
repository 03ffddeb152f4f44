"""The sixth sample's covered-but-missed pastes and wrong rows: each shape with its neighbours.

Every paste is composed from output produced here or from the libraries' own
wording: torchrun's agent line (torch 2.x logger format) for a rank that
aborted, ``subprocess.CalledProcessError`` of a command run with
``shell=True`` (Python 3.11, run here), ATen's ``checkSameType``
(TensorUtils.cpp) and ``mixed_dtype.h`` checks (the second run here on
torch 2.13 CPU), torch_xla's ``GetXlaTensor`` check (aten_xla_bridge.cpp),
the lazy modules of TRL 0.8.6 and transformers, and NCCL 2.7-2.9's
``include/socket.h`` warning for a failed ``recv``.
"""

from __future__ import annotations

import pytest

from app.matching.fragments import REPORT_CAP, REPORTING
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

AGENT = (
    "E1122 02:08:58.666000 28141 torch/distributed/elastic/multiprocessing/api.py:1002] "
    "failed (exitcode: {code}) local_rank: 4 (pid: 28147) of binary: /opt/venv/bin/python3"
)
RECV_27 = (
    "node-a100-2:36759:36970 [0] include/socket.h:421 NCCL WARN Call to recv failed : "
    "Connection reset by peer"
)


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # the one-string CalledProcessError of a launcher run with shell=True
        (
            "subprocess.CalledProcessError: Command 'accelerate launch --multi_gpu "
            "--num_processes=4 -m trainer_pkg.train' returned non-zero exit status 1.",
            "childfailed",
        ),
        (
            "Traceback (most recent call last):\n"
            '  File "/workspace/run_train.py", line 4, in <module>\n'
            "    subprocess.run(cmd, shell=True, check=True)\n"
            '  File "/usr/lib/python3.11/subprocess.py", line 571, in run\n'
            "    raise CalledProcessError(retcode, process.args,\n"
            "subprocess.CalledProcessError: Command 'torchrun --nproc_per_node 8 train.py' "
            "returned non-zero exit status 1.",
            "childfailed",
        ),
        (
            "CalledProcessError: Command '/opt/conda/bin/python3 -m torch.distributed.run "
            "--nproc_per_node 2 train.py' returned non-zero exit status 1.",
            "childfailed",
        ),
        # ATen's checkSameType: two floating types on one backend, legacy and new names
        (
            "RuntimeError: Expected tensor for argument #1 'grad_output' to have the same type "
            "as tensor for argument #2 'weight'; but type CUDABFloat16Type does not equal "
            "torch.cuda.HalfTensor (while checking arguments for "
            "cudnn_convolution_backward_input)",
            "dtype-mismatch",
        ),
        (
            "RuntimeError: Expected tensor for argument #1 'input' to have the same type as "
            "tensor for argument #2 'weight'; but type torch.FloatTensor does not equal "
            "torch.DoubleTensor (while checking arguments for slow_conv2d)",
            "dtype-mismatch",
        ),
        # the CPU normalisation kernels (mixed_dtype.h), as torch 2.13 prints it
        (
            "RuntimeError: mixed dtype (CPU): expect parameter to have scalar type of Float",
            "dtype-mismatch",
        ),
        (
            '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2987, '
            "in layer_norm\n    return torch.layer_norm(\n"
            "RuntimeError: mixed dtype (CPU): all inputs must share same datatype.",
            "dtype-mismatch",
        ),
        # torch_xla's bridge: a tensor not on the XLA device
        (
            "RuntimeError: torch_xla/csrc/aten_xla_bridge.cpp:69 : Check failed: xtensor",
            "device-mismatch-user-code",
        ),
        (
            "RuntimeError: torch_xla/csrc/aten_xla_bridge.cpp:73 : Check failed: xtensor \n"
            "*** Begin stack trace ***\n\ttsl::CurrentStackTrace()\n"
            "\ttorch_xla::bridge::GetXlaTensor(at::Tensor const&)\n*** End stack trace ***\n"
            "Input tensor is not an XLA tensor: CPUFloatType",
            "device-mismatch-user-code",
        ),
        # the lazy modules' attribute form, unquoted
        (
            "AttributeError: module trl has no attribute GRPOConfig. Did you mean: 'ORPOConfig'?",
            "hf-cannot-import-name",
        ),
        (
            "AttributeError: module transformers has no attribute "
            "Qwen2_5_VLForConditionalGeneration",
            "hf-cannot-import-name",
        ),
        # NCCL 2.7-2.9's failed recv, and the 2.10+ form it became
        (RECV_27, "nccl-remote-error"),
        ("在第二台机器上报：\n" + RECV_27 + "\n然后就退出了", "nccl-remote-error"),
        (
            "gpu-node-01:2231:2290 [1] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
            "10.0.0.5<43617> failed : Connection reset by peer",
            "nccl-remote-error",
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
    "paste",
    [
        AGENT.format(code=-6),
        # the row's shape: no logger prefix
        "failed (exitcode: -6) local_rank: 4 (pid: 13407) of binary: /home/user/envs/x/bin/python",
        "rank 0 exitcode : -6 (pid: 28147)",
    ],
)
def test_the_sigabrt_agent_line_alone_is_a_low_answer(paste: str, repository_kb: LiveKb) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == "childfailed"
    assert result.top.score <= REPORT_CAP
    assert REPORTING in [e.hint for e in result.top.evidence if e.kind == "note"]


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # other commands run with shell=True: a build, git, accelerate's own config, pip
        (
            "subprocess.CalledProcessError: Command 'python setup.py bdist_wheel' returned "
            "non-zero exit status 2.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command 'git rev-parse --short HEAD' returned "
            "non-zero exit status 128.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command 'accelerate config default' returned "
            "non-zero exit status 2.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command 'python -m pip install flash-attn' returned "
            "non-zero exit status 1.",
            "childfailed",
        ),
        (
            "subprocess.CalledProcessError: Command 'deepspeed_report' returned non-zero exit "
            "status 1.",
            "childfailed",
        ),
        # SIGTERM (-15) and an unknown negative code stay out
        (AGENT.format(code=-15), "childfailed"),
        (AGENT.format(code=-4), "childfailed"),
        # checkSameType across backends is a device mismatch; integer types are not floats
        (
            "RuntimeError: Expected tensor for argument #1 'input' to have the same type as "
            "tensor for argument #2 'weight'; but type torch.cuda.FloatTensor does not equal "
            "torch.FloatTensor (while checking arguments for cudnn_convolution)",
            "dtype-mismatch",
        ),
        (
            "RuntimeError: Expected tensor for argument #1 'indices' to have the same type as "
            "tensor for argument #2 'weight'; but type CUDALongType does not equal "
            "CUDAFloatType (while checking arguments for embedding_backward)",
            "dtype-mismatch",
        ),
        # other torch_xla checks
        (
            "RuntimeError: torch_xla/csrc/runtime/pjrt_computation_client.cc:217 : Check failed: "
            "client_ != nullptr",
            "device-mismatch-user-code",
        ),
        (
            "RuntimeError: torch_xla/csrc/tensor_methods.cpp:1024 : Check failed: xtensors.size() "
            "> 0",
            "device-mismatch-user-code",
        ),
        # Python's quoted form (a shadowing file), another package, a submodule attribute
        ("AttributeError: module 'trl' has no attribute 'GRPOConfig'", "hf-cannot-import-name"),
        ("AttributeError: module diffusers has no attribute FluxPipeline", "hf-cannot-import-name"),
        ("AttributeError: module 'torch' has no attribute 'compiler'", "hf-cannot-import-name"),
        # a name that never shipped in a diffusers release, and sentence-transformers'
        (
            "ImportError: cannot import name 'clear_objs_and_retain_memory' from "
            "'diffusers.training_utils' (/opt/venv/lib/python3.10/site-packages/diffusers/"
            "training_utils.py)",
            "hf-cannot-import-name",
        ),
        (
            "ImportError: cannot import name 'SentenceTransformerTrainer' from "
            "'sentence_transformers' (/opt/venv/lib/python3.10/site-packages/"
            "sentence_transformers/__init__.py)",
            "hf-cannot-import-name",
        ),
        # the failed recv is not this host's system call
        (RECV_27, "nccl-system-error"),
        # a ZeRO-3 placeholder's IndexError and a bare KeyError say nothing alone
        (
            "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)",
            "zero3-partitioned-param-outside-engine",
        ),
        ("KeyError: 'seq_len'", "trainer-missing-column-remove-unused"),
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
        # NCCL's other calls stay the system error's
        (
            "gpu-node-01:41822:41822 [0] misc/socket.cc:484 NCCL WARN Call to bind failed : "
            "Cannot assign requested address",
            "nccl-system-error",
        ),
        (
            "[default3]:a100-node:214:433 [3] include/shm.h:28 NCCL WARN Call to "
            "posix_fallocate failed : No space left on device",
            "nccl-system-error",
        ),
        ("node:1:2 [0] NCCL WARN Call to r failed : x", "nccl-system-error"),
        ("node:1:2 [0] NCCL WARN Call to recvmsg failed : Bad address", "nccl-system-error"),
        ("node:1:2 [0] NCCL WARN Call to rec failed : x", "nccl-system-error"),
        # the exception line decides in a full NCCL 2.7 paste, the remote error second
        (
            RECV_27 + "\nRuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch/work/torch/"
            "csrc/distributed/c10d/ProcessGroupNCCL.cpp:1003, unhandled system error, NCCL "
            "version 2.7.8",
            "nccl-system-error",
        ),
        # -6 after the watchdog's lines and after terminate: their articles first
        (
            "terminate called without an active exception\n" + AGENT.format(code=-6),
            "terminate-without-active-exception",
        ),
        # the list form keeps its answer
        (
            "subprocess.CalledProcessError: Command '['torchrun', '--nnodes', '1', "
            "'train.py']' returned non-zero exit status 1.",
            "childfailed",
        ),
    ],
)
def test_neighbours_keep_their_article(paste: str, article: str, repository_kb: LiveKb) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article


def test_the_full_nccl27_paste_names_the_remote_error_second(repository_kb: LiveKb) -> None:
    """The exception line is ncclSystemError; the warning before it says a peer reset."""
    paste = (
        RECV_27 + "\nRuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch/work/torch/csrc/"
        "distributed/c10d/ProcessGroupNCCL.cpp:1003, unhandled system error, NCCL version 2.7.8"
    )
    ids = [m.article_id for m in match_text(paste, repository_kb.index).matches]
    assert ids[:2] == ["nccl-system-error", "nccl-remote-error"]
