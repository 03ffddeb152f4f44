"""The redaction table: one or more cases per rule, with the exact output expected.

Secrets come from ``secrets.py`` (generated, so none sits in the repository).
"""

from __future__ import annotations

from typing import NamedTuple

from tests.matching import secrets as s


class Case(NamedTuple):
    rule: str
    text: str
    expected: str


def r(rule: str) -> str:
    return f"[REDACTED:{rule}]"


PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{s.PEM_BODY}\n-----END RSA PRIVATE KEY-----"
PEM_REDACTED = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + r("pem-private-key")
    + "\n" * 5
    + "-----END RSA PRIVATE KEY-----"
)
PEM_BODY_ESCAPED = s.PEM_BODY.replace("\n", "\\n")  # as a JSON dump of a key file shows it
CASES: tuple[Case, ...] = (
    Case("pem-private-key", PEM, PEM_REDACTED),
    Case(
        "pem-private-key",
        f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{PEM_BODY_ESCAPED}'
        '\\n-----END PRIVATE KEY-----\\n"',
        f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{r("pem-private-key")}'
        '-----END PRIVATE KEY-----\\n"',
    ),
    Case(
        "pem-private-key-truncated",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + s.PEM_BODY.split("\n", 3)[0],
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + r("pem-private-key-truncated"),
    ),
    Case(
        "url-userinfo",
        f"postgresql://trainer:{s.PASSWORD}@db.example.com:5432/runs",
        f"postgresql://{r('url-userinfo')}@db.example.com:5432/runs",
    ),
    Case(
        "url-userinfo",
        "redis://:p4ssw0rd@cache:6379/0",
        f"redis://{r('url-userinfo')}@cache:6379/0",
    ),
    Case(
        "url-userinfo",
        f"git clone https://{s.GITHUB}@github.com/org/repo.git",
        f"git clone https://{r('url-userinfo')}@github.com/org/repo.git",
    ),
    Case(
        "url-query-secret",
        f"POST https://oapi.dingtalk.com/robot/send?access_token={s.DINGTALK_TOKEN}&timestamp=1",
        f"POST https://oapi.dingtalk.com/robot/send?access_token={r('url-query-secret')}&timestamp=1",
    ),
    Case(
        "url-query-secret",
        f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={s.WECOM_KEY} failed",
        f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={r('url-query-secret')} failed",
    ),
    Case(
        "slack-webhook",
        f"POST https://hooks.slack.com/services/{s.SLACK_HOOK} -> 404",
        f"POST https://hooks.slack.com/services/{r('slack-webhook')} -> 404",
    ),
    Case(
        "feishu-lark-webhook",
        f"https://open.feishu.cn/open-apis/bot/v2/hook/{s.FEISHU_HOOK}",
        f"https://open.feishu.cn/open-apis/bot/v2/hook/{r('feishu-lark-webhook')}",
    ),
    Case(
        "feishu-lark-webhook",
        f"url=https://open.larksuite.com/open-apis/bot/v2/hook/{s.FEISHU_HOOK}",
        f"url=https://open.larksuite.com/open-apis/bot/v2/hook/{r('feishu-lark-webhook')}",
    ),
    Case(
        "teams-webhook",
        f"https://contoso.webhook.office.com/webhookb2/{s.TEAMS_HOOK} 400",
        f"https://contoso.webhook.office.com/webhookb2/{r('teams-webhook')} 400",
    ),
    Case(
        "discord-webhook",
        f"https://discord.com/api/webhooks/{s.DISCORD_HOOK}",
        f"https://discord.com/api/webhooks/{r('discord-webhook')}",
    ),
    Case(
        "dingtalk-sign-secret",
        f"secret = '{s.DINGTALK_SECRET}'",
        f"secret = '{r('dingtalk-sign-secret')}'",
    ),
    Case(
        "auth-header",
        f"Authorization: token {s.PASSWORD}",
        f"Authorization: token {r('auth-header')}",
    ),
    Case(
        "auth-header", f"{{'X-Api-Key': '{s.PASSWORD}'}}", f"{{'X-Api-Key': '{r('auth-header')}'}}"
    ),
    Case(
        "auth-header",
        f'-H "Authorization: Bearer {s.JWT}"',
        f'-H "Authorization: Bearer {r("auth-header")}"',
    ),
    Case("bearer", f"401 for Bearer {s.PASSWORD} at /v1", f"401 for Bearer {r('bearer')} at /v1"),
    Case("hf-token", f"HF_TOKEN={s.HF}", f"HF_TOKEN={r('hf-token')}"),
    Case("hf-token", f"login(token='{s.HF_ORG}')", f"login(token='{r('hf-token')}')"),
    Case(
        "hf-token",
        f"huggingface-cli login --token {s.HF}",
        f"huggingface-cli login --token {r('hf-token')}",
    ),
    Case(
        "openai-anthropic-key",
        f"OPENAI_API_KEY={s.OPENAI}",
        f"OPENAI_API_KEY={r('openai-anthropic-key')}",
    ),
    Case(
        "openai-anthropic-key",
        f"Anthropic(api_key='{s.ANTHROPIC}')",
        f"Anthropic(api_key='{r('openai-anthropic-key')}')",
    ),
    Case(
        "openai-anthropic-key",
        f"key {s.DEEPSEEK} rejected",
        f"key {r('openai-anthropic-key')} rejected",
    ),
    Case(
        "aws-access-key-id",
        f"aws_access_key_id = {s.AWS_ID}",
        f"aws_access_key_id = {r('aws-access-key-id')}",
    ),
    Case(
        "aws-secret-key-ctx",
        f"aws_secret_access_key = {s.AWS_SECRET}",
        f"aws_secret_access_key = {r('aws-secret-key-ctx')}",
    ),
    Case(
        "aws-secret-key-ctx",
        f'{{"SecretAccessKey": "{s.AWS_SECRET}"}}',
        f'{{"SecretAccessKey": "{r("aws-secret-key-ctx")}"}}',
    ),
    Case("gcp-api-key", f"GOOGLE_API_KEY={s.GCP}", f"GOOGLE_API_KEY={r('gcp-api-key')}"),
    Case(
        "google-oauth-token",
        f"token {s.GOOGLE_OAUTH} expired",
        f"token {r('google-oauth-token')} expired",
    ),
    Case(
        "azure-storage-key",
        f"DefaultEndpointsProtocol=https;AccountName=ml;AccountKey={s.AZURE_STORAGE};EndpointSuffix=core.windows.net",
        f"DefaultEndpointsProtocol=https;AccountName=ml;AccountKey={r('azure-storage-key')};EndpointSuffix=core.windows.net",
    ),
    Case(
        "azure-ad-client-secret",
        f"AZURE_CLIENT_SECRET={s.AZURE_AD}",
        f"AZURE_CLIENT_SECRET={r('azure-ad-client-secret')}",
    ),
    Case("github-token", f"GITHUB_TOKEN={s.GITHUB}", f"GITHUB_TOKEN={r('github-token')}"),
    Case("github-token", f"token: {s.GITHUB_PAT}", f"token: {r('github-token')}"),
    Case("gitlab-token", f"PRIVATE-TOKEN: {s.GITLAB}", f"PRIVATE-TOKEN: {r('auth-header')}"),
    Case(
        "gitlab-token",
        f"using {s.GITLAB} for the registry",
        f"using {r('gitlab-token')} for the registry",
    ),
    Case("slack-token", f"SLACK_BOT_TOKEN={s.SLACK_BOT}", f"SLACK_BOT_TOKEN={r('slack-token')}"),
    Case("wandb-v1-key", f"WANDB_API_KEY={s.WANDB_V1}", f"WANDB_API_KEY={r('wandb-v1-key')}"),
    Case("wandb-key-ctx", f"wandb login {s.WANDB_HEX}", f"wandb login {r('wandb-key-ctx')}"),
    Case(
        "wandb-key-ctx",
        f'wandb.login(key="{s.WANDB_HEX}")',
        f'wandb.login(key="{r("wandb-key-ctx")}")',
    ),
    Case(
        "wandb-key-ctx",
        f"export WANDB_API_KEY={s.WANDB_HEX}",
        f"export WANDB_API_KEY={r('wandb-key-ctx')}",
    ),
    Case(
        "netrc-password",
        f"machine api.wandb.ai login user password {s.WANDB_HEX}",
        f"machine api.wandb.ai login user password {r('netrc-password')}",
    ),
    Case(
        "netrc-password-line",
        f"machine api.wandb.ai\n  login user\n  password {s.WANDB_HEX}",
        f"machine api.wandb.ai\n  login user\n  password {r('netrc-password-line')}",
    ),
    Case("pypi-token", f"TWINE_PASSWORD={s.PYPI}", f"TWINE_PASSWORD={r('pypi-token')}"),
    Case(
        "npm-token",
        f"//registry.npmjs.org/:_authToken={s.NPM}",
        f"//registry.npmjs.org/:_authToken={r('npm-token')}",
    ),
    Case(
        "databricks-token",
        f"DATABRICKS_TOKEN={s.DATABRICKS}",
        f"DATABRICKS_TOKEN={r('databricks-token')}",
    ),
    Case(
        "errkb-token",
        f"worker token {s.ERRKB} rejected",
        f"worker token {r('errkb-token')} rejected",
    ),
    Case("jwt", f"id_token={s.JWT}", f"id_token={r('jwt')}"),
    Case(
        "cli-flag-secret",
        f"train.py --password {s.PASSWORD} --lr 1e-4",
        f"train.py --password {r('cli-flag-secret')} --lr 1e-4",
    ),
    Case("cli-flag-secret", f"--hf_token={s.PASSWORD}", f"--hf_token={r('cli-flag-secret')}"),
    Case("cli-flag-secret", "--password SWORDFISH", f"--password {r('cli-flag-secret')}"),
    Case("auth-header", f"api-key: {s.PASSWORD}", f"api-key: {r('auth-header')}"),
    Case(
        "env-assignment",
        f"export DB_PASSWORD={s.PASSWORD}",
        f"export DB_PASSWORD={r('env-assignment')}",
    ),
    Case(
        "env-assignment",
        f"COMET_API_KEY: '{s.PASSWORD}'",
        f"COMET_API_KEY: '{r('env-assignment')}'",
    ),
    Case("generic-kv", f"password={s.PASSWORD}", f"password={r('generic-kv')}"),
    Case(
        "generic-kv",
        f"Namespace(access_token='{s.PASSWORD}', lr=0.1)",
        f"Namespace(access_token='{r('generic-kv')}', lr=0.1)",
    ),
    Case(
        "generic-kv",
        f'{{"client_secret": "{s.PASSWORD}"}}',
        f'{{"client_secret": "{r("generic-kv")}"}}',
    ),
    Case("email", "Author: Jane Doe <jane.doe@example.com>", "Author: Jane Doe <<email-1>>"),
    Case(
        "ipv4-private",
        "MASTER_ADDR=10.20.30.40 MASTER_PORT=29500",
        "MASTER_ADDR=<ip-1> MASTER_PORT=29500",
    ),
    Case(
        "ipv4-private",
        "NCCL INFO Bootstrap : Using eth0:192.168.1.17<0>",
        "NCCL INFO Bootstrap : Using eth0:<ip-1><0>",
    ),
    Case("internal-host", "connect to gpu-node-7.corp:29500", "connect to <host-1>:29500"),
    Case("internal-host", "ip-10-0-3-17.ec2.internal", "<host-1>"),
    Case(
        "user-home",
        'File "/home/alice/llm/train.py", line 3',
        f'File "/home/{r("user-home")}/llm/train.py", line 3',
    ),
    Case(
        "user-home",
        r"C:\Users\bob\AppData\Local\Temp",
        rf"C:\Users\{r('user-home')}\AppData\Local\Temp",
    ),
)
