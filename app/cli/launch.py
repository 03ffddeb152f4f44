"""Running a typer tree with errkb's exit codes; ``errkb serve`` without the rest of the tree.

``run_tree`` maps the error tree of ``app.errors`` to the exit codes in one
place, for the whole tree (``commands``) and for ``serve_tree``: ``errkb
serve`` built the whole command tree first, importing every command's
modules (the verifier, the authoring tools), a tenth of a second of a
server's start that it never uses (issue 23). ``serve_tree`` holds the same
``serve`` command under the same ``errkb`` group, so its options, help and
usage errors read as in the whole tree (``tests/test_cli.py`` compares them).
"""

from __future__ import annotations

import sys

import typer

from app.cli.basics import EXIT_ERROR, EXIT_OK
from app.errors import ErrkbError

HELP = "errkb: an error-signature knowledge base for training failures."


def new_tree() -> typer.Typer:
    """An empty ``errkb`` group with the settings every errkb tree has."""
    return typer.Typer(
        name="errkb",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )


def serve_tree() -> typer.Typer:
    """The ``errkb`` group with ``serve`` alone (a group callback keeps it a subcommand)."""
    from app.cli.serving import serve

    tree = new_tree()
    tree.callback()(_group)
    tree.command("serve")(serve)
    return tree


def _group() -> None:
    """errkb: an error-signature knowledge base for training failures."""


def run_tree(tree: typer.Typer) -> None:
    """Run the command line through ``tree``; maps errkb's errors to exit codes."""
    try:
        code = tree(standalone_mode=False)
    except ErrkbError as exc:
        typer.echo(f"errkb: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except typer.TyperException as exc:  # usage errors: unknown command, bad option
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        sys.exit(EXIT_ERROR)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(EXIT_ERROR)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
