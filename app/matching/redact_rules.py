"""The secret-scrubbing rule table (research note A.3), in the order it applies.

Authoring guidelines (read before adding a row):

* RE2 syntax only: no look-around, no back-references, repetition bounds at
  most 1000. ``redact`` compiles every row lazily and fails loudly if one does
  not compile.
* Earlier rows win where two matches overlap, so specific token formats come
  before context rules (``HF_TOKEN=hf_...`` is reported as ``hf-token``).
* ``group`` names the capture group that is the secret (0 = the whole
  match); what is around it (``postgresql://``, ``Authorization: Bearer``,
  the key of ``key=value``) stays, because it is evidence for matching.
* A row that is not ``multiline`` must never match across a newline: spaces
  are ``[ \\t]``, never ``\\s``. ``redact`` scans line-aligned blocks, and this
  keeps its result independent of where the blocks fall.
* Do not redact evidence: commit SHAs, ``sha256:`` digests, versions,
  ``max_new_tokens`` and friends. Context rules use validators (below) instead
  of global entropy, which would destroy them (note A.2; target A3).
* A match that cannot be caught without drowning the log in false positives
  goes in ``tests/matching/test_redact.py::KNOWN_MISSES`` (target A12).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2

Validator = Callable[[str, str], bool]  # (secret, key) -> keep this match as a secret?


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
    source: str = ""  # where the rule comes from


# -- validators: python-side checks RE2 cannot express (note A.3) -------------

_PLACEHOLDER_TEXT = (
    "none null nil true false undefined unset empty redacted hidden masked removed secret"
    " password passwd token changeme example dummy test default required optional"
)
_PLACEHOLDER_WORDS = frozenset(_PLACEHOLDER_TEXT.split())
_ML_CONFIG_KEY = (  # target A3: ML configuration keys that end in "token"
    r"^(?:max|min|num|new|pad|bos|eos|unk|sep|cls|mask|special|added|total|start|end|"
    r"image|audio|video|vision|boi|eoi|decoder_start|prompt|chat|default|sample|"
    r"padding|eot|fim_\w+|use_auth|use)_?(?:new_)?tokens?(?:_ids?)?$"
    r"|^token(?:izer\w*|_type\w*|_ids?|_len\w*|_count|s_per_\w+)?$|^tokens_per_\w+$"
)


@cache
def _ml_config_key() -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    return re2.compile(_ML_CONFIG_KEY, options)


def min_len_8(secret: str, key: str) -> bool:
    return len(secret) >= 8


def min_len_4(secret: str, key: str) -> bool:
    return len(secret) >= 4


def not_numeric(secret: str, key: str) -> bool:
    """``MAX_TOKENS=100000000`` is a number, not a secret."""
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
    """``HF_TOKEN_PATH=/root/.cache/...`` and ``PWD=/work`` name files, not secrets."""
    return not secret.startswith(("/", "~/", "./", "../", "file:")) and ":\\" not in secret[:3]


def key_not_ml(secret: str, key: str) -> bool:
    """``pad_token: <pad>``, ``tokenizer.eos_token = ...``: the key is ML config."""
    name = key.strip("\"'` \t-").rsplit(".", 1)[-1]
    return _ml_config_key().search(name) is None


def secretish(secret: str, key: str) -> bool:
    """Letters and digits, or high entropy (gitleaks generic-api-key: >= 3.5 bits)."""
    has_letter = any(c.isalpha() for c in secret)
    has_digit = any(c.isdigit() for c in secret)
    return (has_letter and has_digit) or _entropy(secret) >= 3.5


def has_letter_and_digit(secret: str, key: str) -> bool:
    """Random API keys of 20+ chars nearly always mix both; prose never does."""
    return any(c.isdigit() for c in secret) and any(c.isalpha() for c in secret)


def bearer_value(secret: str, key: str) -> bool:
    """``Bearer authentication`` is prose; a token has a digit or is long."""
    return not_placeholder(secret, key) and (any(c.isdigit() for c in secret) or len(secret) >= 32)


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


def _entropy(value: str) -> float:
    counts = Counter(value).values()
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts) if total else 0.0


GENERIC = (min_len_8, not_numeric, secretish, key_not_ml, not_placeholder, not_path)
ENV = (min_len_8, not_numeric, key_not_ml, not_placeholder, not_path)


# -- the table ----------------------------------------------------------------

_SEP = r"""(\\?["']?[ \t]*(?::|=>?)[ \t]*\\?["']?)"""  # key/value glue: = : => and quotes
_PEM_HEAD = r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_PEM_LINE = r"[A-Za-z0-9+/]{16,100}={0,2}|[A-Za-z0-9+/]{0,15}[0-9+/=][A-Za-z0-9+/=]{0,15}"

RULES: tuple[RedactRule, ...] = (
    # Key material first: its body spans lines and must not be split by later rows.
    RedactRule(
        "pem-private-key",
        _PEM_HEAD
        + r"(?:\\n)?((?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[nr]){16,}?)-----END[ A-Z0-9_-]{0,100}"
        r"PRIVATE KEY(?: BLOCK)?-----",
        group=1,
        multiline=True,
        trigger=_PEM_HEAD,
        source="gitleaks private-key, Relay @pemkey",
    ),
    RedactRule(  # target A9: logs get cut mid-key
        "pem-private-key-truncated",
        r"(?m)" + _PEM_HEAD + r"((?:\r?\n[A-Za-z-]{1,40}: [^\r\n]{0,200})*(?:\r?\n[ \t]*\r?)?"
        r"(?:\r?\n[ \t]*(?:" + _PEM_LINE + r")[ \t]*\r?$|\\n(?:" + _PEM_LINE + r"))+)",
        group=1,
        multiline=True,
        trigger=_PEM_HEAD,
    ),
    # URLs: credentials in the authority, the query, and whole webhook URLs.
    RedactRule(
        "url-userinfo",
        r"(?i)\b([a-z][a-z0-9+.-]{0,30}://)([^\s/?#@'\"<>]{1,256})@",
        group=2,
        validators=(userinfo_secret,),
        source="Relay @urlauth, detect-secrets BasicAuth",
    ),
    RedactRule(  # DingTalk access_token, WeCom key, SAS sig, presigned S3/GCS URLs
        "url-query-secret",
        r"(?i)([?&;](?:access_?token|token|api_?key|apikey|key|sig|sign|signature|secret|"
        r"client_secret|password|passwd|pwd|auth|code|x-amz-signature|x-amz-credential|"
        r"x-amz-security-token|x-goog-signature|x-goog-credential)=)([^&\s#'\"<>)\]}\\]+)",
        group=2,
        validators=(not_placeholder,),
    ),
    RedactRule(
        "slack-webhook",
        r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9+/_-]{8,})",
        group=2,
        source="gitleaks slack-webhook-url",
    ),
    RedactRule(
        "feishu-lark-webhook",
        r"(?i)(open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/)([A-Za-z0-9-]{8,})",
        group=2,
    ),
    RedactRule(
        "teams-webhook",
        r"(?i)([a-z0-9-]+\.webhook\.office\.com/webhookb2/)([^\s'\"<>]+)",
        group=2,
        source="gitleaks microsoft-teams-webhook",
    ),
    RedactRule(
        "discord-webhook",
        r"(?i)(discord(?:app)?\.com/api/webhooks/)([0-9]+/[A-Za-z0-9_-]+)",
        group=2,
        source="detect-secrets Discord",
    ),
    RedactRule("dingtalk-sign-secret", r"\bSEC[0-9a-f]{64}\b"),
    # Headers and schemes.
    RedactRule(
        "auth-header",
        r"(?i)(?:^|[^\w-]|[^-]-)"  # a header name, not an argparse flag (--api-key: expected)
        r"(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|"
        r"private-token)" + _SEP + r"((?:bearer|basic|token|digest)[ \t]+)?([^\s'\",}\\]+)",
        group=4,
        validators=(min_len_8, not_placeholder),
    ),
    RedactRule(
        "bearer",
        r"(?i)\b(bearer[ \t]+)([^\s'\"<>,;)}\]\\]{8,})",
        group=2,
        validators=(bearer_value,),
        source="Relay @bearer",
    ),
    # Provider token formats: prefix + charset + length, the bulk of the recall.
    RedactRule("hf-token", r"\b(?:hf|api_org)_[A-Za-z0-9]{30,40}\b", source="gitleaks, widened"),
    RedactRule(  # also DeepSeek-style sk-<32 hex>
        "openai-anthropic-key",
        r"\bsk-(?:proj-|svcacct-|admin-|ant-[a-z]+[0-9]*-)?[A-Za-z0-9_-]{20,}",
        validators=(has_letter_and_digit,),
    ),
    RedactRule("aws-access-key-id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    RedactRule(
        "aws-secret-key-ctx",
        r"(?i)(aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)"
        + _SEP
        + r"([A-Za-z0-9/+=]{40})",
        group=3,
    ),
    RedactRule("gcp-api-key", r"\bAIza[0-9A-Za-z_-]{35}", source="gitleaks gcp-api-key"),
    RedactRule("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    RedactRule(
        "azure-storage-key",
        r"(?i)((?:Account|SharedAccess)Key=)([A-Za-z0-9+/]{40,86}={0,2})",
        group=2,
        source="detect-secrets AzureStorageKey",
    ),
    RedactRule(
        "azure-ad-client-secret",
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        source="gitleaks azure-ad-client-secret",
    ),
    RedactRule(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{82,244})\b",
    ),
    RedactRule("gitlab-token", r"\bgl(?:pat|dt|rt|cbt|ptt|oas|soat|ft|imt)-[A-Za-z0-9_.-]{20,}"),
    RedactRule("slack-token", r"\bx(?:ox[abposer]|app)-[A-Za-z0-9-]{10,}"),
    RedactRule("wandb-v1-key", r"\bwandb_v1_[A-Za-z0-9_]{20,}", source="trufflehog W&B v2"),
    RedactRule(  # trufflehog W&B v1: 40 hex with "wandb" nearby
        "wandb-key-ctx",
        r"(?i)(wandb[\w.(: -]{0,20}(?:api[_-]?key|key|login)\\?[\"']?[ \t]*[:=( ][ \t]*\\?[\"']?)"
        r"([0-9a-f]{40})\b",
        group=2,
    ),
    RedactRule(  # ~/.netrc on one line (api.wandb.ai, huggingface.co)
        "netrc-password",
        r"(?i)(\bmachine[ \t]+\S+[ \t]+login[ \t]+\S+[ \t]+password[ \t]+)([^\s\"'\\]+)",
        group=2,
        validators=(not_placeholder,),
    ),
    RedactRule(  # ~/.netrc over lines, as wandb writes it: "  password <key>"
        "netrc-password-line",
        r"(?im)^([ \t]*password[ \t]+)(\S+)[ \t]*\r?$",
        group=2,
        validators=(min_len_8, secretish, not_placeholder),
    ),
    RedactRule(
        "pypi-token",
        r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
    ),
    RedactRule("npm-token", r"\bnpm_[A-Za-z0-9]{36,}"),
    RedactRule("databricks-token", r"\bdapi[0-9a-f]{32}(?:-[0-9])?\b"),
    RedactRule("errkb-token", r"\berrkb_[a-z]+_[A-Za-z0-9_-]{32,}", source="errkb's own tokens"),
    RedactRule("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"),
    # Context rules: a key that names a secret, validated.
    RedactRule(  # huggingface-cli login --token X, --password X, --hf_token=X
        "cli-flag-secret",
        r"(?i)(--(password|passwd|pass|token|hf[-_]token|api[-_]?key|secret|access[-_]key|"
        r"secret[-_]key|auth[-_]token)(?:=|[ \t]+))([^\s'\"]+)",
        group=3,
        key_group=2,
        validators=(min_len_4, not_placeholder, not_metavar),
    ),
    RedactRule(  # HF_TOKEN=, export WANDB_API_KEY=, AWS_SECRET_ACCESS_KEY:
        "env-assignment",
        r"\b((?:export[ \t]+)?([A-Z][A-Z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|"
        r"API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]{0,20})[ \t]*[:=][ \t]*)"
        r"[\"']?([^\s\"']{4,})",
        group=3,
        key_group=2,
        validators=ENV,
    ),
    RedactRule(
        "generic-kv",
        r"(?i)\b([\w.-]{0,40}(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|"
        r"private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|"
        r"hf[_-]?token|token))" + _SEP + r"([^\s\"',;)}\]\\]{8,})",
        group=3,
        key_group=1,
        validators=GENERIC,
        source="gitleaks generic-api-key",
    ),
    # People and places: pseudonymised so that "the same host" stays visible.
    RedactRule(
        "email",
        r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
        validators=(not_service_address,),
        pseudonym="email",
    ),
    RedactRule(  # RFC 1918, CGNAT, link-local; public IPv4 stays (cudnn 8.9.2.26)
        "ipv4-private",
        r"((?i:\bversion|\bver)[ \t:=]*|[=<>~!]=[ \t]*|[A-Za-z]-)?\b((?:10(?:\.[0-9]{1,3}){3}|"
        r"172\.(?:1[6-9]|2[0-9]|3[01])(?:\.[0-9]{1,3}){2}|192\.168(?:\.[0-9]{1,3}){2}|"
        r"100\.(?:6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])(?:\.[0-9]{1,3}){2}|"
        r"169\.254(?:\.[0-9]{1,3}){2})(?:\.[0-9]+)*)\b",
        group=2,
        key_group=1,
        validators=(ipv4_not_version,),
        pseudonym="ip",
    ),
    RedactRule(
        "internal-host",
        r"(?i)\b([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
        r"\.(?:internal|corp|lan|local|intranet))\b",
        group=1,
        validators=(hostish,),
        pseudonym="host",
    ),
    RedactRule(
        "user-home",
        r"(/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})([A-Za-z0-9._-][A-Za-z0-9._@-]{0,63})",
        group=2,
        source="Relay @userpath",
    ),
)

# What redact writes. The engine treats these as already redacted, so none of
# the rows above can fire on them and redact(redact(x)) == redact(x) (A8).
PLACEHOLDER_PATTERN = r"\[REDACTED:[a-z0-9-]{1,40}\]|<(?:ip|host|email)-[0-9]{1,9}>"
