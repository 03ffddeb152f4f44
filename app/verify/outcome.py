"""What a run means: one of six outcomes, with a reason a KB author can act on.

    verified      the repro fails, errkb ranks this article first on its output,
                  and fixed.py exits 0: the article still holds
    stale         the repro no longer fails (fixed upstream?)
    drifted       it fails, but errkb no longer ranks this article first
    fix-broken    the repro is recognised but fixed.py fails too
    unverifiable  no worker meets the requirements (never left pending, E10)
    error         the infrastructure failed: timeout (E1), memory (E4), file
                  size (E5), a runner or executor failure

An infrastructure stop is an *error*, never a verdict on the article: a
repro killed at its timeout did not "fail" the way the article says. A
memory or file-size stop counts as an error only when errkb does not
recognise the output, so an article about a host OOM can still verify.
Pure: the matcher's answer is passed in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from app.verify.model import FIXED, REPRO, Environment, RunResult, ScriptResult

Outcome = Literal["verified", "stale", "drifted", "fix-broken", "unverifiable", "error"]
OUTCOMES: tuple[Outcome, ...] = (
    "verified",
    "stale",
    "drifted",
    "fix-broken",
    "unverifiable",
    "error",
)
GOOD: frozenset[Outcome] = frozenset({"verified", "unverifiable"})  # exit status 0
DETAIL_TAIL = 4000  # characters of the repro's (redacted) output kept in a detail


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str
    script: str = REPRO  # the script whose output explains the verdict


def classify(article_id: str, result: RunResult, ranked_first: str | None) -> Verdict:
    """The outcome of ``result``; ``ranked_first`` is the matcher's top article on the repro."""
    if result.unrunnable is not None:
        return Verdict("unverifiable", result.unrunnable)
    if result.failure is not None:
        return Verdict("error", result.failure)
    repro = result.script(REPRO)
    if repro is None:
        return Verdict("error", "the worker returned no repro.py result")
    stopped = _infrastructure_stop(repro)
    if stopped and (repro.limit is None or ranked_first != article_id):
        return Verdict("error", stopped)
    if repro.succeeded:
        return Verdict("stale", "repro.py exited 0: the failure no longer reproduces")
    if ranked_first != article_id:
        found = ranked_first or "no article"
        return Verdict("drifted", f"repro.py {_ended(repro)}, but errkb ranks {found} first")
    return _judge_fix(result.script(FIXED))


def _judge_fix(fixed: ScriptResult | None) -> Verdict:
    if fixed is None:
        return Verdict("error", "the worker returned no fixed.py result")
    stopped = _infrastructure_stop(fixed)
    if stopped:
        return Verdict("error", stopped, FIXED)
    if not fixed.succeeded:
        return Verdict("fix-broken", f"fixed.py {_ended(fixed)}", FIXED)
    return Verdict("verified", "repro.py fails as the article says; fixed.py exits 0")


def _infrastructure_stop(script: ScriptResult) -> str | None:
    if script.failure is not None:
        return f"runner: {script.failure}"
    if script.timed_out:
        return f"timeout: {script.name} ran past its limit and was killed"
    if script.limit is not None:
        return f"{script.limit}: {script.name} hit the runner's {script.limit} limit"
    return None


def _ended(script: ScriptResult) -> str:
    if script.exit_code is None:
        return f"was killed by signal {script.signal}"
    return f"exited {script.exit_code}"


@dataclass(frozen=True)
class Verification:
    """One recorded run: a line of a JSON Lines bundle and the body of a POST (F4: run_id)."""

    run_id: str
    article_id: str
    content_hash: str
    outcome: Outcome
    environment: Environment
    started_at: datetime
    duration_s: float
    detail: str | None
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "article_id": self.article_id,
            "content_hash": self.content_hash,
            "outcome": self.outcome,
            "environment": self.environment,
            "started_at": self.started_at.isoformat(),
            "duration_s": round(self.duration_s, 3),
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Verification:
        """Parse a bundle line; ``ValueError`` (or ``KeyError``/``TypeError``) when malformed."""
        outcome = str(data["outcome"])
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        started_at = datetime.fromisoformat(str(data["started_at"]))
        if started_at.utcoffset() is None:
            raise ValueError("started_at must carry a time zone")
        environment = data.get("environment") or {}
        if not isinstance(environment, dict):
            raise TypeError("environment must be an object")
        detail = data.get("detail")
        return cls(
            run_id=_identifier(data["run_id"]),
            article_id=_identifier(data["article_id"]),
            content_hash=str(data["content_hash"]),
            outcome=outcome,
            environment=environment,
            started_at=started_at,
            duration_s=float(cast(float, data["duration_s"])),
            detail=None if detail is None else str(detail),
            reason=(str(detail).split("\n", 1)[0] if detail else ""),
        )


_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _identifier(value: object) -> str:
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise ValueError(f"not an identifier: {value!r}")
    return value


def detail_of(verdict: Verdict, result: RunResult | None) -> str:
    """The reason, then the tail of the telling script's redacted output when not verified."""
    script = result.script(verdict.script) if result else None
    if verdict.outcome in GOOD or script is None or not script.output:
        return verdict.reason
    tail = script.output[-DETAIL_TAIL:]
    heading = f"--- {script.name} output (last {len(tail)} characters) ---"
    return f"{verdict.reason}\n{heading}\n{tail}"
