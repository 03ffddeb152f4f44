"""Extractor cases: one failure each, written in the formats the tools print.

Each case is the failure alone; ``test_events`` also checks it embedded in
log noise, with and without rank prefixes and other ranks interleaved.
``line`` is the 0-based index, within ``lines``, of the root cause's error
line. The real multi-rank captures are in ``tests/data/logs/events``.
"""

from __future__ import annotations

from typing import NamedTuple

from app.matching.events_model import EventKind as K


class Case(NamedTuple):
    name: str
    lines: tuple[str, ...]
    kind: K | None  # None: the text holds no failure at all
    exception: str | None = None
    line: int = 0
    consequence: bool = False
    prefixable: bool = True  # may be wrapped in "[rankN]: " (launcher output is not)


def case(name: str, text: str, kind: K | None, exception: str | None = None, **kw: object) -> Case:
    return Case(name, tuple(text.strip("\n").split("\n")), kind, exception, **kw)  # type: ignore[arg-type]


TB = K.TRACEBACK
CASES: tuple[Case, ...] = (
    case(
        "traceback",
        """
Traceback (most recent call last):
  File "/home/user/train.py", line 42, in <module>
    main()
  File "/home/user/train.py", line 30, in main
    loss = model(batch).loss
           ^^^^^^^^^^^^
AttributeError: 'NoneType' object has no attribute 'loss'
""",
        TB,
        "AttributeError",
        line=6,
    ),
    case(
        "headless traceback (pasted from the middle)",
        """
  File "/home/user/model.py", line 12, in forward
    x = self.proj(x)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x8 and 16x2)
""",
        TB,
        "RuntimeError",
        line=2,
    ),
    case(
        "lone error line",
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        K.ERROR_LINE,
        "RuntimeError",
    ),
    case(
        "qualified lone error line",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a"
        " total capacity of 15.77 GiB of which 4.12 MiB is free.",
        K.ERROR_LINE,
        "torch.OutOfMemoryError",
    ),
    case(
        "CUDA error with its hint lines",
        """
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
""",  # noqa: E501
        K.ERROR_LINE,
        "RuntimeError",
    ),
    case(
        "untyped CUDA error", "CUDA error: an illegal memory access was encountered", K.ERROR_LINE
    ),
    case(
        "raise from: the cause is printed first",
        """
Traceback (most recent call last):
  File "/home/user/data.py", line 8, in load
    return cfg["tokenizer"]
           ~~~^^^^^^^^^^^^^
KeyError: 'tokenizer'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/user/train.py", line 3, in <module>
    load()
  File "/home/user/data.py", line 10, in load
    raise ValueError("bad config") from exc
ValueError: bad config
""",
        TB,
        "KeyError",
        line=4,
    ),
    case(
        "during handling",
        """
Traceback (most recent call last):
  File "/home/user/ckpt.py", line 5, in resume
    state = torch.load(path)
FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/last.pt'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/user/ckpt.py", line 7, in resume
    state = state["model"]
NameError: name 'state' is not defined
""",
        TB,
        "FileNotFoundError",
        line=3,
    ),
    case(
        "bare exception name",
        """
Traceback (most recent call last):
  File "/home/user/train.py", line 9, in check
    assert batch.dim() == 2
AssertionError
""",
        TB,
        "AssertionError",
        line=3,
    ),
    case(
        "recursion",
        """
Traceback (most recent call last):
  File "/home/user/walk.py", line 3, in walk
    return walk(node.child)
           ^^^^^^^^^^^^^^^^
  [Previous line repeated 996 more times]
RecursionError: maximum recursion depth exceeded
""",
        TB,
        "RecursionError",
        line=5,
    ),
    case(
        "syntax error",
        """
Traceback (most recent call last):
  File "/home/user/cfg.py", line 3
    lr = = 1e-4
         ^
SyntaxError: invalid syntax
""",
        TB,
        "SyntaxError",
        line=4,
    ),
    case(
        "lowercase qualified exception",
        """
Traceback (most recent call last):
  File "/usr/lib/python3.11/socket.py", line 974, in getaddrinfo
    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):
socket.gaierror: [Errno -2] Name or service not known
""",
        TB,
        "socket.gaierror",
        line=3,
    ),
    case(
        "DistBackendError keeps its NCCL lines",
        """
Traceback (most recent call last):
  File "/home/user/train.py", line 20, in <module>
    dist.barrier()
torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
Last error:
socketStartConnect: Connect to 10.1.2.3<43210> failed : Software caused connection abort
""",  # noqa: E501
        TB,
        "torch.distributed.DistBackendError",
        line=3,
    ),
    case(
        "NCCL WARN",
        "node07:4242:4390 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to"
        " 10.1.2.3<43210> failed : Connection refused",
        K.NCCL,
    ),
    case(
        "watchdog timeout alone is still reported",
        "[E1122 10:00:00.123456789 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
        " Timeout(ms)=600000) ran for 600042 milliseconds before timing out.",
        K.NCCL,
        consequence=True,
    ),
    case(
        "terminate after a watchdog timeout",
        """
terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.
Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:635 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f1a2b3c4d5e in /opt/venv/lib/python3.11/site-packages/torch/lib/libc10.so)
""",  # noqa: E501
        K.TERMINATE,
        "c10::DistBackendError",
        consequence=True,
    ),
    case(
        "terminate with a CUDA error",
        """
terminate called after throwing an instance of 'c10::Error'
  what():  CUDA error: an illegal memory access was encountered
""",
        K.TERMINATE,
        "c10::Error",
    ),
    case(
        "kernel OOM killer",
        "[812345.123456] Out of memory: Killed process 4321 (python) total-vm:98765432kB,"
        " anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:190000kB",
        K.OOM_KILLER,
    ),
    case("shell says Killed", "Killed", K.OOM_KILLER),
    case("signal received", "Signal 6 (SIGABRT) received by PID 4321", K.SIGNAL),
    case(
        "faulthandler dump",
        """
Fatal Python error: Segmentation fault

Current thread 0x00007f2a3b4c5d60 (most recent call first):
  File "/home/user/ext.py", line 14 in run_kernel
  File "/home/user/train.py", line 50 in <module>

Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)
""",
        K.SIGNAL,
    ),
    case("shell bus error", "Bus error (core dumped)", K.SIGNAL),
    case(
        "DataLoader worker killed",
        "RuntimeError: DataLoader worker (pid 4567) is killed by signal: Bus error. It is possible"
        " that dataloader's workers are out of shared memory.",
        K.ERROR_LINE,
        "RuntimeError",
    ),
    case("worker died with a signal", "Process 4568 died with <Signals.SIGKILL: 9>", K.SIGNAL),
    case(
        "slurm time limit",
        "slurmstepd: error: *** JOB 123456 ON gpu-node-12 CANCELLED AT 2024-05-01T12:00:00"
        " DUE TO TIME LIMIT ***",
        K.SIGNAL,
    ),
    case(
        "ChildFailedError summary pasted alone",
        """
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_12:00:00
  host      : gpu-node-3
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 777)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
""",
        K.CHILD_FAILED,
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError",
        consequence=True,
        prefixable=False,
    ),
    case(
        "accelerate's CalledProcessError wraps the child",
        """
Traceback (most recent call last):
  File "/opt/venv/bin/accelerate", line 8, in <module>
    sys.exit(main())
  File "/opt/venv/lib/python3.11/site-packages/accelerate/commands/launch.py", line 763, in simple_launcher
    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)
subprocess.CalledProcessError: Command '['/opt/venv/bin/python', 'train.py']' returned non-zero exit status 1.
""",  # noqa: E501
        TB,
        "subprocess.CalledProcessError",
        line=5,
        consequence=True,
        prefixable=False,
    ),
    case(
        "DeepSpeed launcher exit code",
        "[2024-05-01 12:00:10,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python',"
        " '-u', 'train.py', '--local_rank=1'] exits with return code = 1",
        K.ERROR_LINE,
        consequence=True,
        prefixable=False,
    ),
    case(
        "warnings and log levels are not failures",
        """
/opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the inputs have requires_grad=True.
UserWarning: `resume_download` is deprecated
FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated.
INFO: Found 8 GPUs
WARNING: Skipping import of cpp extensions
ERROR: Could not open requirements file
Error: no such option: --foo
  0%|          | 0/100 [00:00<?, ?it/s]
""",  # noqa: E501
        None,
    ),
)
