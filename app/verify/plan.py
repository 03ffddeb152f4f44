"""Decide, before anything runs, which articles this executor can verify (pure).

A run that no host can take is answered *unverifiable* with the reason at
once: a Ray task whose resources no node offers stays pending forever
(kuberay#846, target E10), and a local run would wait for GPUs that never
come. Pure: no files, clock, processes or environment; the caller passes the
articles and the executor's resources in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.articles.model import Article, Repro, Requirements
from app.verify.model import Host, Resources


@dataclass(frozen=True)
class PlannedRun:
    """An article this executor can run."""

    article_id: str
    repro: Repro


@dataclass(frozen=True)
class Unrunnable:
    """An article no host of this executor can run, and why (reported *unverifiable*)."""

    article_id: str
    reason: str


@dataclass(frozen=True)
class Plan:
    """Runs to do, runs to report unverifiable, and ids the caller got wrong."""

    runs: tuple[PlannedRun, ...]
    unrunnable: tuple[Unrunnable, ...]
    refused: tuple[str, ...]  # "unknown article x", "article y has no repro"


def make_plan(articles: Mapping[str, Article], ids: Sequence[str], resources: Resources) -> Plan:
    """Plan one run per chosen article (every article with a repro when ``ids`` is empty)."""
    chosen, refused = _choose(articles, ids)
    runs: list[PlannedRun] = []
    unrunnable: list[Unrunnable] = []
    for article_id in chosen:
        repro = articles[article_id].repro
        assert repro is not None  # _choose keeps only articles with a repro
        reason = why_not(repro.requires, resources)
        if reason is None:
            runs.append(PlannedRun(article_id, repro))
        else:
            unrunnable.append(Unrunnable(article_id, reason))
    return Plan(tuple(runs), tuple(unrunnable), tuple(refused))


def _choose(articles: Mapping[str, Article], ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Every served article with a repro; named ones may be drafts (an author trying one)."""
    if not ids:
        served = (i for i, a in articles.items() if a.repro is not None and a.status == "active")
        return sorted(served), []
    chosen: list[str] = []
    refused: list[str] = []
    for article_id in dict.fromkeys(ids):  # keep the order, drop repeats
        article = articles.get(article_id)
        if article is None:
            refused.append(f"unknown article {article_id!r}")
        elif article.repro is None:
            refused.append(f"article {article_id!r} has no repro")
        elif article.status == "retired":
            refused.append(f"article {article_id!r} is retired")
        else:
            chosen.append(article_id)
    return chosen, refused


def why_not(requires: Requirements, resources: Resources) -> str | None:
    """None when one host can take the run; else a reason a reader understands (E10)."""
    if any(_fits(requires, host) for host in resources.hosts):
        return None
    most_gpus = max((h.gpus for h in resources.hosts), default=0)
    most_cpus = max((h.cpus for h in resources.hosts), default=0)
    if requires.gpus > most_gpus:
        return f"needs {requires.gpus} GPU(s) on one host; the most any host offers is {most_gpus}"
    if requires.processes > most_cpus:
        return (
            f"needs {requires.processes} CPU(s) for its processes on one host; "
            f"the most any host offers is {most_cpus}"
        )
    return f"no single host offers {requires.gpus} GPU(s) and {requires.processes} CPU(s) together"


def _fits(requires: Requirements, host: Host) -> bool:
    """One CPU per rank and every GPU on one host (torchrun --standalone is single-node)."""
    return requires.gpus <= host.gpus and requires.processes <= host.cpus
