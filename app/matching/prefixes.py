"""Line prefixes: who printed a line, and when, taken off so the rest can be parsed.

A multi-rank job log is eight processes writing into one file through
launchers that each add their own prefix, often several at once:
``[default1]:[rank1]:   File "..."`` (torchrun ``--tee`` around PyTorch's own
rank prefix), ``2024-05-01T12:00:00.123Z [rank3]: ...`` (kubectl
``--timestamps``), ``node01:12345:12345 [0] NCCL INFO ...``. The extractor
needs the bare content (a traceback parser looks at indentation) and the
stream each line belongs to, so that one rank's traceback becomes contiguous
again when eight ranks are interleaved (research/field.md section 14).

Parsing is one anchored match per line of a pattern built from one table of
prefix rows: a log shipper's tag, srun's label, then up to ``MAX_PREFIXES``
rows in any order, over at most ``PREFIX_WINDOW`` characters. It runs under
Python's ``re`` on purpose: the google-re2 binding costs 1.3 us per call that
does not match and 4.6 us per call that does (measured here; Python's ``re``:
0.13 and 0.16 us), and this runs on every line of the log. That is allowed for
patterns that are linear and see bounded text (DESIGN step 3): every
quantified atom below is bounded and followed by a literal or a class it
cannot match, each row consumes at least one character and nothing follows
the repeat (so no round is ever revisited), and ``endpos`` caps the text.
``test_prefixes`` times adversarial lines to keep that true.
"""

from __future__ import annotations

import re
from functools import cache
from operator import itemgetter
from typing import NamedTuple

PREFIX_WINDOW = 512  # no prefix chain is longer; the window bounds every regex call
MAX_PREFIXES = 8  # [pod] ts [default1]:[rank1]:[W ...] is five; stop a hostile line early

# Outermost, only at the start of a line, in this order: a Markdown blockquote around a
# pasted log, what a log shipper adds, srun --label, pdsh. Each row says its shape.
LEADING_TABLE: tuple[tuple[str, str], ...] = (
    # a log pasted into a Markdown blockquote: "> [rank0]: Traceback", nested "> > "
    ("quote", r"(?:> ?){1,4}"),
    # docker compose / log shippers "worker-3  | ", kubectl --prefix "[pod/worker-3/pytorch] "
    ("pod", r"(?P<pod_n>[\w.-]{1,128}) {1,32}\| "),
    ("k8s", r"\[pod/(?P<k8s_n>[\w.-]{1,128})/[\w.-]{1,128}\] ?"),
    # srun --label "3: " (padded " 3: " in large jobs): the task id is the rank
    ("srun", r" {0,5}(?P<srun_n>\d{1,5}): "),
    # pdsh (DeepSpeed's multi-node launcher) "worker-3: ": a host name with a digit in it,
    # lower-case first (an exception name is not one); "rank3: " is the bare rank row's
    ("pdsh", r"(?!rank\d)(?P<pdsh_n>[a-z][a-z0-9-]{0,63}?\d[a-z0-9-]{0,63}): "),
)

_LEVELS = "(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"  # Python logging's level names

# (name, pattern): the rows that may follow each other in any order. Where two could
# match at one place the earlier wins: the specific rank forms before "[role3]:".
PREFIX_TABLE: tuple[tuple[str, str], ...] = (
    # Ray's log monitor: "(RayTrainWorker pid=4123, ip=10.0.0.5) ", "(pid=4123) " (a process)
    ("ray", r"\((?:[\w.:-]{1,128} )?pid=(?P<ray_p>\d{1,10})(?:, ip=[\w.:-]{1,64})?\) ?"),
    # mpirun --tag-output: "[1,3]<stderr>:" (job id, rank)
    ("mpi", r"\[\d{1,9},(?P<mpi_n>\d{1,6})\]<std(?:out|err|diag)>: ?"),
    # PyTorch's own rank prefix, "[rank3]: " (a space follows unless a c10 tag does)
    ("rank", r"\[rank(?P<rank_n>\d{1,6})\]: ?"),
    # torchrun --tee / accelerate: "[default0]:", "[trainer3]:" (role + local rank)
    ("role", r"\[[A-Za-z_][A-Za-z_-]{0,30}(?P<role_n>\d{1,6})\]:"),
    # a plain "rank3:" written by user code or a launcher wrapper
    ("bare_rank", r"rank(?P<bare_n>\d{1,6}): ?"),
    # ISO 8601 / Python logging / DeepSpeed: "2024-05-01T12:00:00.123Z", "[2024-05-01 12:00:00,1]"
    (
        "iso",
        r"\[?(?P<iso_d>\d{4}-\d\d-\d\d)[T ](?P<iso_t>\d\d:\d\d:\d\d)(?:[.,](?P<iso_f>\d{1,9}))?"
        r"(?:Z|[+-]\d\d:?\d\d)?\]?:? ?",
    ),
    # glog-style tags from torchelastic and c10 (c10 prints month*100+day unpadded):
    # "W1122 00:47:07.694000 12943 torch/x/api.py:1028] ", "[E501 12:00:00.123456 123 Foo.cpp:616] "
    (
        "glog",
        r"\[?(?P<glog_l>[IWEF])\d{3,4} \d\d:\d\d:\d\d\.\d{1,9}(?: {1,8}\d{1,10})? {1,8}"
        r"[\w./-]{1,160}:\d{1,7}\] ?",
    ),
    # short c10 tags: "[W reducer.cpp:1360] ", "[E ProcessGroupNCCL.cpp:475] "
    ("c10", r"\[(?P<c10_l>[IWEF]) [\w./-]{1,160}:\d{1,7}\] ?"),
    # log levels and DeepSpeed's location tag: "[INFO] ", "[launch.py:256:main] "
    ("level", r"\[(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\] ?"),
    ("where", r"\[[\w.-]{1,80}\.py:\d{1,7}:[\w<>]{1,80}\] ?"),
    # Python logging headers of error records, in the three common formats (a
    # dataloader-shm report pasted as "2025-06-11 08:14:52,123 ERROR trainer: RuntimeError:
    # ..."): "%(levelname)s %(name)s: ", "- %(name)s - %(levelname)s - ", "ERROR:root:".
    # INFO/WARNING headers stay in the content: an error retried and logged as a warning
    # must not become a failure of its own.
    ("pylog", r"(?:ERROR|CRITICAL|FATAL) [\w.<>-]{1,80}: "),
    ("pylog_dash", r"- [\w.<>-]{1,80} - (?:ERROR|CRITICAL|FATAL) - "),
    ("pylog_basic", r"(?:ERROR|CRITICAL|FATAL):[\w.<>-]{1,80}:"),
    # A log collector's record header around a rank's own prefix (issue 18, shape 3):
    # "2025-10-31 03:11:02,473 - app - INFO - [rank7]: Traceback ...", "INFO:root:[rank7]: ".
    # The rank's line was captured and logged: the collector's level is its own, so any
    # level goes, but only before "[rankN]:" or a role prefix "[default0]:"; ERROR headers
    # are the rows above (they start a record).
    (
        "collector",
        rf"(?:- [\w.<>-]{{1,80}} - {_LEVELS} - |{_LEVELS} [\w.<>-]{{1,80}}: "
        rf"|{_LEVELS}:[\w.<>-]{{1,80}}:)"
        r"(?=\[rank\d{1,6}\]:|\[[A-Za-z_][A-Za-z_-]{0,30}\d{1,6}\]:)",
    ),
    # syslog / journald: "May 01 12:00:00 host kernel: ", "May  1 12:00:00 host python[123]: "
    (
        "syslog",
        r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w./-]{1,64}(?:\[\d{1,10}\])?: ?",
    ),
    # dmesg: "[12345.678901] ", dmesg -T: "[Wed May  1 12:00:00 2024] "
    ("dmesg", r"\[ {0,12}\d{1,12}\.\d{1,9}\] ?"),
    ("dmesg_t", r"\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] ?"),
    # NCCL's debug prefix "node01:12345:12345 [0] ": host, pid, tid, local CUDA device (not a rank)
    ("nccl", r"(?P<nccl_h>[\w.-]{1,128}):(?P<nccl_p>\d{1,10}):\d{1,10} \[\d{1,4}\] ?"),
)

# Logger tags: a line carrying one begins a new log record (a message continuation never
# does). Bare timestamps are different: kubectl --timestamps and journald stamp every line,
# continuation lines included, so the extractor decides per stream what they mean.
_RECORD_ROWS = ("glog", "c10", "level", "where", "pylog", "pylog_dash", "pylog_basic", "nccl")
_STAMP_ROWS = ("iso", "syslog", "dmesg", "dmesg_t")
# When several rank prefixes nest, the most global one wins: PyTorch's own [rankN] is
# the global rank, then mpirun's, a bare "rankN:", torchrun's role prefix (a local
# rank), srun's task id.
_RANK_PRECEDENCE = ("rank_n", "mpi_n", "bare_n", "role_n", "srun_n")


class LinePrefix(NamedTuple):
    """What the prefixes of one line said, and the content they wrapped."""

    rank: int | None  # innermost rank prefix: "[default1]:[rank5]:" -> 5
    content: str  # the line without its prefixes
    stream: str | None  # "rank:3", "pod:worker-3", "proc:node01:12345"; None if unprefixed
    timestamp: str | None  # "2024-05-01 12:00:00.123000", sortable; None without a dated stamp
    record: bool  # a logger tag was removed: this line starts a log record
    level: str | None  # "I", "W", "E", "F" from a c10/glog tag
    stamped: bool  # a timestamp of any kind (ISO, syslog, dmesg) was removed


@cache
def _prefix_re() -> re.Pattern[str]:
    """``(shipper)? (srun)? (row | row | ...){0,8}``, anchored by ``match``.

    Every row consumes at least one character and nothing follows the repeat, so
    the engine never backtracks into an earlier round: a line costs one pass over
    its prefixes. A repeated group keeps its last capture, which is what is
    wanted (the innermost rank, the last timestamp).
    """
    quote, pod, k8s, srun, pdsh = (_row(name, body) for name, body in LEADING_TABLE)
    rows = "|".join(_row(name, body) for name, body in PREFIX_TABLE)
    return re.compile(rf"{quote}?(?:{pod}|{k8s})?{srun}?{pdsh}?(?:{rows}){{0,{MAX_PREFIXES}}}")


def _row(name: str, body: str) -> str:
    """A row as a group; named only when its presence is read (each group costs every line)."""
    if name in _RECORD_ROWS or name in _STAMP_ROWS:
        return f"(?P<{name}>{body})"
    return f"(?:{body})"


def split_prefix(line: str) -> tuple[int | None, str]:
    """The rank a line's prefixes name (None if none) and the line without them."""
    parsed = parse_prefix(line)
    return parsed.rank, parsed.content


def parse_prefix(line: str) -> LinePrefix:
    """Strip every known prefix from ``line``; unknown ones stay in the content. Never raises."""
    return PrefixParser()(line)


class PrefixParser:
    """``parse_prefix`` with a memo of the prefixes seen, for one log.

    A log repeats a handful of prefixes ("[rank3]: ") on thousands of lines, so
    what a prefix says is worked out once per distinct prefix string. The memo
    lives as long as the parser: one per request, never shared between logs.
    """

    MEMO_LIMIT = 4096  # distinct prefixes remembered (timestamps make every one distinct)

    def __init__(self) -> None:
        self._memo: dict[str, tuple[int | None, str | None, str | None, bool, str | None, bool]]
        self._memo = {}
        pattern = _prefix_re()
        self._match = pattern.match
        index = pattern.groupindex
        self._ranks = tuple(index[name] - 1 for name in _RANK_PRECEDENCE)
        self._record = itemgetter(*(index[name] - 1 for name in _RECORD_ROWS))
        self._stamped = itemgetter(*(index[name] - 1 for name in _STAMP_ROWS))

    def __call__(self, line: str) -> LinePrefix:
        if line.endswith(_RAY_REPEAT_END):
            line = _RAY_REPEAT.sub("", line)
        match = self._match(line, 0, PREFIX_WINDOW)
        end = match.end() if match is not None else 0
        if end == 0:
            return _NEW(LinePrefix, (None, line, None, None, False, None, False))
        prefix = line[:end]
        said = self._memo.get(prefix)
        if said is None:
            said = self._read(match)  # type: ignore[arg-type]
            if len(self._memo) < self.MEMO_LIMIT:
                self._memo[prefix] = said
        rank, stream, timestamp, record, level, stamped = said
        return _NEW(LinePrefix, (rank, line[end:], stream, timestamp, record, level, stamped))

    def _read(
        self, match: re.Match[str]
    ) -> tuple[int | None, str | None, str | None, bool, str | None, bool]:
        """(rank, stream, timestamp, record, level, stamped) from one prefix chain."""
        groups = match.groups()
        found = next((groups[i] for i in self._ranks if groups[i]), None)
        rank = int(found) if found else None
        stream = f"rank:{rank}" if rank is not None else _host_stream(match)
        timestamp = _iso_key(match) if match.group("iso") else None
        level = match.group("glog_l") or match.group("c10_l")
        record = any(self._record(groups))
        return rank, stream, timestamp, record, level, any(self._stamped(groups))


# Ray folds the same line from several workers into one: "... [repeated 6x across cluster]"
_RAY_REPEAT_END = "across cluster]"
_RAY_REPEAT = re.compile(r" ?\[repeated \d{1,9}x across cluster\]$")
_NEW = tuple.__new__  # NamedTuple's generated __new__ costs 0.5 us a line; this a third


def _host_stream(match: re.Match[str]) -> str | None:
    if match.group("nccl_h"):
        return f"proc:{match.group('nccl_h')}:{match.group('nccl_p')}"
    if match.group("ray_p"):
        return f"proc:ray:{match.group('ray_p')}"
    pod = match.group("pod_n") or match.group("k8s_n") or match.group("pdsh_n")
    return f"pod:{pod}" if pod else None


def _iso_key(match: re.Match[str]) -> str:
    fraction = (match.group("iso_f") or "").ljust(6, "0")[:6]
    return f"{match.group('iso_d')} {match.group('iso_t')}.{fraction}"
