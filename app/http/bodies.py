"""Request bodies read as a stream, capped on the wire and again after gzip expansion.

Starlette's built-in ``max_body_size`` (set on the routes) refuses a body whose
Content-Length is too big before a byte is read, and counts streamed bytes
otherwise (targets C1, C2). What it cannot know is how big a gzip body
becomes: 1 GiB of zeros is 1 MB on the wire. ``Gunzip`` expands with
``zlib.decompressobj(wbits=31)`` and ``max_length``, 1 MiB at a time, so it
never holds more than the text limit and stops a bomb after that many bytes (C3);
concatenated members are decoded in full, a corrupt stream is a 400, and
stacked or unknown encodings are a 415 that lists what is supported (C4).

``grow(size)`` is called as the body grows (declared length first, then the
decoded size): the caller's admission guard uses it to refuse a big body with
503 before reading it (target D6).

The whole body must arrive within ``BodyLimits.seconds`` of its first read,
else 408: a client that trickles a big body would hold its connection, and
the big-match slot its Content-Length claimed, for as long as it liked.

Joining the pieces of a body of a MiB or more, and expanding a whole gzip
blob, happen in a worker thread: on the event loop, joining 50 MB took
31 ms and held up every other request, ``/healthz`` included (the 30-minute
soak saw it at 105 ms). Both release the GIL while they copy and inflate.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import anyio
import anyio.lowlevel
import anyio.to_thread
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.types import Message, Receive

from app.http.errors import HttpError

GZIP_MAGIC = b"\x1f\x8b"
PIECE_BYTES = 1 << 20
THREAD_BYTES = 1 << 20  # bodies this big are joined off the event loop
SUPPORTED_ENCODINGS = ("gzip", "identity")
Grow = Callable[[int], None]


@dataclass(frozen=True)
class BodyLimits:
    """``wire``: bytes as sent; ``text``: bytes after expansion; ``seconds``: to send it all."""

    wire: int
    text: int
    seconds: float = 60.0


def too_large(what: str, limit: int) -> HttpError:
    return HttpError(413, f"{what} is larger than the limit of {limit} bytes")


def content_encoding(value: str | None) -> str:
    """``identity`` or ``gzip``; anything else is refused with the list of supported ones."""
    names = [part.strip().lower() for part in (value or "").split(",") if part.strip()]
    names = [name for name in names if name != "identity"]
    if not names:
        return "identity"
    supported = ", ".join(SUPPORTED_ENCODINGS)
    if len(names) > 1:
        raise HttpError(
            415, f"stacked content encodings are not supported; send one of: {supported}"
        )
    if names[0] not in ("gzip", "x-gzip"):
        raise HttpError(415, f"unsupported content encoding; supported: {supported}")
    return "gzip"


class Gunzip:
    """Streaming gzip expansion with a hard output limit; multi-member aware.

    Output comes in pieces of at most ``PIECE_BYTES``: zlib builds one output
    buffer in blocks and joins them, so asking it for the whole limit at once
    would hold a refused bomb's text twice before the refusal.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._member = zlib.decompressobj(wbits=31)
        self._open = False  # bytes of a member have been fed and its end not seen

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The expansion of ``data``, piece by piece; 413 past the limit, 400 when corrupt."""
        try:
            while data:
                self._open = True
                want = min(PIECE_BYTES, self.limit - self.size + 1)
                piece = self._member.decompress(data, want)
                self.size += len(piece)
                if self.size > self.limit:
                    raise too_large("the decompressed body", self.limit)
                if piece:
                    yield piece
                if self._member.eof:
                    data, self._open = self._member.unused_data, False
                    self._member = zlib.decompressobj(wbits=31)
                else:
                    data = self._member.unconsumed_tail
        except zlib.error as exc:
            raise HttpError(400, "the gzip body is corrupt") from exc

    def finish(self) -> None:
        if self._open:
            raise HttpError(400, "the gzip body is truncated")


def gunzip(data: bytes, limit: int) -> bytes:
    """Expand a whole gzip blob (an uploaded ``train.log.gz``) under ``limit``."""
    expander = Gunzip(limit)
    text = b"".join(expander.feed(data))
    expander.finish()
    return text


def declared_length(request: Request, limits: BodyLimits) -> int | None:
    """Content-Length, refused at once when above the wire limit (nothing read yet)."""
    value = request.headers.get("content-length")
    if value is None or not value.isdigit():
        return None
    length = int(value)
    if length > limits.wire:
        raise too_large("the request body", limits.wire)
    return length


async def read_body(request: Request, limits: BodyLimits, grow: Grow) -> bytes:
    """The whole body, decoded from gzip when so encoded (or sniffed), within both limits."""
    encoding = content_encoding(request.headers.get("content-encoding"))
    length = declared_length(request, limits)
    if length is not None:
        grow(length)
    expander = Gunzip(limits.text) if encoding == "gzip" else None
    parts: list[bytes] = []
    wire = size = 0
    timed = Request(request.scope, _timed(request.receive, limits.seconds))
    async for chunk in timed.stream():
        wire += len(chunk)
        if wire > limits.wire:
            raise too_large("the request body", limits.wire)
        for piece in expander.feed(chunk) if expander else (chunk,):
            size += len(piece)
            if size > limits.text:
                raise too_large("the log", limits.text)
            grow(size)
            parts.append(piece)
            if len(piece) == PIECE_BYTES:  # a chunk that expands a lot: let others run between MiBs
                await anyio.lowlevel.checkpoint()
    if expander:
        expander.finish()
    data = await _joined(parts, size)
    return data if expander else await _sniffed(data, limits.text)


async def _joined(parts: list[bytes], size: int) -> bytes:
    """The pieces as one ``bytes``; a big join goes to a thread (see the module docstring)."""
    if size < THREAD_BYTES:
        return _join(parts)
    return await anyio.to_thread.run_sync(_join, parts)


def _join(parts: list[bytes]) -> bytes:
    return b"".join(parts)


async def _sniffed(data: bytes, limit: int) -> bytes:
    """``data`` expanded when it is gzip: ``curl --data-binary @train.log.gz`` sends no
    Content-Encoding, so the magic is sniffed. In a thread: 100 KB of gzip can become 50 MB."""
    if not data.startswith(GZIP_MAGIC):
        return data
    return await anyio.to_thread.run_sync(gunzip, data, limit)


async def read_form(request: Request, limits: BodyLimits, grow: Grow) -> FormData:
    """A multipart form of at most one file and a few fields (target C6).

    The parser reads the body through ``_weighed`` so that a chunked upload
    (no Content-Length) meets the wire limit and the admission guard as it
    streams, not after it has all been spooled (target D6).
    """
    if content_encoding(request.headers.get("content-encoding")) != "identity":
        raise HttpError(415, "a multipart body cannot be content-encoded; gzip the file instead")
    length = declared_length(request, limits)
    if length is not None:
        grow(length)
    receive = _timed(request.receive, limits.seconds)
    weighed = Request(request.scope, _weighed(receive, limits.wire, grow))
    return await weighed.form(max_files=1, max_fields=10, max_part_size=limits.wire)


def _weighed(receive: Receive, limit: int, grow: Grow) -> Receive:
    """``receive`` that counts body bytes: 413 past ``limit``, ``grow`` told as they come."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise too_large("the request body", limit)
            grow(seen)
        return message

    return counted


def _timed(receive: Receive, seconds: float) -> Receive:
    """``receive`` that gives the whole body ``seconds`` from its first call; 408 past it."""
    deadline: float | None = None

    async def timed() -> Message:
        nonlocal deadline
        if deadline is None:
            deadline = anyio.current_time() + seconds
        with anyio.move_on_after(deadline - anyio.current_time()):
            return await receive()
        raise HttpError(408, f"the request body did not arrive within {seconds:g} s")

    return timed


async def upload_bytes(upload: UploadFile, limits: BodyLimits, grow: Grow) -> bytes:
    """An uploaded file's content, expanded when it is gzip, within the text limit."""
    data = await _sniffed(await upload.read(), limits.text)
    if len(data) > limits.text:
        raise too_large("the log", limits.text)
    grow(len(data))
    return data
