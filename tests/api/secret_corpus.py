"""A corpus of fake secrets for the end-to-end redaction test (target A5).

31 formats (tokens, keys, webhook URLs, passwords in URLs, flags and
key=value pairs) plus the 206 of issue 24 (``tests/matching/secret_formats.py``),
each in the context a training log prints it in, built from the seeded
generator of ``tests/matching/secrets.py`` so no token-shaped literal sits in
the repository. ``corpus(n)`` gives ``n`` seeds of every format.
"""

from __future__ import annotations

import string

from tests.matching.secret_formats import FORMATS
from tests.matching.secrets import B64, HEX, fake

UP = string.ascii_uppercase
D = string.digits


def formats(seed: int) -> dict[str, tuple[str, str]]:
    """Every format's (context, value) for one seed; the context has a ``{v}``."""

    def f(prefix: str, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return fake(prefix, length, alphabet, seed=seed)

    issue_24 = {name: (template, make(seed)) for name, _, template, make in FORMATS}
    return issue_24 | {
        "hf": ("HF_TOKEN={v}", f("hf_", 34)),
        "hf-org": ("token {v}", f("api_" + "org_", 34)),
        "openai": ("OPENAI_API_KEY={v}", f("sk-proj-", 48)),
        "anthropic": ("client = Anthropic(api_key='{v}')", f("sk-ant-api03-", 93) + "AA"),
        "aws-id": ("aws_access_key_id = {v}", f("AKIA", 16, UP + "234567")),
        "aws-secret": ("AWS_SECRET_ACCESS_KEY={v}", f("", 40, B64)),
        "gcp": ("GOOGLE_API_KEY={v}", f("AIza", 35)),
        "google-oauth": ("token {v} expired", f("ya29.", 60)),
        "azure-storage": (
            "DefaultEndpointsProtocol=https;AccountName=ml;AccountKey={v};EndpointSuffix=core",
            f("", 86, B64) + "==",
        ),
        "github": ("GITHUB_TOKEN={v}", f("gh" + "p_", 36)),
        "github-pat": ("push with {v}", f("github_" + "pat_", 82)),
        "gitlab": ("PRIVATE-TOKEN: {v}", f("gl" + "pat-", 20)),
        "slack-bot": (
            "SLACK_BOT_TOKEN={v}",
            "xo" + "xb-" + f("", 12, D) + "-" + f("1", 12, D) + "-" + f("", 24),
        ),
        "slack-hook": (
            "https://hooks.slack.com/services/{v}",
            "T" + f("", 8, UP) + "/B" + f("", 10, UP + D) + "/" + f("", 24),
        ),
        "discord": ("https://discord.com/api/webhooks/{v}", f("1", 17, D) + "/" + f("", 68)),
        "dingtalk": ("https://oapi.dingtalk.com/robot/send?access_token={v}", f("", 64, HEX)),
        "dingtalk-sec": ("secret = '{v}'", "SEC" + f("", 64, HEX)),
        "feishu": (
            "https://open.feishu.cn/open-apis/bot/v2/hook/{v}",
            f("", 8, HEX)
            + "-"
            + f("", 4, HEX)
            + "-4"
            + f("", 3, HEX)
            + "-a"
            + f("", 3, HEX)
            + "-"
            + f("", 12, HEX),
        ),
        "wecom": (
            "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={v}",
            f("", 8, HEX) + "-" + f("", 4, HEX) + "-" + f("", 4, HEX) + "-" + f("", 12, HEX),
        ),
        "wandb-v1": ("WANDB_API_KEY={v}", "wandb_v1_" + f("", 27) + "_" + f("", 49)),
        "wandb-hex": ("wandb login {v}", f("", 40, HEX)),
        "pypi": ("TWINE_PASSWORD={v}", f("pypi-" + "AgEIcHlwaS5vcmc", 70)),
        "npm": ("//registry.npmjs.org/:_authToken={v}", f("npm_", 36)),
        "databricks": ("DATABRICKS_TOKEN={v}", f("dapi", 32, HEX)),
        "errkb": ("Authorization: Bearer {v}", f("errkb_worker_", 40)),
        "jwt": ("id_token={v}", f("eyJ", 20) + "." + f("eyJ", 40) + "." + f("", 43)),
        "url-password": ("postgresql://trainer:{v}@db.example.com:5432/app", f("p4", 18)),
        "bearer": ("got 401 with Bearer {v} from api", f("b7", 30)),
        "cli-flag": ("train.py --password {v} --lr 1e-4", f("x9", 18)),
        "generic-kv": ('{{"client_secret": "{v}"}}', f("c3", 24)),
        "env": ("export DB_PASSWORD={v}", f("d5", 20)),
    }


def corpus(seeds: int) -> list[tuple[str, str, str]]:
    """``(format, line, secret)`` for ``seeds`` values of every format."""
    found = []
    for seed in range(seeds):
        for name, (context, value) in formats(seed).items():
            found.append((name, context.format(v=value), value))
    return found
