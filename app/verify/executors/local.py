"""Run jobs on this host, several at once: a small FIFO scheduler over CPU slots and GPUs.

Every job takes one slot (the slots default to the CPU count) and, for a GPU
job, that many GPUs handed out by index through ``CUDA_VISIBLE_DEVICES``, so
two repros never share a GPU. Jobs start in the order they were submitted
(strict FIFO, no back-filling): a job waiting for two GPUs is never starved
by a stream of one-GPU jobs. A job no host slot could ever satisfy is
refused at once as unverifiable (E10).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import deque
from collections.abc import Iterator, Sequence

from app.verify import environment
from app.verify.executors.base import refusal
from app.verify.model import Job, Resources, RunnerConfig, RunResult
from app.verify.runner import run_job


def host_cpus() -> int:
    """CPUs this process may use (its affinity mask, not the machine's count)."""
    return len(os.sched_getaffinity(0)) or 1


class Slots:
    """Blocking, FIFO allocation of job slots and GPU indices."""

    def __init__(self, slots: int, gpu_ids: Sequence[str]) -> None:
        self._free_slots = slots
        self._free_gpus = list(gpu_ids)
        self._queue: deque[object] = deque()
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def take(self, gpus: int) -> Iterator[list[str]]:
        """Wait for one slot and ``gpus`` GPUs (in turn); yield the GPU indices."""
        ticket = object()
        with self._changed:
            self._queue.append(ticket)
            self._changed.wait_for(lambda: self._fits(ticket, gpus))
            self._queue.popleft()
            self._free_slots -= 1
            given, self._free_gpus = self._free_gpus[:gpus], self._free_gpus[gpus:]
            self._changed.notify_all()
        try:
            yield given
        finally:
            with self._changed:
                self._free_slots += 1
                self._free_gpus.extend(given)
                self._changed.notify_all()

    def _fits(self, ticket: object, gpus: int) -> bool:
        return self._queue[0] is ticket and self._free_slots > 0 and len(self._free_gpus) >= gpus


class LocalExecutor:
    """Runs on this host through ``runner.run_job``."""

    name = "local"

    def __init__(
        self,
        config: RunnerConfig,
        *,
        cpus: int | None = None,
        gpu_ids: Sequence[str] | None = None,
        slots: int | None = None,
    ) -> None:
        self._config = config
        cpus = cpus or host_cpus()
        if gpu_ids is None:
            gpu_ids = [gpu.index for gpu in environment.detect_gpus()]
        self.resources = Resources.single(cpus=cpus, gpus=len(gpu_ids))
        self._slots = Slots(slots or cpus, gpu_ids)

    def run(self, job: Job) -> RunResult:
        refused = refusal(job, self.resources, self.name)
        if refused is not None:
            return refused
        with self._slots.take(job.gpus) as gpu_ids:
            return run_job(job, self._config, gpu_ids, self.name)

    def close(self) -> None:
        """Nothing to release: every run cleans up after itself."""
