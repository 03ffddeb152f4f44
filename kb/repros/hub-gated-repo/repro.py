"""Reproduce: "GatedRepoError: 401 Client Error ... Cannot access gated repo for
url .../config.json" and transformers' "You are trying to access a gated repo".

Gated models (Llama, Gemma, Mistral's newer releases, FLUX.1-dev, many medical
and pathology models) serve files only to logged-in users whose access
request was accepted. An anonymous request (no token in the job, a token of
another account, or access not yet granted) gets HTTP 401/403 with the Hub's
``X-Error-Code: GatedRepo`` header, which huggingface_hub turns into
``GatedRepoError``.

No network: a tiny stand-in for the Hub on 127.0.0.1 answers like the real
one for a gated repository (HF_ENDPOINT points at it); it serves the file
only to requests carrying an accepted token. CPU only (launcher: python).
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPO = "meta-llama/Llama-3.2-1B"
GRANTED_TOKEN = "hf_granted_example_token"
CONFIG = json.dumps({"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 64}).encode()
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub(BaseHTTPRequestHandler):
    """Answers /<repo>/resolve/<rev>/config.json like the Hub does for a gated repo."""

    def _answer(self, with_body: bool) -> None:
        if self.headers.get("Authorization") != f"Bearer {GRANTED_TOKEN}":
            self.send_response(401)
            self.send_header("X-Error-Code", "GatedRepo")
            self.send_header("X-Error-Message", f"Access to model {REPO} is restricted. You must have access to it and be authenticated to access it. Please log in.")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if not self.path.endswith("/config.json"):
            self.send_response(404)
            self.send_header("X-Error-Code", "EntryNotFound")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("ETag", '"cfg-etag-1"')
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("Content-Length", str(len(CONFIG)))
        self.end_headers()
        if with_body:
            self.wfile.write(CONFIG)

    def do_HEAD(self) -> None:  # noqa: N802 (http.server API)
        self._answer(with_body=False)

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self._answer(with_body=True)

    def log_message(self, *args) -> None:
        pass


def start_hub() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    server = start_hub()
    os.environ["HF_ENDPOINT"] = f"http://127.0.0.1:{server.server_address[1]}"
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN"):
        os.environ.pop(name, None)
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(REPO)  # BUG: the job has no token with access to the gated repo
        print(config.model_type)
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
