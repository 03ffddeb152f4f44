"""errkb-client: what a training node runs to ask errkb about a failed job.

Standard library only (Python 3.8+), so it installs next to any training
stack without touching its packages. Two doors: ``report`` (a log file or
standard input) and ``run`` (wrap a command and report when it fails); both
end in :class:`errkb_client.send.Outcome` and never raise into the job.
"""

__version__ = "0.1.0"
DEFAULT_URL = "http://127.0.0.1:8000"
"""Where ``errkb serve`` listens by default; ``ERRKB_URL`` overrides it (the shell hook agrees)."""
DEFAULT_TAIL_BYTES = 2 << 20
