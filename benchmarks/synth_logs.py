"""Synthetic job logs of 10 KB .. 100 MB, written once into ``benchmarks/.cache/``.

A log looks like an 8-GPU torchrun fine-tuning job (performance.md, section 1):
rank-prefixed progress lines, NCCL INFO lines, HF-style dict lines, tqdm bars
(with ``█`` and ``\\r`` redraws, so the decoded text is UCS-2), warnings that
reuse the KB's vocabulary (near misses), rare retried-error lines, three
unrelated tracebacks (IndexError, ConnectionError, KeyError) at 25/50/75 %, and
at the end the failure: a CUDA-OOM traceback printed by 8 interleaved ranks
(2 ranks with a short traceback in the 10 KB log, where 8 would not fit) and
torchrun's ChildFailedError summary. The bytes are the same in every run.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

from benchmarks.common import CACHE, fmt_size
from benchmarks.vocab import EXCEPTIONS, LIBRARIES, PHRASES

LOG_SIZES = {"10KB": 10_000, "1MB": 1_000_000, "10MB": 10_000_000, "100MB": 100_000_000}
LOG_VERSION = "log-1"  # bump when the generator changes
SEED = 1234
RANKS = 8
SITE = "/usr/local/lib/python3.11/site-packages"
RETRY_EVERY = 20_000  # lines between retried-error lines (each one opens an excerpt window)
_BAR = " ▏▎▍▌▋▊▉█"


class Filler:
    """Ordinary lines of a healthy training job, in the mix of the research note."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tick = 0
        self.kinds = (self.progress, self.nccl, self.hf_dict, self.tqdm, self.warning)
        self.weights = (54, 15, 12, 15, 4)

    def line(self) -> str:
        self.tick += 1
        if self.tick % RETRY_EVERY == 0:
            return self.retried_error()
        return self.rng.choices(self.kinds, self.weights)[0]()

    def stamp(self) -> str:
        seconds = self.tick // 7
        return f"2025-06-01 {seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def progress(self) -> str:
        r = self.rng
        return (
            f"[rank{r.randrange(RANKS)}]:[{self.stamp()},{r.randrange(1000):03d}][train][INFO] - "
            f"step {self.tick // 3}/500000 | loss {r.uniform(0.5, 3):.4f} | "
            f"lr {r.uniform(1e-6, 3e-5):.2e}"
            f" | grad_norm {r.uniform(0.1, 4):.3f} | tokens/s {r.randrange(9000, 15000)}"
        )

    def nccl(self) -> str:
        r = self.rng
        rank, head = r.randrange(RANKS), f"node-0{r.randrange(4)}:{r.randrange(2000, 9000)}"
        if r.random() < 0.7:
            peer = (rank + 1) % RANKS
            return (
                f"{head}:{r.randrange(9000, 9999)} [{rank}] NCCL INFO "
                f"Channel {r.randrange(32):02d}/0"
                f" : {rank}[{rank}] -> {peer}[{peer}] via P2P/CUMEM/read"
            )
        return (
            f"{head}:{r.randrange(9000, 9999)} [{rank}] NCCL INFO "
            f"comm 0x{r.getrandbits(40):x} rank "
            f"{rank} nranks {RANKS} cudaDev {rank} nvmlDev {rank} busId {r.randrange(16, 256):x}000"
            f" commId 0x{r.getrandbits(60):x} - Init COMPLETE"
        )

    def hf_dict(self) -> str:
        r = self.rng
        return (
            f"{{'loss': {r.uniform(0.5, 3):.4f}, 'grad_norm': {r.uniform(0.1, 4):.4f}, "
            f"'learning_rate': {r.uniform(1e-6, 3e-5):.2e}, 'epoch': {self.tick / 1e6:.2f}}}"
        )

    def tqdm(self) -> str:
        redraws = [self._bar() for _ in range(self.rng.choice((1, 1, 2, 4)))]
        return "\r".join(redraws)

    def _bar(self) -> str:
        done = self.rng.randrange(10_000)
        eighths = done * 80 // 10_000
        bar = ("█" * (eighths // 8) + _BAR[eighths % 8]).ljust(10)[:10]
        rate = self.rng.uniform(1, 9)
        clock = f"{done // 360:02d}:{done % 60:02d}<09:12"
        return f"{done // 100:3d}%|{bar}| {done}/10000 [{clock}, {rate:.2f}it/s]"

    def warning(self) -> str:
        r, phrase = self.rng, self.rng.choice(PHRASES)
        lib = r.choice(LIBRARIES)
        return r.choice(
            (
                f"{SITE}/{lib}/utils.py:{r.randrange(40, 900)}: UserWarning: {phrase} "
                "(this warning is shown once per process)",
                f"[rank{r.randrange(RANKS)}]: FutureWarning: {phrase}; got "
                f"torch.Size([{r.choice((4096, 11008, 32000))}, {r.choice((128, 4096))}])",
                f"[rank{r.randrange(RANKS)}]:W0601 {self.stamp()[11:]}.{r.randrange(10**6):06d} "
                f"{r.randrange(100, 999)} torch/distributed/{lib}.py:{r.randrange(99)}] "
                f"{phrase}, continuing",
                f"[rank{r.randrange(RANKS)}]: [WARNING] memory pool is fragmented; consider "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
            )
        )

    def retried_error(self) -> str:
        r = self.rng
        return (
            f"[rank{r.randrange(RANKS)}]: WARNING:root:retrying in 5 s after "
            f"{r.choice(EXCEPTIONS[:4])}: {r.choice(PHRASES)} (attempt {r.randrange(1, 3)}/3)"
        )


def unrelated_tracebacks() -> list[list[str]]:
    """Three tracebacks that have nothing to do with the failure (no article matches them)."""
    index_error = [
        "ERROR:datasets:skipping sample 18234 after an exception in the collator",
        "Traceback (most recent call last):",
        '  File "/workspace/data/collate.py", line 41, in __call__',
        '    ids = [f["input_ids"][self.max_len] for f in features]',
        "IndexError: list index out of range",
    ]
    connection_error = [
        "Traceback (most recent call last):",
        f'  File "{SITE}/urllib3/connectionpool.py", line 793, in urlopen',
        "    response = self._make_request(",
        f'  File "{SITE}/requests/adapters.py", line 700, in send',
        "    raise ConnectionError(e, request=request)",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', "
        "port=443): Max retries exceeded with url: /api/models/meta-llama/Llama-3.1-8B (Caused "
        "by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d5e50>: "
        "Failed to establish a new connection: [Errno 111] Connection refused'))",
    ]
    key_error = [
        "[rank0]: Traceback (most recent call last):",
        f'[rank0]:   File "{SITE}/transformers/trainer.py", line 2455, in _inner_training_loop',
        "[rank0]:     self.control = self.callback_handler.on_step_end("
        "args, self.state, self.control)",
        '[rank0]:   File "/workspace/callbacks.py", line 77, in on_step_end',
        '[rank0]:     wandb.log({"acc": metrics["eval_accuracy"]})',
        "[rank0]: KeyError: 'eval_accuracy'",
    ]
    return [index_error, connection_error, key_error]


# (path, line, function, code) of the OOM traceback, outermost first.
OOM_FRAMES: tuple[tuple[str, int, str, str], ...] = (
    ("/workspace/train.py", 212, "<module>", "main()"),
    ("/workspace/train.py", 198, "main", "trainer.train()"),
    (f"{SITE}/transformers/trainer.py", 2245, "train", "return inner_training_loop("),
    (f"{SITE}/transformers/trainer.py", 3736, "training_step",
     "loss = self.compute_loss(model, inputs)"),
    (f"{SITE}/torch/nn/modules/module.py", 1751, "_wrapped_call_impl",
     "return self._call_impl(*args, **kwargs)"),
    (f"{SITE}/torch/nn/modules/module.py", 1762, "_call_impl",
     "return forward_call(*args, **kwargs)"),
    (f"{SITE}/transformers/models/llama/modeling_llama.py", 345, "forward",
     "attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.scaling"),
)  # fmt: skip
OOM_MESSAGE = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {rank} has a "
    "total capacity of 79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this "
    "process has 78.08 GiB memory in use. Of the allocated memory 75.12 GiB is allocated by "
    "PyTorch, and 1.45 GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
    "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
    "fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)


def oom_traceback(rank: int, short: bool) -> list[str]:
    """The CUDA-OOM traceback one rank prints (PyTorch >= 2.3 prefixes it with ``[rankN]:``)."""
    frames = [OOM_FRAMES[0], OOM_FRAMES[5], OOM_FRAMES[6]] if short else list(OOM_FRAMES)
    lines = ["Traceback (most recent call last):"]
    for path, number, function, code in frames:
        lines += [f'  File "{path}", line {number}, in {function}', f"    {code}"]
    lines.append(OOM_MESSAGE.format(rank=rank))
    return [f"[rank{rank}]: {line}" for line in lines]


def interleaved_failure(rng: random.Random, ranks: int, short: bool) -> list[str]:
    """Rank 3 fails first and prints alone; the others print at once, interleaved in chunks."""
    first = 3 % ranks
    lines = oom_traceback(first, short)
    pending = [oom_traceback(r, short) for r in range(ranks) if r != first]
    while pending:
        stream = rng.choice(pending)
        take = rng.randrange(1, 4)
        lines += stream[:take]
        del stream[:take]
        pending = [s for s in pending if s]
    return lines


def child_failed_summary(ranks: int) -> list[str]:
    """torchrun's SIGTERM lines, its own traceback and the ChildFailedError summary."""
    lines = [
        f"W0601 13:02:11.418000 140 torch/distributed/elastic/multiprocessing/api.py:897] "
        f"Sending process {12340 + r} closing signal SIGTERM"
        for r in range(ranks)
        if r != 3 % ranks
    ]
    lines += [
        "E0601 13:02:12.007000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed "
        f"(exitcode: 1) local_rank: {3 % ranks} (pid: 12343) of binary: /usr/bin/python3",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{SITE}/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        f'  File "{SITE}/torch/distributed/launcher/api.py", line 269, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * 60,
        "train.py FAILED",
        "-" * 60,
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "-" * 60,
        "Root Cause (first observed failure):",
        f"[{3 % ranks}]:",
        "  time      : 2025-06-01_13:02:11",
        "  host      : node-03",
        f"  rank      : {3 % ranks} (local_rank: {3 % ranks})",
        "  exitcode  : 1 (pid: 12343)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "=" * 60,
    ]
    return lines


def log_lines(size: int, seed: int = SEED) -> Iterator[str]:
    """The lines of a log of about ``size`` bytes (within one line of it)."""
    rng = random.Random(seed)
    small = size < 100_000
    tail = interleaved_failure(rng, 2 if small else RANKS, short=small)
    tail += child_failed_summary(2 if small else RANKS)
    extras = unrelated_tracebacks()
    budget = size - _size(tail) - sum(_size(block) for block in extras)
    cuts = [budget * k // 4 for k in (1, 2, 3)]
    filler, written = Filler(rng), 0
    while written < budget:
        if cuts and written >= cuts[0]:
            cuts.pop(0)
            yield from extras.pop(0)
        line = filler.line()
        written += len(line.encode()) + 1
        yield line
    for block in extras:
        yield from block
    yield from tail


def _size(lines: list[str]) -> int:
    return sum(len(line.encode()) + 1 for line in lines)


def log_path(size: int) -> Path:
    return CACHE / f"log-{fmt_size(size)}-{LOG_VERSION}.log"


def ensure_log(size: int) -> Path:
    """The cached log of ``size`` bytes; written on first use (100 MB: ~10 s)."""
    path = log_path(size)
    if path.is_file():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8", newline="\n") as out:
        batch: list[str] = []
        for line in log_lines(size):
            batch.append(line)
            if len(batch) >= 10_000:
                out.write("".join(line + "\n" for line in batch))
                batch.clear()
        out.write("".join(line + "\n" for line in batch))
    os.replace(temporary, path)
    return path
