"""A reference chat bot: Slack's Events API in, errkb's answer out, in the message's thread.

Someone pastes a traceback or a log excerpt into a channel the bot is in; the
bot sends the message text to errkb (``POST /api/v1/match?format=slack``) and
posts errkb's Block Kit answer as a reply in that message's thread. Standard
library only, so it runs anywhere Python 3.8+ does:

    python examples/slack_bot.py --errkb http://errkb.internal:8000 --port 8080 \\
        --token "$SLACK_BOT_TOKEN" --signing-secret "$SLACK_SIGNING_SECRET"

Point the Slack app's Event Subscriptions at ``http://<host>:8080/slack/events``
and subscribe to ``message.channels``. Requests are checked against the
signing secret (Slack's v0 HMAC-SHA256 scheme, 5-minute window) when one is
given. ``--reply-url`` changes where replies go (Slack's chat.postMessage by
default; the tests point it at a local stand-in).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SLACK_POST = "https://slack.com/api/chat.postMessage"
MAX_BODY = 1 << 20
MIN_CHARS = 20  # "hi" is not a traceback; skip chatter


class Bot:
    """What the bot knows: where errkb is, where replies go, and how to sign in."""

    def __init__(self, errkb: str, token: str, reply_url: str, secret: str | None) -> None:
        self.errkb = errkb.rstrip("/")
        self.token = token
        self.reply_url = reply_url
        self.secret = secret

    def verified(self, headers: Any, body: bytes) -> bool:
        """Slack's request signature: v0=HMAC-SHA256(secret, "v0:{timestamp}:{body}")."""
        if not self.secret:
            return True
        stamp = headers.get("X-Slack-Request-Timestamp", "")
        if not stamp.isdigit() or abs(time.time() - int(stamp)) > 300:
            return False
        base = b"v0:" + stamp.encode() + b":" + body
        expected = "v0=" + hmac.new(self.secret.encode(), base, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, headers.get("X-Slack-Signature", ""))

    def answer(self, event: dict[str, Any]) -> None:
        """Ask errkb about the message's text and reply in its thread."""
        text = str(event.get("text") or "").replace("```", "\n")
        request = urllib.request.Request(  # noqa: S310 (errkb's URL, from our own options)
            self.errkb + "/api/v1/match?format=slack",
            data=json.dumps({"text": text}).encode(),
            headers={"Content-Type": "application/json", "User-Agent": "errkb-slack-bot/1"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            message = json.load(response)
        message["channel"] = event.get("channel")
        message["thread_ts"] = event.get("thread_ts") or event.get("ts")
        reply = urllib.request.Request(  # noqa: S310 (the reply URL, from our own options)
            self.reply_url,
            data=json.dumps(message).encode(),
            headers={"Content-Type": "application/json; charset=utf-8",
                     "Authorization": f"Bearer {self.token}"},
        )  # fmt: skip
        with urllib.request.urlopen(reply, timeout=30):  # noqa: S310
            pass


def wanted(event: dict[str, Any]) -> bool:
    """A person's message with enough text; never a bot's (or the bot would answer itself)."""
    return (
        event.get("type") == "message"
        and not event.get("bot_id")
        and not event.get("subtype")
        and len(str(event.get("text") or "")) >= MIN_CHARS
    )


def handler_for(bot: Bot) -> type:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, MAX_BODY))
            if self.path != "/slack/events" or not bot.verified(self.headers, body):
                return self._send(403, {"error": "not a signed Slack event"})
            payload = json.loads(body or b"{}")
            if payload.get("type") == "url_verification":
                return self._send(200, {"challenge": payload.get("challenge")})
            event = payload.get("event") or {}
            if wanted(event):  # Slack wants its 200 within 3 s: answer in the background
                threading.Thread(target=bot.answer, args=(event,), daemon=True).start()
            return self._send(200, {"ok": True})

        def _send(self, status: int, data: dict[str, Any]) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--errkb", default="http://127.0.0.1:8000", help="errkb's base URL")
    parser.add_argument("--token", required=True, help="the bot's xoxb- token")
    parser.add_argument("--signing-secret", default=None, help="the Slack app's signing secret")
    parser.add_argument("--reply-url", default=SLACK_POST)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    bot = Bot(args.errkb, args.token, args.reply_url, args.signing_secret)
    ThreadingHTTPServer((args.host, args.port), handler_for(bot)).serve_forever()


if __name__ == "__main__":
    main()
