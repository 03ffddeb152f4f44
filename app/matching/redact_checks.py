"""The vocabulary of the redaction tables: the row type and the checks RE2 cannot express.

A row's regex finds candidates; these Python checks decide, per match, whether
the candidate is a secret (research note A.3). They are small on purpose:
each names one reason a look-alike is *not* a secret (a metavar, a path, a
code expression, an ML config key), so that a false positive found in the
field becomes one more line here and one more line in the A3 corpus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2

from app.matching.redact_entropy import entropy, random_token

Validator = Callable[[str, str], bool]  # (secret, key) -> keep this match as a secret?
Pieces = Callable[[str], list[tuple[int, int]]]  # secret -> spans inside it to replace


@dataclass(frozen=True, slots=True)
class RedactRule:
    """One row: a format that is a secret (or a person) wherever it appears."""

    id: str
    pattern: str
    group: int = 0  # the capture group replaced; 0 = the whole match
    key_group: int = 0  # the group passed to validators as the key; 0 = none
    validators: tuple[Validator, ...] = ()
    pseudonym: str = ""  # "ip" / "host" / "email": <ip-1> instead of [REDACTED:...]
    multiline: bool = False  # may span lines: runs outside the block scan
    trigger: str = ""  # for multiline rows: a one-line pattern that must fire first
    pieces: Pieces | None = None  # replace only these sub-spans of the group (URL tokens)
    source: str = ""  # where the rule comes from


def _compiled(pattern: str, *, case_sensitive: bool = False) -> Any:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False
    return re2.compile(pattern, options)


# -- values that are not secrets --------------------------------------------------

_PLACEHOLDER_TEXT = (
    "none null nil true false undefined unset empty redacted hidden masked removed secret"
    " password passwd token changeme example dummy test default required optional"
)
_PLACEHOLDER_WORDS = frozenset(_PLACEHOLDER_TEXT.split())


def min_len_8(secret: str, key: str) -> bool:
    return len(secret) >= 8


def min_len_6(secret: str, key: str) -> bool:
    return len(secret) >= 6


def min_len_4(secret: str, key: str) -> bool:
    return len(secret) >= 4


def not_numeric(secret: str, key: str) -> bool:
    """``MAX_TOKENS=100000000`` and ``sessionid: 0x14f05578bd80006`` are numbers."""
    if secret[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in secret[2:]):
        return False
    return not secret.replace(".", "").replace("_", "").replace("-", "").isdigit()


def not_placeholder(secret: str, key: str) -> bool:
    """``--token $HF_TOKEN``, ``<your-token>``, ``***``, ``None`` are not secrets."""
    value = secret.strip("'\"`").lower()
    if not value or value in _PLACEHOLDER_WORDS or value[0] in "$<{%[*":
        return False
    if set(value) <= set("*x.#-_?"):
        return False
    words = value.replace("-", "_").replace(".", "_").split("_")
    return "your" not in words and words[0] not in ("my", "xxx", "xxxx")


def not_metavar(secret: str, key: str) -> bool:
    """``[--api-key API_KEY]``: argparse names a flag's value after the flag, in capitals."""
    return secret.rstrip("]),").replace("-", "_") != key.upper().replace("-", "_")


def not_path(secret: str, key: str) -> bool:
    """``HF_TOKEN_PATH=/root/.cache/...`` and ``PWD=/work`` name files, not secrets.

    Base64 may start with ``/`` too: a ``+``, ``=`` padding or a random-looking
    segment says key material, not a file.
    """
    if not secret.startswith(("/", "~/", "./", "../", "file:")) and ":\\" not in secret[:3]:
        return True
    return "+" in secret or secret.endswith("=") or any(map(random_token, secret.split("/")))


def not_port_path(secret: str, key: str) -> bool:
    """``http://host:8080/a@b``: the part after the colon is a port and a path."""
    head = secret.split("/", 1)[0]
    return not head.isdigit() and ("/" in secret or "@" in secret)


def cookie_value(secret: str, key: str) -> bool:
    """A cookie header's value is ``name=value`` pairs; ``cookie: not set`` is prose."""
    return "=" in secret and not_placeholder(secret, key)


_STRONG_WORDS = ("password", "passwd", "pass", "pwd", "secret", "token", "passphrase")


def strong_key_or_secretish(secret: str, key: str) -> bool:
    """``--password swordfish`` is a secret; ``--sort-key length`` is a word after a weak key."""
    words = key_words(key)
    if words and words[-1].endswith(_STRONG_WORDS):
        return True
    return has_letter_and_digit(secret, key) or (len(secret) >= 16 and secretish(secret, key))


def not_expression(secret: str, key: str) -> bool:
    """``SECRET_KEY = os.environ.get("X")`` is code in a traceback, not a value."""
    return not _expression(secret)


def colon_wants_a_token(secret: str, key: str) -> bool:
    """``PASS: benchmark (...)`` is a test status: after a colon, a word is not a value."""
    if not key.rstrip(" \t\"'").endswith(":"):
        return True
    return not _word(secret) and secretish(secret, key)


_ID_WORDS = frozenset(("id", "2", "request", "trace", "span", "correlation", "debug", "cf", "mid"))


def header_not_an_id(secret: str, key: str) -> bool:
    """``x-amz-id-2``, ``x-request-id``, ``x-b3-traceid``: ids that support desks ask for."""
    words = key_words(key.replace("-", "_"))
    return not any(w in _ID_WORDS or w.endswith("id") for w in words[1:])


def ascii_value(secret: str, key: str) -> bool:
    """``密码：请重新输入`` is prose; a password pasted after a Chinese label is ASCII."""
    return secret.isascii()


def has_letter_and_digit(secret: str, key: str) -> bool:
    """Random API keys of 20+ chars nearly always mix both; prose never does."""
    return any(c.isdigit() for c in secret) and any(c.isalpha() for c in secret)


def secretish(secret: str, key: str) -> bool:
    """Letters and digits, or high entropy (gitleaks generic-api-key: >= 3.5 bits)."""
    return has_letter_and_digit(secret, key) or entropy(secret) >= 3.5


def long_or_mixed(secret: str, key: str) -> bool:
    """``sk-`` + 48 lower-case letters (SiliconFlow) or a mix of letters and digits."""
    return has_letter_and_digit(secret, key) or len(secret) >= 35


def bearer_value(secret: str, key: str) -> bool:
    """``Bearer authentication`` is prose; a token has a digit or is long."""
    if _next_field(secret):  # ``Bearer expires_in=3599``: the next field
        return False
    return not_placeholder(secret, key) and (any(c.isdigit() for c in secret) or len(secret) >= 32)


def _next_field(secret: str) -> bool:
    """``expires_in=3599``: a lower-case name, ``=``, a value."""
    name, equals, rest = secret.partition("=")
    return bool(
        equals and name[:1].islower() and name.replace("_", "").isalpha() and name.isascii()
    ) and rest[:1] not in ("", "=")


def userinfo_secret(secret: str, key: str) -> bool:
    """``u:p@`` always; a bare user only when it looks like a token (``ghp_..@``)."""
    user, colon, password = secret.partition(":")
    if colon:
        return bool(password) and not_placeholder(password, key)
    return len(user) >= 16 and has_letter_and_digit(user, key)


def ipv4_not_version(secret: str, key: str) -> bool:
    """``tensorrt==10.0.1.6``, ``version 10.1.2.3``, ``10.0.0.1.5`` are versions."""
    octets = secret.split(".")
    return not key and len(octets) == 4 and all(int(o) <= 255 for o in octets)


def hostish(secret: str, key: str) -> bool:
    """``gpu-7.local``, ``a.b.local``, ``db.corp``: not the attribute ``threading.local``."""
    labels = secret.split(".")
    if labels[-1].lower() != "local":
        return True
    return len(labels) >= 3 or any(c.isdigit() or c == "-" for c in labels[0])


def not_service_address(secret: str, key: str) -> bool:
    """``git@github.com`` is an SSH remote, not a person; it is evidence."""
    return secret.partition("@")[0].lower() not in ("git", "hg", "ssh")


# -- keys that name secrets (the key-name rule) -------------------------------------

_ML_CONFIG_KEY = (  # target A3: ML configuration keys that end in "token"
    r"^(?:max|min|num|new|pad|bos|eos|unk|sep|cls|mask|special|added|total|start|end|"
    r"image|audio|video|vision|boi|eoi|decoder_start|prompt|chat|default|sample|"
    r"padding|eot|fim_\w+|use_auth|use)_?(?:new_)?tokens?(?:_ids?)?$"
    r"|^token(?:izer\w*|_type\w*|_ids?|_len\w*|_count|s_per_\w+)$|^tokens_per_\w+$"
)
# A name is secret-bearing when its last word is one of these (or ends in one of
# the compound ones), or when such a word is followed only by an encoding word.
_SECRET_LAST = frozenset(
    (
        "key",
        "pass",
        "pw",
        "pwd",
        "auth",
        "session",
        "sid",
        "creds",
        "secret",
        "secrets",
        "token",
        "password",
        "passwd",
        "passphrase",
        "credential",
        "credentials",
        "cookie",
        "cookies",
        "signature",
        "authorization",
        "sessionid",
        "sessid",
        "sk",
    )
)
_SECRET_SUFFIXES = (
    "token", "secret", "password", "passwd", "passphrase", "pwd", "apikey", "secretkey",
    "accesskey", "privatekey", "masterkey", "signingkey", "sessionid", "sessid", "cookie",
    "credential", "credentials", "signature",
)  # fmt: skip
_ENCODING_WORDS = frozenset(
    ("value", "val", "string", "str", "b64", "base64", "hex", "plain", "raw", "text", "base", "enc")
)
_SCHEMES = frozenset(
    ("aws4-hmac-sha256", "hmac-sha256", "hmac-sha1")
)  # ``Authorization: AWS4-...``
_NOT_SECRET_HEAD = frozenset(["error", "exception", "warning"])


def key_words(key: str) -> list[str]:
    """``OPENAI_API_KEY`` / ``apiKey`` / ``x-api-key`` -> lower-case words."""
    name = key.replace("\\uff1a", "：").strip("\"'`\\ \t:=：>").rsplit(".", 1)[-1]
    name = name.removeprefix("export").strip() if name.startswith("export ") else name
    spaced = "".join(f"_{c}" if c.isupper() and i and name[i - 1].islower() else c
                     for i, c in enumerate(name))  # fmt: skip
    return [w for w in spaced.lower().replace("-", "_").split("_") if w]


def names_a_secret(secret: str, key: str) -> bool:
    """The key's last word says secret: ``DB_PASS``, ``secret_key``, ``apiKey``, ``令牌``.

    ``key_states``, ``KeyError``, ``token_type``, ``session_dir``, ``monkey`` do not.
    """
    words = key_words(key)
    if not words or words[-1] in _NOT_SECRET_HEAD:
        return False
    if len(words) >= 2 and words[-1] in _ENCODING_WORDS:
        words = words[:-1]
    last = words[-1]
    return last in _SECRET_LAST or last.endswith(_SECRET_SUFFIXES)


@cache
def _ml_config_key() -> Any:
    return _compiled(_ML_CONFIG_KEY)


def key_not_ml(secret: str, key: str) -> bool:
    """``pad_token: <pad>``, ``tokenizer.eos_token = ...``: the key is ML config."""
    name = key.strip("\"'`\\ \t:=：>-").rsplit(".", 1)[-1]
    name = name.removeprefix("export ").strip()
    return _ml_config_key().search(name) is None


def _expression(secret: str) -> bool:
    """A dotted name, a call, a subscript or an object repr: code, not a value (target A3).

    ``Token{a64f992``, ``android.os.BinderProxy@2bd79ce`` (Java's ``Class@hash``).
    """
    return any(c in secret for c in "([{|") or _dotted_name(secret) or _object_repr(secret)


def _object_repr(secret: str) -> bool:
    name, at, address = secret.rpartition("@")
    return bool(at) and _dotted_name(name) and all(c in "0123456789abcdef" for c in address)


def _dotted_name(secret: str) -> bool:
    """``settings.OPENAI_API_KEY``, ``self._get_token``: identifiers joined by dots, no digit."""
    parts = secret.split(".")
    return (
        len(parts) > 1
        and not any(c.isdigit() for c in secret)
        and all(p.isidentifier() and p.isascii() for p in parts)
    )


def _word(secret: str) -> bool:
    """``input_ids``, ``length``, ``model.layers.0.weight``, ``fc1.bias``: a name, not a value."""
    if secret.isascii() and secret.replace("_", "").isalpha():
        return True
    parts = secret.split(".")
    return (
        len(parts) > 1
        and secret.isascii()
        and secret == secret.lower()
        and all(p.isdigit() or p.rstrip("0123456789").replace("_", "").isalpha() for p in parts)
    )


def literal_value(secret: str, key: str) -> bool:
    """A quoted string or an unbroken token, never a code expression.

    ``access_token = self._get_token(scopes)``, ``api_key = settings.OPENAI_API_KEY``,
    ``token = os.environ["HF_TOKEN"]`` stay; ``token='x9Kq...'``, ``DB_PASS=hunter22`` go.
    The key group ends with the separator, so a quote there says the value was quoted;
    a key followed by spaces only needs a long token mixing letters and digits.
    """
    key = key.replace("\\uff1a", "：")  # the fullwidth colon inside a JSON log line
    quoted = key.rstrip(" \t\\")[-1:] in ("'", '"', "`")
    tail = key.rstrip("\"'` \t\\")
    if tail and tail[-1] not in ":=>：":
        return len(secret) >= 16 and has_letter_and_digit(secret, key) and not _dotted(secret)
    if not quoted and _expression(secret):
        return False
    if secret.lower() in _SCHEMES or _word(secret):  # a word, ``model.layers.0``
        return False
    if not quoted and _bare_key(key) and _SNAKE_NAME.fullmatch(secret):
        return False  # ``for key: store_based_barrier_key:32``: a name under a bare "key"
    if "://" in secret[:16]:  # a URL; credentials inside it are the URL rules' business
        return False
    return len(secret) >= (6 if quoted else 8) and secretish(secret, key)


_SNAKE_NAME = re2.compile(r"[a-z]{2,20}(?:_[a-z]{2,20}){1,8}(?:[:/]\d{1,10})?")
"""A lower-case snake_case name, maybe numbered: what code calls a key, not a secret."""


def _bare_key(key: str) -> bool:
    """The key is just "key" (a dict key, a store key), not api_key, secret_key, password..."""
    return "".join(c for c in key.lower() if c.isalpha()) == "key"


def _dotted(secret: str) -> bool:
    return "." in secret and all(
        part.isidentifier() or part.isdigit() for part in secret.split(".")
    )
