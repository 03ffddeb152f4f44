"""Target A1: a generated recall corpus, gitleaks-style.

For every rule, hypothesis draws 40 values from the rule's *value* regex
(``from_regex(..., fullmatch=True)``, derandomized, so the corpus is the same
on every run); each value is written in the rule's usual forms (``KEY=v``,
JSON, a URL, a Python repr...) and each form is embedded in every line
context below (bare, rank prefix, logger, JSON log line, repr, ANSI colours,
CRLF, a ``\\r`` progress line) and passed through ``decode`` then
``redact``. Neither the value nor any 8-character slice of it may survive.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.matching import redact_rules
from app.matching.decode import decode
from app.matching.redact import redact
from tests.matching.secret_formats import FORMATS, Format, line

VALUES_PER_RULE = 40
SLICE = 8


class Spec(NamedTuple):
    rule: str
    value: str  # a Python regex for the secret part
    forms: tuple[str, ...]  # how the value is written; "{v}" is the value


# Values keep to what the rule documents (e.g. a key=value secret has a letter
# and a digit); what a rule deliberately lets through is in KNOWN_MISSES.
MIXED = r"[A-Za-z0-9]{2,12}[0-9][A-Za-z][A-Za-z0-9._+=-]{4,30}"
B64_LINE = r"[A-Za-z0-9+/]{64}"
SPECS: tuple[Spec, ...] = (
    Spec(
        "pem-private-key",
        rf"(?:{B64_LINE}\n){{2,6}}[A-Za-z0-9+/]{{8,60}}={{0,2}}",
        (
            "-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----\nnext",
        ),
    ),
    Spec(
        "pem-private-key-truncated",
        rf"(?:{B64_LINE}\n){{0,3}}{B64_LINE}",
        ("-----BEGIN PRIVATE KEY-----\n{v}\nTraceback (most recent call last):",),
    ),
    Spec(
        "url-userinfo",
        r"[a-z][a-z0-9_.-]{2,12}:[A-Za-z0-9][A-Za-z0-9%!*+._~-]{7,24}",
        (
            "postgresql://{v}@db.example.com:5432/app",
            "https://{v}@github.com/org/repo.git",
            "mongodb+srv://{v}@cluster0.ab1cd.mongodb.net/db?retryWrites=true",
        ),
    ),
    Spec(
        "url-query-secret",
        r"[A-Wa-w0-9][A-Za-z0-9%._-]{11,63}",
        (
            "https://oapi.dingtalk.com/robot/send?access_token={v}",
            "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={v}",
            "https://acct.blob.core.windows.net/c/f.bin?sv=2022-11-02&sig={v}&se=2024",
        ),
    ),
    Spec(
        "slack-webhook",
        r"T[A-Z0-9]{8,10}/B[A-Z0-9]{8,10}/[A-Za-z0-9]{24}",
        ("https://hooks.slack.com/services/{v}",),
    ),
    Spec(
        "feishu-lark-webhook",
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        (
            "https://open.feishu.cn/open-apis/bot/v2/hook/{v}",
            "https://open.larksuite.com/open-apis/bot/v2/hook/{v}",
        ),
    ),
    Spec(
        "teams-webhook",
        r"[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f-]{36}",
        ("https://contoso.webhook.office.com/webhookb2/{v}",),
    ),
    Spec(
        "discord-webhook",
        r"[0-9]{17,19}/[A-Za-z0-9_-]{60,68}",
        ("https://discord.com/api/webhooks/{v}", "https://discordapp.com/api/webhooks/{v}"),
    ),
    Spec("dingtalk-sign-secret", r"SEC[0-9a-f]{64}", ("secret = '{v}'", "{v}")),
    Spec(
        "auth-header",
        MIXED,
        ("Authorization: Bearer {v}", "{{'X-Api-Key': '{v}'}}", '-H "Authorization: token {v}"'),
    ),
    Spec("bearer", MIXED, ("got 401 with Bearer {v} from api", "bearer {v}")),
    Spec(
        "hf-token",
        r"(?:hf|api_org)_[A-Za-z0-9]{34}",
        ("HF_TOKEN={v}", "huggingface-cli login --token {v}", "Namespace(hf_token='{v}', lr=1e-4)"),
    ),
    Spec(
        "openai-anthropic-key",
        r"sk-(?:proj-|ant-api03-)?[A-Za-z0-9]{20}[0-9][A-Za-z0-9_-]{20,60}",
        ("OPENAI_API_KEY={v}", "client = Anthropic(api_key='{v}')", '{{"api_key": "{v}"}}'),
    ),
    Spec(
        "aws-access-key-id",
        r"(?:AKIA|ASIA)[A-Z0-9]{16}",
        ("aws_access_key_id = {v}", "AWS_ACCESS_KEY_ID={v}", "InvalidAccessKeyId: {v}"),
    ),
    Spec(
        "aws-secret-key-ctx",
        r"[A-Za-z0-9/+]{40}",
        (
            "aws_secret_access_key = {v}",
            "AWS_SECRET_ACCESS_KEY={v}",
            '{{"SecretAccessKey": "{v}"}}',
        ),
    ),
    Spec("gcp-api-key", r"AIza[0-9A-Za-z_-]{35}", ("GOOGLE_API_KEY={v}", "key {v} invalid")),
    Spec("google-oauth-token", r"ya29\.[0-9A-Za-z_-]{20,80}", ("token {v} expired", "{v}")),
    Spec(
        "azure-storage-key",
        r"[A-Za-z0-9+/]{86}==",
        (
            "DefaultEndpointsProtocol=https;AccountName=ml;AccountKey={v};EndpointSuffix=core",
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKey={v}",
        ),
    ),
    Spec(
        "azure-ad-client-secret",
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        ("AZURE_CLIENT_SECRET={v}", "client_secret: {v}"),
    ),
    Spec(
        "github-token",
        r"gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82}",
        ("GITHUB_TOKEN={v}", "git clone https://x-access-token:{v}@github.com/o/r", "{v}"),
    ),
    Spec("gitlab-token", r"glpat-[A-Za-z0-9_-]{20}", ("PRIVATE-TOKEN: {v}", "token {v}")),
    Spec(
        "slack-token",
        r"xox[bp]-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24}",
        ("SLACK_BOT_TOKEN={v}", "{v}"),
    ),
    Spec(
        "wandb-v1-key",
        r"wandb_v1_[A-Za-z0-9]{27}_[A-Za-z0-9]{49}",
        ("WANDB_API_KEY={v}", "wandb login {v}"),
    ),
    Spec(
        "wandb-key-ctx",
        r"[0-9a-f]{40}",
        ("wandb login {v}", 'wandb.login(key="{v}")', "WANDB_API_KEY={v}", "wandb: api_key={v}"),
    ),
    Spec(
        "netrc-password",
        r"[0-9a-f]{20}[0-9][a-f][0-9a-f]{18}",
        (
            "machine api.wandb.ai login user password {v}",
            "machine api.wandb.ai\n  login user\n  password {v}",
        ),
    ),
    Spec(
        "pypi-token",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{60,120}",
        ("TWINE_PASSWORD={v}", "password = {v}"),
    ),
    Spec("npm-token", r"npm_[A-Za-z0-9]{36}", ("//registry.npmjs.org/:_authToken={v}", "{v}")),
    Spec("databricks-token", r"dapi[0-9a-f]{32}", ("DATABRICKS_TOKEN={v}", "{v}")),
    Spec(
        "errkb-token",
        r"errkb_(?:worker|admin)_[A-Za-z0-9_-]{32,43}",
        ("Authorization: Bearer {v}", "ERRKB_ADMIN_TOKEN={v}", "{v}"),
    ),
    Spec(
        "jwt",
        r"eyJ[A-Za-z0-9_-]{10,40}\.eyJ[A-Za-z0-9_-]{10,80}\.[A-Za-z0-9_-]{20,43}",
        ("id_token={v}", '{{"jwt": "{v}"}}', "{v}"),
    ),
    Spec(
        "cli-flag-secret",
        MIXED,
        ("train.py --password {v} --lr 1e-4", "--hf_token={v}", "--api-key {v}"),
    ),
    Spec(
        "env-assignment",
        MIXED,
        ("export DB_PASSWORD={v}", "MY_SERVICE_TOKEN={v}", "COMET_API_KEY: '{v}'"),
    ),
    Spec(
        "generic-kv",
        MIXED,
        ("password={v}", "Namespace(access_token='{v}', lr=0.1)", '{{"client_secret": "{v}"}}'),
    ),
    Spec(
        "email",
        r"[a-z][a-z0-9._+-]{6,20}@[a-z][a-z0-9-]{1,15}\.(?:com|org|io|ai|cn)",
        ("Author: {v}", "git config user.email {v}", '{{"email": "{v}"}}'),
    ),
    Spec(
        "ipv4-private",
        r"10\.(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9])\.(?:[0-9]|[1-9][0-9])\.[1-9][0-9]?"
        r"|192\.168\.[0-9]{1,2}\.[1-9][0-9]?|172\.(?:1[6-9]|2[0-9]|3[01])\.[0-9]\.[0-9]{1,2}",
        ("MASTER_ADDR={v}", "connect to {v}:29500 failed", "NCCL INFO Using [0]eth0:{v}<0>"),
    ),
    Spec(
        "internal-host",
        r"[a-z][a-z0-9-]{4,12}[0-9]\.(?:corp|internal|lan)|ip-10-0-0-[0-9]{1,3}\.ec2\.internal",
        ("MASTER_ADDR={v}", "Connecting to {v}:8080", "hostname: {v}"),
    ),
    Spec(
        "user-home",
        r"[a-z][a-z0-9._-]{7,15}",
        (
            'File "/home/{v}/proj/train.py", line 12, in main',
            "/Users/{v}/miniconda3/lib/python3.11/site-packages/torch/__init__.py",
            r"C:\Users\{v}\AppData\Local\Temp\tmp0x.py",
        ),
    ),
)

# Line contexts: text -> bytes as a user would paste them.
CONTEXTS: dict[str, Callable[[str], bytes]] = {
    "bare": str.encode,
    "rank": lambda x: f"[rank3]: {x}".encode(),
    "logger": lambda x: f"2024-06-01 12:00:00,123 - train - INFO - {x}\nstep 2".encode(),
    "json-line": lambda x: json.dumps({"level": "info", "msg": x}).encode(),
    "repr": lambda x: f"INFO config={{'note': {x!r}, 'seed': 1}}".encode(),
    "ansi": lambda x: f"\x1b[33m{x}\x1b[0m".encode(),
    "crlf": lambda x: f"{x}\nnext line\n".replace("\n", "\r\n").encode(),
    "progress": lambda x: f" 45%|####5     | 45/100 [00:01<00:01]\r{x}".encode(),
}


FORMAT_SEEDS = 10
PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def survivors(value: str, output: str, surroundings: str) -> list[str]:
    """The value, or 8-char slices of it, still in ``output`` (ignoring the form's own text)."""
    output = PLACEHOLDER.sub("\x00", output)  # ``rubygems`` of [REDACTED:rubygems-token]
    found = [value] if value in output else []
    for start in range(max(0, len(value) - SLICE + 1)):
        piece = value[start : start + SLICE]
        if "\n" not in piece and piece in output and piece not in surroundings:
            found.append(piece)
    return found


def test_a1_corpus_covers_every_rule_and_is_big_enough() -> None:
    rules = {rule.id for rule in redact_rules.RULES} - {"netrc-password-line"}  # in netrc forms
    assert rules <= {spec.rule for spec in SPECS} | {fmt[1] for fmt in FORMATS}
    assert len({fmt[0] for fmt in FORMATS}) + len(SPECS) >= 200
    cases = sum(len(spec.forms) for spec in SPECS) * len(CONTEXTS) * VALUES_PER_RULE
    assert len(CONTEXTS) >= 5
    assert cases >= 6000


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.rule)
def test_a1_generated_secrets_never_survive(spec: Spec) -> None:
    @settings(
        max_examples=VALUES_PER_RULE,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.from_regex(spec.value, fullmatch=True))
    def check(value: str) -> None:
        for form in spec.forms:
            for name, context in CONTEXTS.items():
                data = context(form.format(v=value))
                output = redact(decode(data).text).text
                surroundings = decode(context(form.format(v="\x00"))).text
                assert survivors(value, output, surroundings) == [], (name, form, output)

    check()


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f[0])
def test_a1_issue_24_formats_never_survive(fmt: Format) -> None:
    """Issue 24's formats, ten seeds each, in every line context: nothing survives."""
    surroundings = {name: decode(context(fmt[2].format(v="\x00"))).text
                    for name, context in CONTEXTS.items()}  # fmt: skip
    for seed in range(FORMAT_SEEDS):
        text, value = line(fmt, seed)
        for name, context in CONTEXTS.items():
            output = redact(decode(context(text)).text).text
            assert survivors(value, output, surroundings[name]) == [], (name, seed, output)
