"""One POST to ``/api/v1/match`` that can neither hang nor fail the job.

urllib's timeout bounds each socket operation, not the request: a server
that trickles its answer could hold a job for ever. The request therefore
runs in a daemon thread that the caller waits for only until the deadline,
then abandons (the thread dies with the process). A busy errkb (429, 503)
is asked twice more after its ``Retry-After`` plus up to a second of jitter,
only while the wait fits in the deadline; a timeout is never retried.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Tuple

from . import __version__

RETRIES = 2
BUSY_STATUSES = (429, 503)
MAX_JITTER_S = 1.0
MIN_ATTEMPT_S = 2.0
MAX_ANSWER_BYTES = 1 << 20
MAX_REASON_CHARS = 500
_JITTER = random.SystemRandom()
_RELATIVE_LINK = re.compile(r"(?m)(?<=: )/(?=r/|articles/|unmatched\b)")
"""A link errkb gave relative (it has no public URL and never trusts Host): "see: /articles/x"."""


class Outcome:
    """What to print: ``answer`` when errkb answered, else one ``note`` for stderr."""

    def __init__(
        self, answer: str | None = None, note: str | None = None, data: Any = None
    ) -> None:
        self.answer = answer
        self.note = note
        self.data = data  # the JSON answer, when one was asked for


Response = Tuple[int, Dict[str, str], bytes]


def send(
    log: bytes,
    url: str,
    *,
    lang: str | None = None,
    want_json: bool = False,
    timeout_s: float = 20.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Post ``log`` gzip-compressed and return errkb's answer or why there is none."""
    if not url.startswith(("http://", "https://")):
        return Outcome(
            note=f"errkb: the URL must start with http:// or https:// ({url!r}); job unaffected"
        )
    body = gzip.compress(log, compresslevel=6)
    query = {"format": "json" if want_json else "text"}
    if lang:
        query["lang"] = lang
    endpoint = url.rstrip("/") + "/api/v1/match?" + urllib.parse.urlencode(query)
    deadline = time.monotonic() + timeout_s
    attempt = 0
    while True:
        left = deadline - time.monotonic()
        result = _post_within(endpoint, body, want_json, left)
        if isinstance(result, str):
            return Outcome(note=f"errkb: not reachable at {url} ({result}); job unaffected")
        status, headers, content = result
        wait = _busy_wait(status, headers)
        if attempt == RETRIES or wait is None:
            break
        if time.monotonic() + wait + MIN_ATTEMPT_S > deadline:
            break
        sleep(wait)
        attempt += 1
    if status != 200:
        tries = f" after {attempt + 1} tries" if attempt else ""
        return Outcome(note=f"{_refusal(status, content)}{tries}; job unaffected")
    return _answer(content, want_json, url)


def _answer(content: bytes, want_json: bool, url: str = "") -> Outcome:
    text = content.decode("utf-8", "replace")
    if not want_json:
        return Outcome(answer=absolute(text.rstrip("\n"), url))
    try:
        data = json.loads(text)
    except ValueError:
        return Outcome(note="errkb: the answer was not JSON; job unaffected")
    return Outcome(answer=absolute(_text_of(data), url), data=data)


def absolute(answer: str, url: str) -> str:
    """The answer with errkb's relative links made whole with the URL the log was sent to."""
    return _RELATIVE_LINK.sub(url.rstrip("/") + "/", answer) if url else answer


def _text_of(data: Any) -> str:
    """The server's own text answer when the JSON carries it, else its top match in one line."""
    if isinstance(data, dict) and isinstance(data.get("answer_text"), str):
        return str(data["answer_text"]).rstrip("\n")
    matches = data.get("matches") if isinstance(data, dict) else None
    if not matches:
        return "errkb: no known article matched this log"
    top = matches[0]
    return f"errkb: {top.get('title')} [{top.get('article_id')}]\nsee: {top.get('url', '')}"


def _post_within(endpoint: str, body: bytes, want_json: bool, left: float) -> Any:
    """The response, or a short reason string when none came before the deadline."""
    if left <= 0:
        return "timeout"
    box: dict[str, Any] = {}
    worker = threading.Thread(
        target=_post, args=(endpoint, body, want_json, left, box), daemon=True
    )
    worker.start()
    worker.join(left)
    if worker.is_alive():
        return "timeout"
    return box.get("response", box.get("error", "no answer"))


def _post(endpoint: str, body: bytes, want_json: bool, left: float, box: dict[str, Any]) -> None:
    headers = {
        "Content-Encoding": "gzip",
        "Content-Type": "text/plain",
        "Accept": "application/json" if want_json else "text/plain",
        "User-Agent": f"errkb-client/{__version__}",
    }
    # The scheme is http(s): send() refuses any other before it gets here.
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=left) as r:  # noqa: S310
            box["response"] = (r.status, dict(r.headers.items()), r.read(MAX_ANSWER_BYTES))
    except urllib.error.HTTPError as exc:
        box["response"] = (exc.code, dict(exc.headers.items()), exc.read(MAX_ANSWER_BYTES))
    except Exception as exc:  # a hook never raises into the job
        box["error"] = type(exc).__name__


def _busy_wait(status: int, headers: dict[str, str]) -> float | None:
    """Seconds to wait before asking again, or None when the answer is final."""
    if status not in BUSY_STATUSES:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    header = lowered.get("retry-after", "").strip()
    after = float(header) if header.isdigit() else 1.0  # an HTTP-date: come back soon
    return after + _JITTER.uniform(0, MAX_JITTER_S)


def _refusal(status: int, content: bytes) -> str:
    """errkb's own one-line reason when it sent one; anything else comes down to the status."""
    line = content[:MAX_REASON_CHARS].decode("utf-8", "replace").split("\n", 1)[0]
    if line.startswith("errkb: ") and line.isprintable() and len(line) < MAX_REASON_CHARS:
        return line
    return f"errkb: answered {status}"
