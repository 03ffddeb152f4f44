"""An executor that calls a plain function: the whole verifier runs against it in tests."""

from __future__ import annotations

from collections.abc import Callable

from app.verify.model import Job, Resources, RunResult


class FakeExecutor:
    """``FakeExecutor(lambda job: RunResult(...))``, like httpx's ``MockTransport(handler)``."""

    name = "fake"

    def __init__(
        self, handler: Callable[[Job], RunResult], resources: Resources | None = None
    ) -> None:
        self._handler = handler
        self.resources = resources or Resources.single(cpus=2, gpus=0)
        self.closed = False

    def run(self, job: Job) -> RunResult:
        return self._handler(job)

    def close(self) -> None:
        self.closed = True
