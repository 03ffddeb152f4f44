"""Start-up without Python's cyclic garbage collector (issue 23).

Importing errkb's modules and loading a KB allocate hundreds of thousands of
objects that live as long as the process, and very little garbage in cycles
(about 1,100 unreachable objects after the server's imports, measured). The
collector still runs every 700 allocations and now and then walks every
object: at start-up that is 10-15 % of the CPU of ``errkb serve``'s imports
and of a quick ``errkb match`` at 1,000 articles, for nothing found. So the
commands that start long-lived state pause it (``pause``) and resume it
(``resume``) once that state is built: the server right after ``gc.freeze()``
(which moves the start-up objects out of every later collection), a match
before it reads the log, whose garbage is then collected as before. A
full load of the KB (no snapshot of this revision) resumes it first: YAML,
validation and the self-tests' matches are not start-up's few objects.

Only a pause made here is resumed: a caller that turned the collector off
itself keeps it off.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the collector off until ``resume``; nothing if it is already off."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Turn the collector back on if ``pause`` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
