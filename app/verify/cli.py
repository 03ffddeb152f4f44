"""``errkb verify``: run the articles' reproductions and record what still holds.

    errkb verify [IDS...] [--executor local|ray] [--python PATH] [--output FILE.jsonl]
                 [--post URL --token TOKEN] [--kb PATH] [--jobs N] [--ray-address ADDR]
                 [--envs DIR] [--uv PATH]
    errkb verify envs [IDS...] [--kb PATH] [--envs DIR] [--uv PATH] [--prune]
    errkb verify ingest FILE.jsonl [--database-url URL]

Without ``--python``, the local executor runs each article in the cached
environment of its ``requires.packages`` set (``envset.py``, built by
``envbuild.py`` under ``--envs``, default ``.venv-repro/``); ``envs`` builds
them all (``make repro-env``).

``run`` is the default command: ``errkb verify dtensor-mixed`` is
``errkb verify run dtensor-mixed`` (an article called ``run``, ``envs`` or
``ingest`` is written ``errkb verify run run``). Exit status: 0 when every
run is verified or unverifiable, 1 when any is stale, drifted, fix-broken or
an error (for ingest, when a run conflicts with a stored one; for envs, when
an environment cannot be built), 2 on usage
errors, an invalid KB or an unreachable service (``app.cli.main`` maps the
error tree). This module may not read ``Settings`` (the layer contract), so
the few ``ERRKB_*`` variables it honours are typer ``envvar`` options.
"""

from __future__ import annotations

import enum
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from app.articles.load import load_kb
from app.errors import InputError
from app.service.kb import prepare_valid_kb
from app.verify.bundle import read_bundle, write_bundle
from app.verify.envbuild import build_all, interpreters_for, open_store, plan_for_runs
from app.verify.envset import cpu_runs_only
from app.verify.executors.base import Executor
from app.verify.model import Resources, RunnerConfig
from app.verify.outcome import Verification
from app.verify.plan import make_plan
from app.verify.report import all_good, summary, table
from app.verify.verifier import plan_for, verify

EXIT_OK, EXIT_NEGATIVE = 0, 1
DEFAULT_ENVS = Path(".venv-repro")
ANY_SIZE = 1 << 16  # `envs` builds for every CPU run, whatever this host's size


class _RunByDefault(TyperGroup):
    """A group whose first word, when it names no subcommand, belongs to ``run``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's vendored Context
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["run", *args]
        return super().parse_args(ctx, args)


verify_cli = typer.Typer(
    cls=_RunByDefault,
    help="Run the articles' reproductions and record which still hold (default command: run).",
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ExecutorKind(enum.StrEnum):
    local = "local"
    ray = "ray"


Ids = Annotated[list[str] | None, typer.Argument(help="Article ids (default: every repro).")]
KbPath = Annotated[Path, typer.Option("--kb", envvar="ERRKB_KB_PATH", help="KB folder.")]
Python = Annotated[
    Path | None,
    typer.Option(
        help="One interpreter for every run (default, local executor: each article's package "
        "set gets its own environment under --envs; ray: errkb's own interpreter path)."
    ),
]
Envs = Annotated[
    Path,
    typer.Option(
        "--envs", envvar="ERRKB_REPRO_ENVS", help="Folder of the per-set environments (cached)."
    ),
]
Uv = Annotated[
    Path | None,
    typer.Option("--uv", envvar="ERRKB_UV", help="uv binary (default: .tools/bin/uv, then PATH)."),
]


@verify_cli.command("run")
def run(
    ids: Ids = None,
    executor: Annotated[ExecutorKind, typer.Option(help="Where runs execute.")] = (
        ExecutorKind.local
    ),
    python: Python = None,
    output: Annotated[Path | None, typer.Option(help="Write a JSON Lines bundle.")] = None,
    post_url: Annotated[str | None, typer.Option("--post", help="Service base URL.")] = None,
    token: Annotated[
        str | None, typer.Option(envvar="ERRKB_VERIFY_TOKEN", help="Bearer token for --post.")
    ] = None,
    kb: KbPath = Path("kb"),
    jobs: Annotated[int | None, typer.Option(min=1, help="Local runs at once.")] = None,
    ray_address: Annotated[str | None, typer.Option(help="Ray cluster address.")] = None,
    envs: Envs = DEFAULT_ENVS,
    uv: Uv = None,
) -> None:
    """Verify articles (all with a repro when no id is given) and print a table."""
    if post_url and not token:
        raise typer.BadParameter("--post needs --token (or ERRKB_VERIFY_TOKEN)")
    interpreter = str((python or Path(sys.executable)).absolute())  # not resolve(): a venv's
    # python is a symlink out of the venv, and the venv is what makes the environment
    if executor is ExecutorKind.local and not Path(interpreter).is_file():
        raise typer.BadParameter(f"no interpreter at {interpreter}", param_hint="--python")
    live = prepare_valid_kb(kb, self_tests=False)
    chosen = _executor(executor, RunnerConfig(python=interpreter), jobs, ray_address)
    try:
        plan = plan_for(live, ids or [], chosen)
        interpreters = None
        if python is None and executor is ExecutorKind.local:  # one environment per package set
            plan = cpu_runs_only(plan)
            interpreters = interpreters_for(plan, open_store(envs, uv), _said)
        results = verify(live, plan, chosen, _progress, interpreters)
    finally:
        chosen.close()
    typer.echo(table(results))
    typer.echo(summary(results))
    _deliver(results, output, post_url, token)
    raise typer.Exit(EXIT_OK if all_good(results) else EXIT_NEGATIVE)


def _deliver(
    results: list[Verification], output: Path | None, post_url: str | None, token: str | None
) -> None:
    """The bundle first: a service that is down must not cost the results."""
    if output is not None:
        write_bundle(output, results)
        typer.echo(f"wrote {len(results)} run(s) to {output}")
    if post_url and token:
        from app.verify.post import post

        posted = post(results, post_url, token)
        typer.echo(f"posted: {posted.created} new, {posted.duplicates} already stored")


def _executor(
    kind: ExecutorKind, config: RunnerConfig, jobs: int | None, ray_address: str | None
) -> Executor:
    if kind is ExecutorKind.ray:
        from app.verify.executors.ray import RayExecutor

        return RayExecutor(config, address=ray_address)
    from app.verify.executors.local import LocalExecutor

    return LocalExecutor(config, slots=jobs)


def _said(line: str) -> None:
    typer.echo(line, err=True)


@verify_cli.command("envs")
def envs_command(
    ids: Ids = None,
    kb: KbPath = Path("kb"),
    envs: Envs = DEFAULT_ENVS,
    uv: Uv = None,
    prune: Annotated[
        bool, typer.Option(help="Remove the environments no CPU article's set uses any more.")
    ] = False,
) -> None:
    """Build (or reuse) the environment of every CPU article's package set: make repro-env."""
    if prune and ids:
        raise typer.BadParameter("--prune looks at every article: give no ids")
    articles = {key: loaded.article for key, loaded in load_kb(kb).kb.articles.items()}
    plan = make_plan(articles, ids or [], Resources.single(cpus=ANY_SIZE, gpus=0))
    if plan.refused:
        raise InputError("; ".join(plan.refused))
    wanted = plan_for_runs(plan)
    store = open_store(envs, uv)
    report = build_all(store, wanted.specs, _said)
    users = Counter([*wanted.by_article.values(), *wanted.fixed_by_article.values()])
    for key, spec in sorted(wanted.specs.items()):
        state = "FAILED" if key in report.failed else str(store.python(spec))
        typer.echo(f"{key}  {users[key]:>3} article(s)  {spec.describe()}  {state}")
    for problem in report.failed.values():
        typer.echo(problem, err=True)
    for article_id, reason in wanted.conflicts.items():
        typer.echo(f"{article_id}: {reason}", err=True)
    if prune:
        for key in store.prune(wanted.specs):
            typer.echo(f"removed {envs / key}")
    raise typer.Exit(EXIT_NEGATIVE if report.failed or wanted.conflicts else EXIT_OK)


def _progress(verification: Verification) -> None:
    line = f"{verification.article_id}: {verification.outcome} ({verification.duration_s:.1f}s)"
    typer.echo(line, err=True)


@verify_cli.command("ingest")
def ingest_command(
    file: Annotated[Path, typer.Argument(help="A JSON Lines bundle from errkb verify --output.")],
    database_url: Annotated[
        str | None, typer.Option(envvar="ERRKB_DATABASE_URL", help="SQLAlchemy URL.")
    ] = None,
) -> None:
    """Load a bundle into the database; each run is stored once, however often it is loaded."""
    from app.store.engine import make_engine
    from app.verify.ingest import ingest

    if not database_url:
        raise typer.BadParameter("give --database-url or set ERRKB_DATABASE_URL")
    runs = read_bundle(file)
    engine = make_engine(database_url)
    try:
        result = ingest(engine, runs)
    finally:
        engine.dispose()
    typer.echo(
        f"{result.created} new, {result.duplicates} already stored, "
        f"{len(result.conflicts)} conflicting"
    )
    for run_id in result.conflicts:
        typer.echo(f"conflict: run {run_id} is stored with a different payload", err=True)
    raise typer.Exit(EXIT_NEGATIVE if result.conflicts else EXIT_OK)
