"""Issue 18, the fifth sample's covered-but-missed pastes: each shape with its neighbours.

Every paste is composed from output produced here or from the libraries' own
wording: torchrun's ChildFailedError title for ``torchrun -m pkg.module``
(torch 2.13), glibc's loader message for a missing ``libcuda.so.1`` (an
extension import and ``ctypes``), accelerate 1.15's minimum-torch checks,
c10's ``CUDA initialization`` warning as torch.cuda prints it, the kernel's
``segfault at`` line (arch/x86/mm/fault.c) and Windows' access-violation
status in ``subprocess.CalledProcessError``'s tail.
"""

from __future__ import annotations

import pytest

from app.matching.fragments import ALONE, ALONE_CAP, REPORT_CAP, REPORTING
from app.matching.pipeline import match_text
from app.service.kb import LiveKb

WARNING_803 = (
    "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:188: UserWarning: CUDA "
    "initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
    "before calling NumCudaDevices() that might have already set an error? Error 803: system has "
    "unsupported display driver / cuda driver combination (Triggered internally at "
    "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n  return torch._C._cuda_getDeviceCount() > 0"
)
WARNING_804 = WARNING_803.replace(
    "803: system has unsupported display driver / cuda driver combination",
    "804: forward compatibility was attempted on non supported HW",
)
DMESG = (
    "[Thu Nov 26 17:20:41 2026] python[21549]: segfault at 0 ip 00007f2a1c0b3e2f sp "
    "00007ffd3c8a1b40 error 4 in libtorch_cpu.so[7f2a1a200000+1f40000] likely on CPU 3 "
    "(core 3, socket 0)"
)
TRAINING = "".join(f"epoch 0 step {i} loss 2.{i:02d}\n" for i in range(10, 40, 10))


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # the kernel's line, with and without dmesg -T's time, another process name
        (DMESG, "segfault-training"),
        (DMESG.split("] ", 1)[1], "segfault-training"),
        (
            "python[3494041]: segfault at 34 ip 00007f3d56e45970 sp 00007ffd241f9130 error 4 in "
            "libhsa-runtime64.so[45970,7f3d56e1d000+117000] likely on CPU 0 (core 0, socket 0)",
            "segfault-training",
        ),
        (
            "kernel: pt_main_thread[812]: segfault at 10 ip 00007f0c8e1b2a41 sp 00007ffc1f2b3d80 "
            "error 6 in libc10.so[7f0c8e180000+60000]",
            "segfault-training",
        ),
        # the loader's message for the driver's own library
        (
            "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
            "cuda-driver-insufficient",
        ),
        (
            "OSError: libcuda.so.1: cannot open shared object file: No such file or directory",
            "cuda-driver-insufficient",
        ),
        (
            "Traceback (most recent call last):\n"
            '  File "/workspace/run.py", line 1, in <module>\n'
            "    import _driver\n"
            "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
            "cuda-driver-insufficient",
        ),
        # accelerate's minimum-torch checks
        ("ValueError: FSDP requires PyTorch >= 2.1.0", "torch-too-old-for-library"),
        ("ValueError: FSDP requires PyTorch >= 2.1.0.a0+32f93b1", "torch-too-old-for-library"),
        ("ImportError: FSDP2 requires PyTorch >= 2.6.0", "torch-too-old-for-library"),
        (
            "RuntimeError: Building a device_mesh requires to have torch>=2.2.0",
            "torch-too-old-for-library",
        ),
        (
            "ValueError: `merge_fsdp_weights` requires PyTorch >= 2.3.0`",
            "torch-too-old-for-library",
        ),
        (
            "ImportError: Using `torch.distributed.pipelining` requires PyTorch 2.4.0 or later.",
            "torch-too-old-for-library",
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
        # torchrun's title of a module run with -m, and the row's pasted form
        ("bench.lora_finetune_distributed FAILED", "childfailed"),
        ("\n  llamafactory.launcher FAILED\n", "childfailed"),
        ("=" * 60 + "\nrecipes.full_finetune_distributed FAILED\n" + "-" * 60, "childfailed"),
        # the same title after a launcher's or a quote's prefix
        (
            "(RayTrainWorker pid=1234, ip=10.0.0.5) bench.lora_finetune_distributed FAILED",
            "childfailed",
        ),
        ("trainer-1  | bench.lora_finetune_distributed FAILED", "childfailed"),
        ("> bench.lora_finetune_distributed FAILED", "childfailed"),
        # Windows' access violation (0xC0000005) in a launcher's tail, and an IDE's exit line
        ("returned non-zero exit status 3221225477", "segfault-training"),
        ("returned non-zero exit status 3221225477.", "segfault-training"),
        ("Process finished with exit code -1073741819 (0xC0000005)", "segfault-training"),
    ],
)
def test_a_line_that_only_reports_the_failure_is_a_low_answer(
    paste: str, article: str, repository_kb: LiveKb
) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article
    assert result.top.score <= REPORT_CAP
    assert REPORTING in [e.hint for e in result.top.evidence if e.kind == "note"]


@pytest.mark.parametrize(
    "paste",
    [
        WARNING_803,
        WARNING_804,
        # the row as pasted: the warning without its path
        WARNING_803.split(": ", 1)[1].split("\n")[0],
        # torch.cuda.is_available() in a REPL: the warning, its source line, False
        ">>> torch.cuda.is_available()\n" + WARNING_803 + "\nFalse",
        # in a fence, the writer's question after it; under a Ray worker's prefix
        "I get this on my server:\n```\n" + WARNING_803 + "\nFalse\n```\nAny idea what is wrong?",
        "<details><summary>log</summary>\n\n" + WARNING_803 + "\n</details>\nthanks for any help",
        "\n".join(
            "(RayTrainWorker pid=77, ip=10.0.0.5) " + line for line in WARNING_803.split("\n")
        ),
    ],
)
def test_the_driver_warning_alone_is_a_low_answer(paste: str, repository_kb: LiveKb) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == "cuda-driver-insufficient"
    assert result.top.score <= ALONE_CAP
    assert result.top.confidence == "low"
    assert ALONE in [e.hint for e in result.top.evidence if e.kind == "note"]


@pytest.mark.parametrize(
    ("paste", "article"),
    [
        # another fault of the kernel's: an invalid opcode, a general protection fault
        (
            "traps: python[21549] trap invalid opcode ip:7f2a1c0b3e2f sp:7ffd3c8a1b40 error:0 in "
            "libtorch_cpu.so[7f2a1a200000+1f40000]",
            "segfault-training",
        ),
        (
            "traps: python[21602] general protection fault ip:7f2a1c0b3e2f sp:7ffd3c8a1b40 "
            "error:0 in libc.so.6[7f2a19e28000+195000]",
            "segfault-training",
        ),
        # another Windows status (0xC0000409, a stack buffer overrun), a plain exit status
        ("returned non-zero exit status 3221226505.", "segfault-training"),
        ("returned non-zero exit status 1.", "segfault-training"),
        # the CUDA toolkit's libraries, not the driver's
        (
            "ImportError: libcudart.so.12: cannot open shared object file: No such file or "
            "directory",
            "cuda-driver-insufficient",
        ),
        (
            "OSError: libcublas.so.11: cannot open shared object file: No such file or directory",
            "cuda-driver-insufficient",
        ),
        # accelerate's bf16 check is about the device as much as the version
        (
            "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.",
            "torch-too-old-for-library",
        ),
        # a run that printed the warning and went on, on the CPU
        (WARNING_803 + "\ndevice: cpu\n" + TRAINING, "cuda-driver-insufficient"),
        # the run went on inside the fence; the question after it does not undo that
        (
            "```\n" + WARNING_803 + "\ndevice: cpu\n" + TRAINING + "```\nwhy so slow?",
            "cuda-driver-insufficient",
        ),
        # a Gradle test name with a dotted class after a prefix is not a torchrun title
        ("trainer-1  | com.example.LossTest > computesLoss FAILED", "childfailed"),
        # the warning logged again by someone else; a CPU-only machine's own warning
        ("WARNING: " + WARNING_803.split(": ", 1)[1], "cuda-driver-insufficient"),
        (
            "UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check "
            "that you have an NVIDIA GPU and installed a driver\n" + TRAINING,
            "cuda-driver-insufficient",
        ),
        # test runners' dotted names ending in FAILED
        ("com.example.trainer.LossTest > computesLoss FAILED", "childfailed"),
        ("> Task :app:test FAILED", "childfailed"),
        ("//trainer:loss_test FAILED in 2.4s", "childfailed"),
        ("Build FAILED", "childfailed"),
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
        # a full CalledProcessError with the interpreter's command stays the launcher's
        (
            "subprocess.CalledProcessError: Command '['C:\\\\venv\\\\Scripts\\\\python.exe', "
            "'train_network.py']' returned non-zero exit status 3221225477.",
            "childfailed",
        ),
        # the OOM killer's line in the same dmesg stays its own article
        (
            "[Thu Nov 26 17:20:41 2026] Out of memory: Killed process 21549 (python) "
            "total-vm:98765432kB, anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB",
            "host-oom-killed-rank",
        ),
        # the driver's own error (not the warning) keeps its ordinary answer
        (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
            "functions before calling NumCudaDevices() that might have already set an error? "
            "Error 803: system has unsupported display driver / cuda driver combination",
            "cuda-driver-insufficient",
        ),
    ],
)
def test_neighbours_keep_their_article(paste: str, article: str, repository_kb: LiveKb) -> None:
    result = match_text(paste, repository_kb.index)
    assert result.top is not None, paste
    assert result.top.article_id == article


def test_a_bare_two_gpu_mismatch_names_the_general_article_and_how_to_tell(
    repository_kb: LiveKb,
) -> None:
    """``cuda:0 and cuda:1`` alone: user code first, the device_map article second.

    Both articles' causes give this line (a hard-coded ``cuda:0`` or ``.cuda()`` on a rank
    that owns another GPU; a model dispatched over GPUs with ``device_map``), and a bare
    line shows neither; the general article says what would make the other one right, in
    words a reader can look for in the log.
    """
    bare = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cuda:1! (when checking argument for argument tensors in method "
        "wrapper_CUDA_cat)"
    )
    result = match_text(bare, repository_kb.index)
    ids = [m.article_id for m in result.matches]
    assert ids[:2] == ["device-mismatch-user-code", "device-mismatch-multi-gpu"]
    notes = [e.hint for e in result.matches[0].evidence if e.kind == "note"]
    assert notes == [
        "device-mismatch-multi-gpu instead if the log shows accelerate/hooks.py, hf_device_map, "
        "You shouldn't move a model that is dispatched using accelerate hooks"
    ]
    hooks = (
        'Traceback (most recent call last):\n  File "/v/accelerate/hooks.py", line 170, in '
        f"new_forward\n    output = module._old_forward(*args, **kwargs)\n{bare}"
    )
    assert match_text(hooks, repository_kb.index).matches[0].article_id == (
        "device-mismatch-multi-gpu"
    )
