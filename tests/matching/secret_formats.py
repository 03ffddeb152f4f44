"""Issue 24's secret formats: a generated value per seed, in the line a training log prints.

Each row is ``(name, rule, template, make)``: ``template`` holds ``{v}``,
``make(seed)`` builds the value from the seeded generator of ``secrets.py``
(no token-shaped literal sits in the repository), and ``rule`` is the rule
expected to fire when the line is redacted alone. The rows cover every
provider row of ``redact_providers``, the key-name rule in env lines, YAML,
JSON, Python keyword arguments and CLI flags, Chinese labels, the CLI
password forms, DSNs with ``/`` and ``@`` in the password, cookies, webhook
and bot URLs (urllib3's host-less form included) and the entropy rule.
Used by the table test (A2), the generated corpus (A1) and the end-to-end
test (A5).
"""

from __future__ import annotations

import string
from collections.abc import Callable

from tests.matching.secrets import ALNUM, B64, HEX, fake

Make = Callable[[int], str]
Format = tuple[str, str, str, Make]

UP = string.ascii_uppercase
LOW = string.ascii_lowercase
D = string.digits
URLSAFE = ALNUM + "_-"
B32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def g(prefix: str, length: int, alphabet: str = ALNUM, suffix: str = "") -> Make:
    """A value maker: ``prefix`` + ``length`` seeded characters + ``suffix``."""
    return lambda seed: fake(prefix, length, alphabet, seed=seed) + suffix


def cat(*parts: Make | str) -> Make:
    """Join makers and literal separators into one maker."""
    return lambda seed: "".join(p if isinstance(p, str) else p(seed) for p in parts)


def uuid(seed: int) -> str:
    return "-".join(fake("", n, HEX, seed=seed * 7 + n) for n in (8, 4, 4, 4, 12))


def password(seed: int) -> str:
    """A human-chosen password: letters, digits, one symbol."""
    return fake("Pw", 12, ALNUM, seed=seed) + "!"


def dsn_password(seed: int) -> str:
    """A password with ``/`` and ``@`` in it (only part was redacted before issue 24)."""
    return fake("p", 6, ALNUM, seed=seed) + "/" + fake("", 5, ALNUM, seed=seed) + "@x9"


PROVIDER_FORMATS: tuple[Format, ...] = (
    ("groq", "groq-key", "GROQ_API_KEY={v}", g("gsk_", 52)),
    ("groq-client", "groq-key", "client = Groq(api_key='{v}')", g("gsk_", 52)),
    ("replicate", "replicate-token", "REPLICATE_API_TOKEN={v}", g("r8_", 37)),
    ("replicate-bare", "replicate-token", "auth failed for {v}", g("r8_", 37)),
    ("xai", "xai-key", "XAI_API_KEY={v}", g("xai-", 80)),
    ("xai-bare", "xai-key", "401 for key {v}", g("xai-", 80)),
    ("siliconflow", "openai-anthropic-key", "api_key: {v}", g("sk-", 48, LOW)),
    ("siliconflow-bare", "openai-anthropic-key", "using {v}", g("sk-", 48, LOW)),
    ("deepseek", "openai-anthropic-key", "DEEPSEEK_API_KEY={v}", g("sk-", 32, HEX)),
    ("openrouter", "openai-anthropic-key", "key {v} rejected", g("sk-or-v1-", 64, HEX)),
    ("anthropic-admin", "openai-anthropic-key", "{v}", g("sk-ant-admin01-", 93, URLSAFE, "AA")),
    ("langfuse-secret", "openai-anthropic-key", "LANGFUSE_SECRET_KEY={v}", cat("sk-lf-", uuid)),
    ("langfuse-public", "langfuse-public-key", "public key {v}", cat("pk-lf-", uuid)),
    ("perplexity", "perplexity-key", "{v}", g("pplx-", 48)),
    ("nvidia", "nvidia-key", "NVIDIA_API_KEY={v}", g("nvapi-", 64, URLSAFE)),
    ("fireworks", "fireworks-key", "{v}", g("fw_", 24)),
    ("langsmith", "langsmith-key", "{v}", cat(g("lsv2_pt_", 32, HEX), g("_", 10, HEX))),
    ("pinecone", "pinecone-key", "{v}", g("pcsk_", 60, ALNUM + "_")),
    ("tavily", "tavily-key", "{v}", g("tvly-", 32)),
    ("jina", "jina-key", "{v}", g("jina_", 60)),
    ("voyage", "voyage-key", "{v}", g("pa-", 43)),
    ("elevenlabs", "elevenlabs-key", "{v}", g("sk_", 48, HEX)),
    ("cerebras", "cerebras-key", "{v}", g("csk-", 48, LOW + D)),
    ("modelscope", "modelscope-token", "{v}", cat("ms-", uuid)),
    ("zhipu", "zhipu-key", "ZHIPUAI_API_KEY={v}", cat(g("", 32, HEX), g(".", 16))),
    ("zhipu-bare", "zhipu-key", "{v}", cat(g("", 32, HEX), g(".", 16))),
    ("qianfan", "baidu-qianfan-key", "{v}", cat(g("bce-v3/ALTAK-", 21), g("/", 40, HEX))),
    ("prefect", "prefect-key", "{v}", g("pnu_", 36)),
    ("wandb-v1-bare", "wandb-v1-key", "{v}", cat(g("wandb_v1_", 27), g("_", 49))),
    ("aliyun", "aliyun-access-key-id", "ALIBABA_CLOUD_ACCESS_KEY_ID={v}", g("LTAI", 20)),
    ("aliyun-bare", "aliyun-access-key-id", "AccessKeyId {v} is disabled", g("LTAI", 20)),
    ("aliyun-oss", "aliyun-access-key-id", "oss2.Auth('{v}', secret)", g("LTAI", 16)),
    ("tencent", "tencent-secret-id", "TENCENTCLOUD_SECRET_ID={v}", g("AKID", 32)),
    ("tencent-bare", "tencent-secret-id", "SecretId {v} invalid", g("AKID", 32)),
    ("volcengine", "volcengine-access-key", "{v}", g("AKLT", 40, ALNUM)),
    ("jdcloud", "jdcloud-access-key", "{v}", g("JDC_", 28, UP + D)),
    ("aws-bedrock", "aws-bedrock-key", "{v}", g("ABSK", 120, B64)),
    ("aws-asia", "aws-access-key-id", "{v}", g("ASIA", 16, UP + "234567")),
    ("gcp-oauth", "google-oauth-token", "{v}", g("ya29.", 80, URLSAFE)),
    ("digitalocean", "digitalocean-token", "{v}", g("dop_v1_", 64, HEX)),
    (
        "cloudflare-ca",
        "cloudflare-origin-key",
        "{v}",
        cat(g("v1.0-", 24, HEX), g("-", 146, HEX)),
    ),
    ("heroku", "heroku-key", "{v}", g("HRKU-AA", 58, URLSAFE)),
    ("vault", "vault-token", "VAULT_TOKEN={v}", g("hvs.", 95, URLSAFE)),
    ("terraform", "terraform-token", "{v}", cat(g("", 14, LOW + D), g(".atlasv1.", 64, LOW + D))),
    ("doppler", "doppler-token", "{v}", g("dp.pt.", 43)),
    ("flyio", "flyio-token", "{v}", g("fo1_", 43, URLSAFE)),
    ("planetscale", "planetscale-token", "{v}", g("pscale_tkn_", 43)),
    ("pulumi", "pulumi-token", "{v}", g("pul-", 40, HEX)),
    ("openshift", "openshift-token", "{v}", g("sha256~", 43, URLSAFE)),
    ("yandex", "yandex-key", "{v}", g("AQVN", 36, URLSAFE)),
    ("grafana-cloud", "grafana-token", "{v}", g("glc_", 48, B64)),
    ("grafana-sa", "grafana-token", "{v}", cat(g("glsa_", 32), g("_", 8, HEX))),
    ("sentry", "sentry-token", "{v}", g("sntryu_", 64, HEX)),
    ("newrelic", "newrelic-key", "{v}", g("NRAK-", 27, UP + D)),
    ("dynatrace", "dynatrace-token", "{v}", cat(g("dt0c01.", 24, UP + D), g(".", 64, UP + D))),
    ("linear", "linear-key", "{v}", g("lin_api_", 40)),
    ("notion", "notion-token", "{v}", cat(g("ntn_", 11, D), g("", 35))),
    ("postman", "postman-key", "{v}", cat(g("PMAK-", 24, HEX), g("-", 34, HEX))),
    ("readme", "readme-key", "{v}", g("rdme_", 70, LOW + D)),
    ("atlassian", "atlassian-token", "{v}", g("ATATT3", 186, URLSAFE)),
    ("onepassword", "onepassword-token", "{v}", g("ops_eyJ", 260, B64)),
    ("age", "age-secret-key", "{v}", g("AGE-SECRET-KEY-1", 58, B32)),
    ("infracost", "infracost-token", "{v}", g("ico-", 32)),
    ("scalingo", "scalingo-token", "{v}", g("tk-us-", 48, URLSAFE)),
    ("airtable", "airtable-token", "{v}", cat(g("pat", 14), g(".", 64, HEX))),
    ("harness", "harness-token", "{v}", cat(g("pat.", 22), g(".", 24), g(".", 20))),
    ("adobe", "adobe-secret", "{v}", g("p8e-", 32)),
    ("octopus", "octopus-key", "{v}", g("API-", 26, UP + D)),
    ("maxmind", "maxmind-key", "{v}", cat(g("", 6), g("_", 29), "_mmk")),
    ("settlemint", "settlemint-token", "{v}", g("sm_pat_", 16)),
    ("easypost", "easypost-key", "{v}", g("EZAK", 54)),
    ("frameio", "frameio-token", "{v}", g("fio-u-", 64, URLSAFE)),
    ("duffel", "duffel-token", "{v}", g("duffel_live_", 43, URLSAFE)),
    ("typeform", "typeform-token", "{v}", g("tfp_", 59, URLSAFE)),
    ("rubygems", "rubygems-token", "{v}", g("rubygems_", 48, HEX)),
    ("clojars", "clojars-token", "{v}", g("CLOJARS_", 60, LOW + D)),
    ("nuget", "nuget-key", "{v}", g("oy2", 43, LOW + D)),
    ("artifactory", "artifactory-key", "{v}", g("AKCp", 69)),
    ("gitlab-runner", "gitlab-token", "{v}", g("glrt-", 20, URLSAFE)),
    ("gitlab-agent", "gitlab-token", "{v}", g("glagent-", 50, URLSAFE)),
    ("slack-app", "slack-token", "{v}", cat(g("xapp-1-", 11, UP + D), g("-", 13, D), g("-", 64))),
    ("telegram", "telegram-bot-token", "TELEGRAM_BOT_TOKEN={v}", cat(g("", 10, D), g(":A", 34))),
    (
        "telegram-url",
        "telegram-bot-url",
        "POST https://api.telegram.org/bot{v}/sendMessage",
        cat(g("", 10, D), g(":AA", 33, URLSAFE)),
    ),
    (
        "telegram-pool",
        "telegram-bot-url",
        "HTTPSConnectionPool(host='api.telegram.org', port=443): Max retries exceeded with url: "
        "https://api.telegram.org/bot{v}/getUpdates",
        cat(g("", 9, D), g(":AA", 33, URLSAFE)),
    ),
    (
        "telegram-hostless",
        "telegram-bot-url",
        "HTTPSConnectionPool(host='api.telegram.org', port=443): Max retries exceeded with url: "
        "/bot{v}/sendMessage (Caused by ProxyError('Unable to connect to proxy'))",
        cat(g("", 10, D), g(":AA", 33, URLSAFE)),
    ),
    (
        "discord-bot",
        "discord-bot-token",
        "DISCORD_TOKEN={v}",
        cat(g("M", 25, URLSAFE), g(".", 6, URLSAFE), g(".", 27, URLSAFE)),
    ),
    ("sendgrid", "sendgrid-key", "{v}", cat(g("SG.", 22, URLSAFE), g(".", 43, URLSAFE))),
    ("sendinblue", "sendinblue-key", "{v}", cat(g("xkeysib-", 64, HEX), g("-", 16))),
    ("mailgun", "mailgun-key", "{v}", g("key-", 32, HEX)),
    ("mailchimp", "mailchimp-key", "{v}", g("", 32, HEX, "-us14")),
    ("twilio", "twilio-key", "{v}", g("SK", 32, HEX)),
    ("stripe-live", "stripe-key", "STRIPE_KEY={v}", g("sk_live_", 24)),
    ("stripe-restricted", "stripe-key", "{v}", g("rk_live_", 24)),
    ("stripe-webhook", "stripe-key", "{v}", g("whsec_", 32)),
    ("square", "square-token", "{v}", g("sq0atp-", 22, URLSAFE)),
    ("facebook", "facebook-token", "{v}", g("EAAC", 110)),
    ("shopify", "shopify-token", "{v}", g("shpat_", 32, HEX)),
    ("shippo", "shippo-token", "{v}", g("shippo_live_", 40, HEX)),
    ("dropbox", "dropbox-token", "{v}", g("sl.", 135, URLSAFE)),
)

URL_FORMATS: tuple[Format, ...] = (
    (
        "feishu-pool",
        "feishu-lark-webhook",
        "HTTPSConnectionPool(host='open.feishu.cn', port=443): Max retries exceeded with url: "
        "/open-apis/bot/v2/hook/{v} (Caused by NewConnectionError('failed'))",
        uuid,
    ),
    (
        "lark-hook",
        "feishu-lark-webhook",
        "POST https://open.larksuite.com/open-apis/bot/v2/hook/{v}",
        uuid,
    ),
    (
        "slack-hostless",
        "slack-webhook-path",
        "HTTPSConnectionPool(host='hooks.slack.com', port=443): Max retries exceeded with url: "
        "/services/{v} (Caused by ConnectTimeoutError())",
        cat(g("T", 9, UP + D), g("/B", 10, UP + D), g("/", 24)),
    ),
    (
        "discord-hostless",
        "discord-webhook",
        "HTTPSConnectionPool(host='discord.com', port=443): Max retries exceeded with url: "
        "/api/webhooks/{v} (Caused by SSLError())",
        cat(g("1", 17, D), g("/", 68, URLSAFE)),
    ),
    ("bark", "bark-key", "requests.get('https://api.day.app/{v}/train%20done')", g("", 22)),
    (
        "bark-pool",
        "url-token",
        "HTTPSConnectionPool(host='bark.example.com', port=443): Max retries exceeded with url: "
        "/{v}/epoch%203%20done",
        g("", 22),
    ),
    (
        "apim-header",
        "auth-header",
        "headers={{'Ocp-Apim-Subscription-Key': '{v}'}}",
        g("", 32, HEX),
    ),
    (
        "apim-query",
        "url-query-secret",
        "GET https://apim.example.com/v1/score?subscription-key={v}",
        g("", 32, HEX),
    ),
    (
        "sigv4",
        "generic-kv",
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIA/20240601/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature={v}",
        g("", 64, HEX),
    ),
    (
        "presigned-s3",
        "url-query-secret",
        "https://b.s3.amazonaws.com/ckpt.pt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={v}",
        g("", 64, HEX),
    ),
    (
        "gcs-signed",
        "url-query-secret",
        "https://storage.googleapis.com/b/o?X-Goog-Signature={v}",
        g("", 256, HEX),
    ),
    (
        "url-path-token",
        "url-token",
        "GET https://hooks.example.com/notify/{v}/send -> 404",
        g("", 32),
    ),
    ("url-query-random", "url-token", "https://example.com/dl?id=7&blob={v}&x=1", g("", 40)),
    ("x-header", "header-token", "X-Upload-Ticket: {v}", g("", 40, URLSAFE)),
    ("cookie", "cookie-header", "Cookie: sessionid={v}; csrftoken=abc", g("", 32, LOW + D)),
    ("set-cookie", "cookie-header", "Set-Cookie: session={v}; Path=/; HttpOnly", g("", 40)),
    ("session-kv", "generic-kv", "jar={{'connect.sid': '{v}'}}", g("s%3A", 40)),
    ("phpsessid", "env-assignment", "PHPSESSID={v}", g("", 26, LOW + D)),
    (
        "dingtalk-pool",
        "url-query-secret",
        "HTTPSConnectionPool(host='oapi.dingtalk.com', port=443): Max retries exceeded with url: "
        "/robot/send?access_token={v} (Caused by SSLError('EOF'))",
        g("", 64, HEX),
    ),
    (
        "wecom-pool",
        "url-query-secret",
        "HTTPSConnectionPool(host='qyapi.weixin.qq.com', port=443): Max retries exceeded with "
        "url: /cgi-bin/webhook/send?key={v} (Caused by ConnectTimeoutError())",
        uuid,
    ),
    ("azure-openai-header", "auth-header", "api-key: {v}", g("", 32, HEX)),
    ("x-api-token-header", "auth-header", "X-Api-Token: {v}", g("", 32)),
    ("gitlab-session", "generic-kv", "Cookie _gitlab_session={v}", g("", 32, LOW + D)),
    ("dsn-pg", "dsn-password", "postgresql://trainer:{v}@db.example.com:5432/runs", dsn_password),
    ("dsn-mysql", "dsn-password", "mysql+pymysql://root:{v}@mysql:3306/ml", dsn_password),
    ("dsn-redis", "dsn-password", "redis://default:{v}@cache:6379/0", dsn_password),
    (
        "dsn-mongo",
        "dsn-password",
        "mongodb://admin:{v}@mongo:27017/?authSource=admin",
        dsn_password,
    ),
    ("dsn-amqp", "dsn-password", "CELERY_BROKER=amqp://guest:{v}@rabbit:5672//", dsn_password),
)

ENV_FORMATS: tuple[Format, ...] = tuple(
    (f"env-{name.lower()}", "env-assignment", f"{name}={{v}}", password)
    for name in (
        "DB_PASS",
        "REDIS_PASS",
        "SMTP_PASS",
        "KAGGLE_KEY",
        "COHERE_KEY",
        "STRIPE_KEY",
        "MASTER_KEY",
        "ENCRYPTION_KEY",
        "JWT_SIGNING_KEY",
        "SECRET_PASSPHRASE",
        "MISTRAL_API_KEY",
        "TOGETHER_API_KEY",
        "CO_API_KEY",
        "HUAWEICLOUD_SDK_SK",
        "BAIDU_SECRET_KEY",
        "QINIU_SECRET_KEY",
        "DASHSCOPE_API_KEY",
        "ARK_API_KEY",
        "MOONSHOT_API_KEY",
        "NEPTUNE_API_TOKEN",
        "CLEARML_API_SECRET_KEY",
        "COMET_API_KEY",
        "HF_HUB_TOKEN",
        "AZURE_OPENAI_API_KEY",
        "PGPASSWORD",
        "MYSQL_ROOT_PASSWORD",
        "RABBITMQ_DEFAULT_PASS",
        "MINIO_ROOT_PASSWORD",
        "AWS_SESSION_TOKEN",
        "SESSION_SECRET",
        "APP_COOKIE_SECRET",
        "WEBHOOK_SIGNATURE",
        "AUTH_TOKEN",
        "GRADIO_AUTH",
        "DJANGO_SECRET_KEY",
    )
)
KEY_NAME_FORMATS: tuple[Format, ...] = (
    *ENV_FORMATS,
    ("export-line", "env-assignment", "export SMTP_PASS={v}", password),
    ("dotenv-quoted", "env-assignment", 'DB_PASS="{v}"', password),
    ("yaml-token", "generic-kv", "  token: {v}", g("", 24)),
    ("yaml-password", "generic-kv", "  password: {v}", password),
    ("yaml-secret-key", "generic-kv", "  secret_key: '{v}'", g("", 24)),
    ("yaml-api-key", "generic-kv", "api_key: {v}", g("", 32)),
    ("yaml-db-pass", "generic-kv", "  db_pass: {v}", password),
    ("json-token", "generic-kv", '{{"token": "{v}"}}', g("", 24)),
    ("json-api-key", "auth-header", '{{"apiKey": "{v}", "model": "x"}}', g("", 32)),
    ("json-session", "generic-kv", '{{"session_token": "{v}"}}', g("", 40, URLSAFE)),
    ("json-cookie", "generic-kv", '{{"cookie": "{v}"}}', g("", 30)),
    ("json-signature", "generic-kv", '{{"signature": "{v}"}}', g("", 44, B64)),
    ("json-escaped", "generic-kv", '"{{\\"password\\": \\"{v}\\"}}"', password),
    (
        "kwarg-secret-key",
        "generic-kv",
        "Minio('s3', access_key='minio', secret_key={v})",
        g("", 32),
    ),
    ("kwarg-quoted", "generic-kv", "boto3.client('s3', aws_session_token='{v}')", g("", 60, B64)),
    ("kwarg-password", "generic-kv", "connect(host='db', password='{v}')", password),
    ("kwarg-auth", "generic-kv", "Client(auth='{v}')", g("", 24)),
    ("kwarg-credential", "generic-kv", "Service(credential='{v}')", g("", 24)),
    ("repr-cookie", "generic-kv", "Session(cookies={{'sessionid': '{v}'}})", g("", 32)),
    ("arrow", "generic-kv", "'password' => '{v}'", password),
    ("fullwidth", "generic-kv", "password：{v}", password),
    ("spaced-token", "spaced-secret", "using token {v} for upload", g("", 32)),
    ("lower-token", "generic-kv", "token: {v}", g("", 20)),
    ("yaml-credentials", "generic-kv", "  credentials: {v}", g("", 40, B64)),
    ("k8s-secret-data", "generic-kv", "  db-password: {v}", g("", 24, B64, "==")),
    ("hub-kwarg", "generic-kv", "snapshot_download(repo_id='org/m', token='{v}')", g("", 30)),
    ("cli-mysql", "cli-password", "mysql -h db -u root -p{v} ml < dump.sql", password),
    ("cli-mysqldump", "cli-password", "mysqldump -uroot -p{v} ml > ml.sql", password),
    ("cli-curl", "cli-password", "curl -u admin:{v} https://registry.example.com/v2/", password),
    ("cli-curl-user", "cli-password", "curl --user ci:{v} -X POST https://x.example.com", password),
    ("cli-sshpass", "cli-password", "sshpass -p {v} scp ckpt.pt gpu:/data", password),
    ("cli-sshpass-glued", "cli-password", "sshpass -p'{v}' ssh gpu", password),
    ("cli-redis", "cli-password", "redis-cli -h cache -a {v} ping", password),
    ("cli-flag-db", "cli-flag-secret", "python sync.py --db-password {v}", password),
    ("cli-flag-key", "cli-flag-secret", "python serve.py --openai-key={v}", g("", 32)),
    ("cli-flag-secret", "cli-flag-secret", "deploy --client-secret {v}", g("", 32)),
    ("zh-mima", "zh-label-secret", "数据库密码：{v}", password),
    ("zh-miyao", "zh-label-secret", "密钥: {v}", g("", 32)),
    ("zh-lingpai", "zh-label-secret", "令牌={v}", g("", 40)),
    ("zh-kouling", "zh-label-secret", "口令 {v}", password),
    ("zh-shi", "zh-label-secret", "我的密码是{v}", password),
    ("zh-quoted", "zh-label-secret", "访问密钥：“{v}”", g("", 30)),
    ("zh-pingzheng", "zh-label-secret", "凭证：{v}", g("", 30)),
    ("zh-shouquanma", "zh-label-secret", "邮箱授权码：{v}", g("", 16, LOW)),
)

FORMATS: tuple[Format, ...] = PROVIDER_FORMATS + URL_FORMATS + KEY_NAME_FORMATS


def line(fmt: Format, seed: int) -> tuple[str, str]:
    """``(line, value)`` of one format for one seed."""
    _, _, template, make = fmt
    value = make(seed)
    return template.format(v=value), value
