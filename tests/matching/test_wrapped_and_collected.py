"""Issue 18: Ray's ``RayTaskError(<Name>)`` lines and log collectors' prefixes around ranks.

The logs are composed here in the shapes Ray and Python's logging print
(Ray's ``RayTaskError`` formats ``ray.exceptions.RayTaskError(<cause class>):
ray::<Actor>.<method>() (pid=..., ...)`` and then the cause's own traceback).
"""

from __future__ import annotations

import pytest

from app.matching.pipeline import match_text
from app.matching.tracebacks import exception_head
from app.service.kb import LiveKb

DRIVER = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/rlhf/cli/train_ppo_ray.py", line 412, in <module>\n'
    "    train(args)\n"
    '  File "/home/user/rlhf/cli/train_ppo_ray.py", line 190, in train\n'
    "    ray.get(refs)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/ray/_private/worker.py", line 2667, in get\n'
    "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/ray/_private/worker.py", line 864, '
    "in get_objects\n"
    "    raise value.as_instanceof_cause()\n"
)
TASK = (
    "ray::ActorModelRayActor.fit() (pid=3280360, ip=10.48.2.24, "
    "actor_id=5880236a89df1dc1b1a1f48902000000, "
    "repr=<rlhf.trainer.ray.ppo_actor.ActorModelRayActor object at 0x7f0a2c4b1f90>)"
)
OOM_CAUSE = (
    '  File "/home/user/rlhf/trainer/ray/ppo_actor.py", line 131, in fit\n'
    "    status = self.training_step(experience)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 79.15 GiB of which 1.19 GiB is free.\n"
)


@pytest.mark.parametrize(
    ("line", "head"),
    [
        (
            "ray.exceptions.RayTaskError(CheckpointError): ray::A.fit() (pid=1)",
            ("ray.exceptions.RayTaskError(CheckpointError)", "ray::A.fit() (pid=1)"),
        ),
        ("RayTaskError(torch.OutOfMemoryError): x", ("RayTaskError(torch.OutOfMemoryError)", "x")),
    ],
)
def test_a_parenthesised_cause_class_is_an_exception_line(line: str, head: tuple[str, str]) -> None:
    assert exception_head(line, standalone=True) == head
    assert exception_head(line, standalone=False) == head


@pytest.mark.parametrize(
    "line",
    [
        "Model(config): loaded 12 layers",
        "RayTaskError(): x",
        "RayTaskError(CheckpointError: x",
        "ray.exceptions.RayTaskError(checkpoint error): x",
        "main(args): starting",
        "Trainer(ValueError)x: y",
    ],
)
def test_other_parenthesised_lines_are_not_exception_lines(line: str) -> None:
    assert exception_head(line, standalone=True) is None
    assert exception_head(line, standalone=False) is None


def test_ray_task_error_ends_a_driver_traceback(repository_kb: LiveKb) -> None:
    text = DRIVER + f"ray.exceptions.RayTaskError(CheckpointError): {TASK}\n"
    result = match_text(text, repository_kb.index)
    assert result.events[0].exception == "ray.exceptions.RayTaskError(CheckpointError)"
    assert result.events[0].frames
    assert result.top is not None
    assert result.top.article_id == "activation-checkpoint-recompute-mismatch"
    assert any(e.kind == "error" for e in result.top.evidence)
    assert not any(e.kind == "note" for e in result.top.evidence)


def test_ray_task_error_of_a_dead_actor_is_the_wrapper_article(repository_kb: LiveKb) -> None:
    task = TASK.replace("ActorModelRayActor.fit", "TaskRunner.run")
    text = DRIVER + f"ray.exceptions.RayTaskError(ActorDiedError): {task}\n"
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "ray-actor-died-wrapper"
    assert result.events[result.top.event_index].exception == (
        "ray.exceptions.RayTaskError(ActorDiedError)"
    )


def test_the_wrapped_traceback_leads_its_ray_task_error(repository_kb: LiveKb) -> None:
    """RayTaskError is a wrapper: the cause printed inside it is the root cause."""
    text = DRIVER + f"ray.exceptions.RayTaskError(OutOfMemoryError): {TASK}\n" + OOM_CAUSE
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "cuda-oom"
    assert result.events[0].exception == "torch.OutOfMemoryError"
    wrapper = [e for e in result.events if e.exception and "RayTaskError" in e.exception]
    assert len(wrapper) == 1
    assert wrapper[0].consequence


@pytest.mark.parametrize("cause", ["ValueError", "KeyError", "TypeError"])
def test_a_ray_task_error_of_an_unknown_cause_is_the_generic_wrapper_article(
    cause: str, repository_kb: LiveKb
) -> None:
    """No article for the cause: the wrapper's own article says to read the line under it."""
    text = DRIVER + f"ray.exceptions.RayTaskError({cause}): {TASK}\n"
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert result.top.article_id == "ray-task-error-wrapper"


RANK_TRACEBACK = (
    "Traceback (most recent call last):",
    '  File "/w/train.py", line 88, in <module>',
    "    loss.backward()",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 7 has a total "
    "capacity of 79.15 GiB of which 3.19 MiB is free.",
)


@pytest.mark.parametrize(
    "prefix",
    [
        "2025-10-31 03:11:02,473 - app - INFO - [rank7]: ",
        "[default7]:2025-10-31 03:11:02,473 - app - INFO - [rank7]: ",
        "2025-10-31 03:11:02,473 INFO launcher: [default7]:",
    ],
)
def test_a_collectors_prefix_before_a_rank_keeps_the_traceback(
    prefix: str, repository_kb: LiveKb
) -> None:
    bare = match_text("\n".join(RANK_TRACEBACK), repository_kb.index)
    text = "\n".join(prefix + line for line in RANK_TRACEBACK)
    result = match_text(text, repository_kb.index)
    assert result.top is not None
    assert bare.top is not None
    assert result.top.article_id == bare.top.article_id == "cuda-oom"
    assert result.top.score == bare.top.score
    event = result.events[0]
    assert event.exception == "torch.OutOfMemoryError"
    assert len(event.frames) == 1
    assert event.ranks == (7,)
