"""The ``errkb`` command tree (typer), one module per command group.

``run`` maps the error tree of ``app.errors`` to the exit codes (``launch.run_tree``).
The groups: ``knowledge`` (lint, match, schema), ``serving`` (config,
serve, report, version), ``database`` (db ...), ``tokens`` (token ...),
``writing`` (new, dryrun, feedback ...); ``verify`` lives in ``app.verify.cli``.
"""

from __future__ import annotations

from app.cli import agents, database, knowledge, serving, tokens, writing
from app.cli.launch import new_tree, run_tree
from app.verify.cli import verify_cli

cli = new_tree()
cli.add_typer(database.db_cli, name="db")
cli.add_typer(tokens.token_cli, name="token")

# Top-level commands in the order ``errkb --help`` lists them.
COMMANDS = (
    ("config", serving.config),
    ("lint", knowledge.lint),
    ("match", knowledge.match),
    ("schema", knowledge.schema),
    ("serve", serving.serve),
    ("report", serving.report),
    ("run", serving.run),
    ("mcp", agents.mcp),
    ("version", serving.version),
    ("new", writing.new_article),
    ("dryrun", writing.dryrun),
)
# ``errkb run -- CMD ARGS``: the command's own options are not errkb's.
_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
for _name, _command in COMMANDS:
    cli.command(_name, context_settings=_PASS_THROUGH if _name == "run" else None)(_command)
cli.add_typer(verify_cli, name="verify")
cli.add_typer(writing.feedback_cli, name="feedback")


def run() -> None:
    """Run the command line through typer; maps errkb's errors to exit codes."""
    run_tree(cli)
