"""Run each job as a Ray task sized by the article's requirements; GPU nodes are GPU workers.

* ``num_cpus`` = the repro's processes, ``num_gpus`` = its GPUs; Ray sets the
  task's ``CUDA_VISIBLE_DEVICES`` and the runner passes those GPUs on.
* Feasibility first: a task whose resources no node offers would stay pending
  forever (kuberay#846), so ``run`` checks every live node (``ray.nodes()``,
  per node, since a repro's GPUs must sit on one host: the cluster-wide
  ``ray.cluster_resources()`` total would call 2 x 1 GPU feasible) and answers
  *unverifiable* at once (E10). ``ray.wait`` with a deadline and
  ``ray.cancel(force=True)`` are the backstop.
* ``max_retries`` re-runs a task whose worker died (E11); ``max_calls=1`` gives
  every GPU task a fresh worker process, so no CUDA state carries over (E12).
  Ray refuses ``max_calls`` in ``.options()``, hence one remote function per kind.

Ray is imported lazily: the rest of errkb runs without the ``ray`` extra.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any

from app.errors import ConfigError
from app.verify.executors.base import failed, refusal
from app.verify.model import Host, Job, Resources, RunnerConfig, RunResult
from app.verify.runner import run_job

TASK_RETRIES = 3  # Ray's default, said out loud: worker death only, never the script's failure


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("the ray executor needs the 'ray' extra (uv sync --extra ray)") from exc
    return ray


def _on_worker(job: Job, config: RunnerConfig) -> RunResult:
    """The task body, on a Ray worker: run the job on the GPUs Ray assigned to this task."""
    ray = _ray()
    gpu_ids = [str(gpu) for gpu in ray.get_gpu_ids()]
    return run_job(job, config, gpu_ids, RayExecutor.name)


def cpu_task(job: Job, config: RunnerConfig) -> RunResult:
    return _on_worker(job, config)


def gpu_task(job: Job, config: RunnerConfig) -> RunResult:
    return _on_worker(job, config)


@functools.cache
def _remote(gpu: bool) -> Any:
    ray = _ray()
    if gpu:
        return ray.remote(max_retries=TASK_RETRIES, max_calls=1)(gpu_task)
    return ray.remote(max_retries=TASK_RETRIES)(cpu_task)


def task_options(job: Job) -> dict[str, object]:
    """What a job asks of a node: a CPU per rank and its GPUs."""
    return {"num_cpus": max(1, job.processes), "num_gpus": job.gpus}


def cluster_resources(ray: Any) -> Resources:
    """The live nodes, each as a host (a repro never spans nodes)."""
    hosts = [
        Host(int(node["Resources"].get("CPU", 0)), int(node["Resources"].get("GPU", 0)))
        for node in ray.nodes()
        if node.get("Alive")
    ]
    return Resources(tuple(hosts))


class RayExecutor:
    """Submits jobs to a Ray cluster (``address``) or the one this process already joined."""

    name = "ray"

    def __init__(
        self, config: RunnerConfig, *, address: str | None = None, queue_timeout_s: float = 3600.0
    ) -> None:
        self._ray = _ray()
        self._owns = not self._ray.is_initialized()
        if self._owns:  # a cluster (ray://head:10001 from outside it), or a local instance
            local = {} if address else {"include_dashboard": False}
            self._ray.init(address=address, log_to_driver=False, **local)
        self._config = config
        self._queue_timeout_s = queue_timeout_s
        self.resources = cluster_resources(self._ray)

    def run(self, job: Job) -> RunResult:
        self.resources = cluster_resources(self._ray)  # a node may have left since planning
        refused = refusal(job, self.resources, self.name)
        if refused is not None:
            return refused
        started = datetime.now(UTC)
        ref = _remote(job.gpus > 0).options(**task_options(job)).remote(job, self._config)
        return self._collect(job, ref, started)

    def _collect(self, job: Job, ref: Any, started: datetime) -> RunResult:
        deadline = self._deadline(job)
        ready, _ = self._ray.wait([ref], timeout=deadline)
        if not ready:
            self._ray.cancel(ref, force=True)
            return failed(job, self.name, f"ray: no result within {deadline:.0f} s", started)
        try:
            result: RunResult = self._ray.get(ref)
        except self._ray.exceptions.RayError as exc:
            reason = f"ray: {type(exc).__name__}: {str(exc).strip()[:500]}"
            return failed(job, self.name, reason, started)
        return result

    def _deadline(self, job: Job) -> float:
        """Queueing, the probe (two with fixed.py's own set), both scripts and their kills."""
        limits = self._config.limits
        scripts = 2 * limits.worst_case_s(job.timeout_s)
        probes = 1 if job.fixed_packages is None else 2
        return self._queue_timeout_s + probes * limits.probe_timeout_s + scripts

    def close(self) -> None:
        """Disconnect, if this executor connected; a caller's own ``ray.init`` is left alone."""
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
