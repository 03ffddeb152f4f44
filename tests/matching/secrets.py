"""Fake but well-formed secrets for the redaction tests.

Built at run time from a seeded generator so that no token-shaped literal
sits in the repository for secret scanners (ours or GitHub's) to trip on.
"""

from __future__ import annotations

import random
import string

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"


def fake(prefix: str, length: int, alphabet: str = ALNUM, *, seed: int = 0) -> str:
    """``prefix`` + ``length`` deterministic characters; mixed if the alphabet is."""
    rnd = random.Random(f"{prefix}/{length}/{alphabet}/{seed}")
    mixed = length >= 8 and _mixed(alphabet)
    while True:
        body = "".join(rnd.choice(alphabet) for _ in range(length))
        if not mixed or _mixed(body):
            return prefix + body


def _mixed(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


HF = fake("hf_", 34)
HF_ORG = fake("api_" + "org_", 34)
OPENAI = fake("sk-proj-", 48)
ANTHROPIC = fake("sk-ant-api03-", 93) + "AA"
DEEPSEEK = fake("sk-", 32, HEX)
AWS_ID = fake("AKIA", 16, string.ascii_uppercase + "234567")
AWS_SECRET = fake("", 40, B64)
GCP = fake("AIza", 35)
GOOGLE_OAUTH = fake("ya29.", 60)
AZURE_STORAGE = fake("", 86, B64) + "=="
AZURE_AD = fake("", 3) + "8Q~" + fake("", 34)
GITHUB = fake("gh" + "p_", 36)
GITHUB_PAT = fake("github_" + "pat_", 82)
GITLAB = fake("gl" + "pat-", 20)
SLACK_BOT = "xo" + "xb-" + fake("", 12, string.digits) + "-" + fake("", 24)
SLACK_HOOK = "T" + fake("", 8, string.ascii_uppercase) + "/B" + fake("", 10) + "/" + fake("", 24)
FEISHU_HOOK = (
    fake("", 8, HEX) + "-" + fake("", 4, HEX) + "-4" + fake("", 3, HEX) + "-" + fake("", 12, HEX)
)
TEAMS_HOOK = fake("", 36, HEX) + "@" + fake("", 36, HEX) + "/IncomingWebhook/" + fake("", 32, HEX)
DISCORD_HOOK = fake("", 18, string.digits) + "/" + fake("", 68)
DINGTALK_TOKEN = fake("", 64, HEX)
DINGTALK_SECRET = "SEC" + fake("", 64, HEX)
WECOM_KEY = fake("", 8, HEX) + "-" + fake("", 4, HEX) + "-" + fake("", 12, HEX)
WANDB_V1 = "wandb_v1_" + fake("", 27) + "_" + fake("", 49)
WANDB_HEX = fake("", 40, HEX)
PYPI = fake("pypi-" + "AgEIcHlwaS5vcmc", 70)
NPM = fake("npm_", 36)
DATABRICKS = fake("dapi", 32, HEX)
ERRKB = fake("errkb_worker_", 40)
JWT = fake("eyJ", 20) + "." + fake("eyJ", 40) + "." + fake("", 43)
PASSWORD = "Pw" + fake("", 14, ALNUM + "!#%^&*+")
PEM_BODY = "\n".join(fake("", 64, B64, seed=n) for n in range(4)) + "\n" + fake("", 24, B64) + "=="
