"""``errkb match`` without typer or pydantic: a job hook calls it once per log (issue 23).

Building typer's command tree and validating the settings with pydantic cost
more than loading the index and matching. The common call, ``errkb match
FILE`` with ``--json``, ``--lang``, ``--top`` and ``--kb``, is parsed here and
answered as the typer command answers it: same output, same exit codes.
Anything else returns None before doing anything and takes the typer path,
so usage errors, ``--help`` and settings that must be validated keep their
messages: an unusual argument, an ``ERRKB_*`` setting other than the three
a match reads or ones any text satisfies, an output stream typer would
re-encode.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from app.cli.basics import EXIT_ERROR, EXIT_NEGATIVE, EXIT_OK, read_input
from app.errors import ErrkbError
from app.service import collector

VALUED = ("--lang", "--top", "--kb")
TOP_RANGE = range(1, 51)  # the typer option's min and max
LANGS = ("en", "zh")  # Settings.default_lang
# Settings fields a match reads, and those any string satisfies (str, SecretStr):
# with only these in the environment, pydantic could not refuse it.
READ = ("kb_path", "index_dir", "default_lang")
ANY_TEXT = ("database_url", "host", "public_url")
# Every Settings field (tests/test_quick_match.py keeps the list equal to the model's):
# an ERRKB_* name that is none of them is ignored, as pydantic-settings ignores it
# (the job hooks' ERRKB_URL, ERRKB_LANG, ERRKB_TAIL_BYTES); any other field must be
# checked by pydantic, so its presence sends the call to typer.
SETTINGS_FIELDS = frozenset(
    (
        *("database_url", "kb_path", "index_dir", "host", "port", "default_lang", "log_level"),
        *("max_body_bytes", "max_text_bytes", "big_body_bytes", "big_match_slots"),
        *("big_followers", "big_follower_max_bytes", "rate_limit_per_minute"),
        *("rate_limit_burst", "trusted_proxies", "allowed_hosts", "https", "public_url"),
        *("cache_seconds", "answer_seconds", "body_seconds", "docs", "retention_days"),
        *("big_body_min_rate", "stored_bytes_per_client_day"),
        *("replicas", "stale_after_days", "stale_warn_days", "dryrun_days", "dryrun_max_loss"),
        "echo_endpoint",
    )
)
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # what click strips when not on a terminal


@dataclass(frozen=True)
class MatchCall:
    """One ``errkb match`` call, with the settings it reads."""

    file: str
    as_json: bool
    lang: str
    top: int
    kb_path: Path
    index_dir: Path


def quick_match(args: Sequence[str]) -> int | None:
    """The exit code of ``errkb match ARGS``; None to leave the call to typer."""
    call = parse_call(args, os.environ)
    if call is None or not (_plain(sys.stdout) and _plain(sys.stderr)):
        return None
    try:
        return _match(call)
    except ErrkbError as exc:
        _echo(f"errkb: {exc}", sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130  # typer's answer to ^C
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        from typer._click.utils import PacifyFlushWrapper  # as typer does on a closed pipe

        sys.stdout = PacifyFlushWrapper(sys.stdout)
        sys.stderr = PacifyFlushWrapper(sys.stderr)
        return 1


def parse_call(args: Sequence[str], environ: Mapping[str, str]) -> MatchCall | None:
    """The call, when its arguments and settings are ones the quick path answers as typer would."""
    options = _options(args)
    settings = _settings(environ)
    if options is None or settings is None:
        return None
    file, as_json, values = options
    top = values.get("--top", "3")
    if not (top.isascii() and top.isdigit()) or int(top) not in TOP_RANGE:
        return None
    kb = values.get("--kb") or settings.get("kb_path", "kb")
    return MatchCall(
        file=file,
        as_json=as_json,
        lang=values.get("--lang") or settings.get("default_lang", "en"),
        top=int(top),
        kb_path=Path(kb),
        index_dir=Path(settings.get("index_dir", "var/index")),
    )


def _options(args: Sequence[str]) -> tuple[str, bool, dict[str, str]] | None:
    """FILE, ``--json`` and the valued options; None for anything else (``--help``, ``--``)."""
    file: str | None = None
    as_json = False
    values: dict[str, str] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-" or (arg and not arg.startswith("-")):
            if file is not None:
                return None
            file = arg
        elif arg == "--json" and not as_json:
            as_json = True
        else:
            name, equals, value = arg.partition("=")
            if name not in VALUED or name in values:
                return None
            if not equals:
                if not rest:
                    return None
                value = rest.pop(0)
            if not value or value.startswith("-"):
                return None
            values[name] = value
    return None if file is None else (file, as_json, values)


def _settings(environ: Mapping[str, str]) -> dict[str, str] | None:
    """The ``ERRKB_*`` values a match reads, when pydantic-settings would accept them all.

    Names are case-insensitive there, as here; two spellings of one name, a
    setting pydantic checks, an empty path or a language it would refuse leave
    the call to the typer path, which validates and explains. Names that are
    no setting are ignored there and here.
    """
    found: dict[str, str] = {}
    for key, value in environ.items():
        if key[:6].upper() != "ERRKB_":
            continue
        name = key[6:].lower()
        if name not in SETTINGS_FIELDS:
            continue  # not a setting: pydantic-settings does not read it either
        if name in found or name not in READ + ANY_TEXT:
            return None
        found[name] = value
    if found.get("default_lang", "en") not in LANGS:
        return None
    if "" in (found.get("kb_path"), found.get("index_dir")):
        return None
    return found


def _plain(stream: TextIO | None) -> bool:
    """A stream click writes to as it is (it re-wraps one whose encoding is ASCII)."""
    encoding = getattr(stream, "encoding", None)
    if stream is None or not encoding or getattr(stream, "errors", None) is None:
        return False
    try:
        return codecs.lookup(encoding).name != "ascii"
    except LookupError:
        return False


def _match(call: MatchCall) -> int:
    """What ``knowledge.match`` does, step for step."""
    data = read_input(call.file)
    from app.matching.pipeline import MatchOptions, match_text
    from app.service.quick_index import index_to_match
    from app.service.redact_prefilter import install_prefilter

    index = index_to_match(call.kb_path, call.index_dir)
    install_prefilter(call.index_dir)  # the redaction set, loaded instead of compiled
    collector.resume()  # start-up made little garbage; a big log's match may make more
    result = match_text(data, index, MatchOptions(lang=call.lang, top_k=call.top))
    if call.as_json:
        _echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2), sys.stdout)
    else:
        from app.matching.render import render_text

        _echo(render_text(result), sys.stdout)
    return EXIT_NEGATIVE if result.unknown else EXIT_OK


def _echo(text: str, stream: TextIO) -> None:
    """``typer.echo``: a newline, ANSI codes stripped off a terminal, flushed."""
    out = text + "\n"
    try:
        terminal = stream.isatty()
    except Exception:  # click's isatty: a stream that cannot say is not a terminal
        terminal = False
    if not terminal:
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()
