"""The secret-scrubbing rule table (research note A.3), in the order it applies.

Four layers, each a table below: ``HEAD`` (key material, credentials in URLs,
webhooks, auth headers), ``PROVIDERS`` (token formats with a prefix, in
``redact_providers``), ``CONTEXT`` (structural rules: the key-name rule, CLI
password forms, Chinese labels, and the entropy rule for random tokens in
URLs and ``X-`` headers) and ``PEOPLE`` (pseudonymised e-mails, IPs, hosts).
The checks the rows use live in ``redact_checks``.

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
  ``max_new_tokens`` and friends, and code: a source line in a traceback
  (``api_key = settings.OPENAI_API_KEY``) is evidence, not a secret. Context
  rules use validators instead of global entropy, which would destroy them
  (note A.2; target A3); the entropy rule runs only inside URLs and headers.
* A match that cannot be caught without drowning the log in false positives
  goes in ``tests/matching/test_redact.py::KNOWN_MISSES`` (target A12).
"""

from __future__ import annotations

from app.matching.redact_checks import (
    RedactRule,
    ascii_value,
    bearer_value,
    colon_wants_a_token,
    cookie_value,
    header_not_an_id,
    hostish,
    ipv4_not_version,
    key_not_ml,
    literal_value,
    min_len_4,
    min_len_6,
    min_len_8,
    names_a_secret,
    not_expression,
    not_metavar,
    not_numeric,
    not_path,
    not_placeholder,
    not_port_path,
    not_service_address,
    secretish,
    strong_key_or_secretish,
    userinfo_secret,
)
from app.matching.redact_entropy import random_token, url_tokens
from app.matching.redact_providers import PROVIDERS

# Cheap checks first: a flood of ``key=v`` pairs must cost microseconds each (A10).
GENERIC = (min_len_6, not_numeric, literal_value, names_a_secret, not_placeholder, not_path,
           key_not_ml)  # fmt: skip
ENV = (min_len_6, not_numeric, names_a_secret, colon_wants_a_token, not_placeholder, not_path,
       not_expression, key_not_ml)  # fmt: skip

# -- building blocks -------------------------------------------------------------

_SEP = r"""(\\?["']?[ \t]*(?::|=>?)[ \t]*\\?["']?)"""  # key/value glue: = : => and quotes
_PEM_HEAD = r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_PEM_LINE = r"[A-Za-z0-9+/]{16,100}={0,2}|[A-Za-z0-9+/]{0,15}[0-9+/=][A-Za-z0-9+/=]{0,15}"
# Words that make a key name secret-bearing (the key-name rule); the validator
# ``names_a_secret`` then asks that the name *ends* in one (``key_states`` does not).
_KEY_WORDS = (
    r"(?:token|secret|pass|pw|pwd|key|credential|creds|auth|cookie|session|sessid|[._-]sid|"
    r"signature)"  # "sid" only after a separator: busId, consider, inside are not keys
)
_KEY_NAME = r"(?:export[ \t]+)?[A-Za-z0-9_.-]{0,40}" + _KEY_WORDS + r"[A-Za-z0-9_]{0,12}"
_KEY_GLUE = (  # quotes escaped up to twice (a JSON string in a JSON log line); \uff1a is "："
    r"""(?:\\{0,3}["'`])?[ \t]*(?::|=>?|：|\\uff1a)[ \t]*(?:\\{0,3}["'`])?"""
)
_ZH_WORDS = (
    "密码",
    "密钥",
    "秘钥",
    "令牌",
    "口令",
    "凭证",
    "凭据",
    "授权码",
    "私钥",
    "访问码",
    "安全码",
)


def _json_escaped(word: str) -> str:
    """``密码`` as ``json.dumps`` writes it: ``\\u5bc6\\u7801`` (a JSON log line)."""
    return "".join(f"\\\\u{ord(c):04x}" for c in word)


_ZH_KEYS = "(?:" + "|".join(_ZH_WORDS + tuple(map(_json_escaped, _ZH_WORDS))) + ")"
_ZH_GLUE = r"(?:[:：=]|是|为|\\u(?:ff1a|662f|4e3a)|[ \t])"
_HEADERS = (
    r"authorization|proxy-authorization|x-api-key|api-key|apikey|x-apikey|x-auth-token|"
    r"x-access-token|x-api-token|private-token|ocp-apim-subscription-key|x-goog-api-key|"
    r"x-amz-security-token|x-csrf-token|x-xsrf-token|x-session-token|x-subscription-token"
)
_QUERY_KEYS = (
    r"access_?token|token|api_?key|apikey|api-key|key|sig|sign|signature|secret|client_secret|"
    r"password|passwd|pwd|auth|code|subscription-key|subscription_key|session|sessionid|sid|"
    r"refresh_token|id_token|auth_token|private_token|ak|sk|x-amz-signature|"
    r"x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential"
)

HEAD: tuple[RedactRule, ...] = (
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
    RedactRule(  # postgres://u:pa/ss@wo@rd@host: the password runs to the last "@"
        "dsn-password",
        r"(?i)\b[a-z][a-z0-9+.-]{0,30}://[^\s:/?#@'\"<>]{0,128}:([^\s'\"<>]{1,256})@",
        group=1,
        validators=(not_port_path, not_placeholder),
    ),
    RedactRule(
        "url-userinfo",
        r"(?i)\b([a-z][a-z0-9+.-]{0,30}://)([^\s/?#@'\"<>]{1,256})@",
        group=2,
        validators=(userinfo_secret,),
        source="Relay @urlauth, detect-secrets BasicAuth",
    ),
    RedactRule(  # DingTalk access_token, WeCom key, SAS sig, APIM keys, presigned URLs
        "url-query-secret",
        r"(?i)([?&;](?:" + _QUERY_KEYS + r")=)([^&\s#'\"<>)\]}\\]+)",
        group=2,
        validators=(not_placeholder,),
    ),
    RedactRule(
        "slack-webhook",
        r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9+/_-]{8,})",
        group=2,
        source="gitleaks slack-webhook-url",
    ),
    RedactRule(  # host-less, as urllib3 prints it: "with url: /services/T.../B.../..."
        "slack-webhook-path",
        r"(/services/)(T[A-Z0-9]{8,10}/B[A-Z0-9]{8,10}/[A-Za-z0-9]{24})",
        group=2,
    ),
    RedactRule(  # also host-less, as urllib3 prints it: "with url: /open-apis/bot/v2/hook/..."
        "feishu-lark-webhook",
        r"(?i)((?:open\.(?:feishu\.cn|larksuite\.com))?/open-apis/bot/v2/hook/)([A-Za-z0-9-]{8,})",
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
        r"(?i)((?:discord(?:app)?\.com)?/api/webhooks/)([0-9]{5,}/[A-Za-z0-9_-]{20,})",
        group=2,
        source="detect-secrets Discord",
    ),
    RedactRule("bark-key", r"(?i)(api\.day\.app/)([A-Za-z0-9]{16,40})", group=2),
    RedactRule("dingtalk-sign-secret", r"\bSEC[0-9a-f]{64}\b"),
    # Headers and schemes.
    RedactRule(
        "cookie-header",
        r"(?i)(?:^|[^\w-])((?:set-)?cookie)" + _SEP + r"([^\r\n\"'\\]{8,})",
        group=3,
        validators=(cookie_value,),
    ),
    RedactRule(
        "auth-header",
        r"(?i)(?:^|[^\w-]|[^-]-)"  # a header name, not an argparse flag (--api-key: expected)
        r"(" + _HEADERS + r")" + _SEP + r"((?:bearer|basic|token|digest|aws4-hmac-sha256|"
        r"apikey|ssws)[ \t]+)?([^\s'\",}\\]+)",
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
)

CONTEXT: tuple[RedactRule, ...] = (
    RedactRule(
        "aws-secret-key-ctx",
        r"(?i)(aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)"
        + _SEP
        + r"([A-Za-z0-9/+=]{40})",
        group=3,
    ),
    RedactRule(
        "azure-storage-key",
        r"(?i)((?:Account|SharedAccess)Key=)([A-Za-z0-9+/]{40,86}={0,2})",
        group=2,
        source="detect-secrets AzureStorageKey",
    ),
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
    RedactRule(  # mysql -pPASS, sshpass -p PASS, redis-cli -a PASS, curl -u user:PASS
        "cli-password",
        r"(?:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\r\n]{0,200}?[ \t]-p"
        r"|\bsshpass[ \t]+-p[ \t]*|\bredis-cli\b[^\r\n]{0,200}?[ \t]-a[ \t]+"
        r"|(?:^|[ \t])(?:-u|--user)(?:[ \t]+|=)[\"']?[A-Za-z0-9._@$-]{1,64}:)[\"']?"
        r"([^\s'\"/][^\s'\"]*)",  # not pip's "--user git+https://..."
        group=1,
        validators=(min_len_4, not_numeric, not_placeholder),
        source="gitleaks curl-auth-user",
    ),
    RedactRule(  # huggingface-cli login --token X, --db-password X, --hf_token=X
        "cli-flag-secret",
        r"(?i)(--([\w-]{0,30}(?:password|passwd|pass|token|key|secret|auth|credential|cookie|"
        r"session)[\w-]{0,10})(?:=|[ \t]+))([^\s'\"-][^\s'\"]*)",
        group=3,
        key_group=2,
        validators=(
            min_len_4,
            names_a_secret,
            key_not_ml,
            not_placeholder,
            not_metavar,
            strong_key_or_secretish,
        ),
    ),
    RedactRule(  # HF_TOKEN=, export DB_PASS=, MASTER_KEY:, REDIS_PASS=
        "env-assignment",
        r"\b((?:export[ \t]+)?([A-Z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PASS|"
        r"PWD|KEY|CREDENTIALS?|AUTH|COOKIE|SESSION|SESSID|SIGNATURE|_SK)[A-Z0-9_]{0,20})"
        r"[ \t]*[:=][ \t]*)[\"']?([^\s\"']{6,})",
        group=3,
        key_group=1,
        validators=ENV,
    ),
    RedactRule(  # the key-name rule: any key that names a secret, any syntax, literal values
        "generic-kv",
        r"(?m)(?:^|[\s\"'`{(\[,;&?|*>])((?i)" + _KEY_NAME + _KEY_GLUE + r")"
        r"([^\s\"'`,;)}\]\\]{6,256})",  # shorter values are never secrets here (min_len_6)
        group=2,
        key_group=1,
        validators=GENERIC,
        source="gitleaks generic-api-key, detect-secrets KeywordDetector",
    ),
    RedactRule(  # "using token x9Kq...", "api key 7f3a...": a key, spaces, a long mixed token
        "spaced-secret",
        r"(?i)(?:^|[\s\"'(,])([a-z0-9_.-]{0,20}(?:token|secret|passw(?:or)?d|api[_ -]?key|key)"
        r"[ \t]+)([A-Za-z0-9_+/=-]{16,256})",
        group=2,
        key_group=1,
        validators=(literal_value, names_a_secret, not_placeholder),
    ),
    RedactRule(  # 密码：..., 密钥: ..., 令牌=..., 口令 ...
        "zh-label-secret",
        r"(" + _ZH_KEYS + r"[ \t]*" + _ZH_GLUE + r"[ \t]*(?:[\"'“‘「]|\\u201c)?)"
        r"([^\s，,。；;、\"'“”‘’」）)】\]\\]{4,128})",
        group=2,
        validators=(ascii_value, not_placeholder),
    ),
    # The entropy rule: random-looking tokens in URLs, urllib3's "url:" and X- headers.
    RedactRule(
        "url-token",
        r"(?i)(?:\b(?:https?|wss?|ftp)://|\burl: )([^\s'\"<>\\]{8,1000})",
        group=1,
        pieces=url_tokens,
    ),
    RedactRule(
        "header-token",
        r"(?i)((?:^|[\s'\"{,(\[;])x-[a-z0-9-]{1,60}\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?)"
        r"([A-Za-z0-9_+/=.~-]{20,512})",
        group=2,
        key_group=1,
        validators=(header_not_an_id, random_token),
    ),
)

PEOPLE: tuple[RedactRule, ...] = (
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

RULES: tuple[RedactRule, ...] = HEAD + PROVIDERS + CONTEXT + PEOPLE

# What redact writes. The engine treats these as already redacted, so none of
# the rows above can fire on them and redact(redact(x)) == redact(x) (A8).
PLACEHOLDER_PATTERN = r"\[REDACTED:[a-z0-9-]{1,40}\]|<(?:ip|host|email)-[0-9]{1,9}>"
