"""Provider token formats: a prefix, a charset and a length say "secret" on their own.

The facts (which providers issue which prefixes) come from the public rule
sets of gitleaks and detect-secrets and from the vendors' documentation; the
patterns are ours, in RE2 syntax. Model API vendors and Chinese clouds that
those sets lack are added. A row only needs a prefix distinctive enough that
ML logs never print it otherwise (target A3); vendors without a prefix
(Cohere, Mistral, Together, Baidu, Huawei) are caught by the key-name rule of
``redact_rules`` (``COHERE_API_KEY=...``), which is the structural answer to
providers this table will always trail.

Rows are in the order they apply; earlier rows win overlaps.
"""

from __future__ import annotations

from app.matching.redact_checks import RedactRule, has_letter_and_digit, long_or_mixed

_END = r"(?:[^A-Za-z0-9_-]|$)"  # a token ends where its charset ends


def _row(rule_id: str, pattern: str, source: str, *, mixed: bool = False) -> RedactRule:
    """A whole-token row; ``mixed`` asks for letters and digits (prefixes that read as words)."""
    validators = (has_letter_and_digit,) if mixed else ()
    return RedactRule(
        rule_id, r"\b(" + pattern + r")" + _END, group=1, validators=validators, source=source
    )


PROVIDERS: tuple[RedactRule, ...] = (
    # Source forges and package registries.
    RedactRule("hf-token", r"\b(?:hf|api_org)_[A-Za-z0-9]{30,40}\b", source="gitleaks, widened"),
    RedactRule(
        "openai-anthropic-key",  # OpenAI, Anthropic, DeepSeek, Moonshot, DashScope, OpenRouter,
        r"\bsk-(?:proj-|svcacct-|admin-|ant-[a-z]+[0-9]*-|or-v1-|lf-)?[A-Za-z0-9_-]{20,}",
        validators=(long_or_mixed,),  # SiliconFlow (48 letters), Langfuse sk-lf-
        source="gitleaks openai/anthropic; vendors' docs",
    ),
    RedactRule(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{82,244})\b",
    ),
    RedactRule(
        "gitlab-token",
        r"\b(?:gl(?:pat|dt|rt|cbt|ptt|oas|soat|ft|imt|ffct|agent)-[A-Za-z0-9_.-]{20,}"
        r"|GR1348941[A-Za-z0-9_-]{20})",
        source="gitleaks gitlab-*",
    ),
    RedactRule("slack-token", r"\bx(?:ox[abposer]|app)-[A-Za-z0-9-]{10,}|\bxoxe\.xox[bp]-[\w-]+"),
    RedactRule(
        "pypi-token",
        r"\bpypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}",
    ),
    RedactRule("npm-token", r"\bnpm_[A-Za-z0-9]{36,}"),
    _row("rubygems-token", r"rubygems_[a-f0-9]{48}", "gitleaks rubygems-api-token"),
    _row("clojars-token", r"CLOJARS_[A-Za-z0-9]{60}", "gitleaks clojars-api-token"),
    _row("nuget-key", r"oy2[a-z0-9]{43}", "NuGet API keys", mixed=True),
    _row("artifactory-key", r"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}", "detect-secrets"),
    # ML platforms and model API vendors.
    RedactRule("wandb-v1-key", r"\bwandb_v1_[A-Za-z0-9_]{20,}", source="trufflehog W&B v2"),
    _row("groq-key", r"gsk_[A-Za-z0-9]{48,56}", "Groq console keys"),
    _row("replicate-token", r"r8_[A-Za-z0-9]{37,40}", "Replicate API tokens", mixed=True),
    _row("xai-key", r"xai-[A-Za-z0-9]{70,90}", "xAI console keys"),
    _row("perplexity-key", r"pplx-[A-Za-z0-9]{40,56}", "gitleaks perplexity-api-key"),
    _row("nvidia-key", r"nvapi-[A-Za-z0-9_-]{60,70}", "NVIDIA NGC/NIM keys"),
    _row("fireworks-key", r"fw_[A-Za-z0-9]{20,40}", "Fireworks AI keys", mixed=True),
    _row("langsmith-key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", "LangSmith keys"),
    _row("pinecone-key", r"pcsk_[A-Za-z0-9_]{40,100}", "Pinecone keys"),
    _row("tavily-key", r"tvly-(?:dev-)?[A-Za-z0-9]{28,40}", "Tavily keys", mixed=True),
    _row("jina-key", r"jina_[A-Za-z0-9_-]{40,80}", "Jina AI keys", mixed=True),
    _row("voyage-key", r"pa-[A-Za-z0-9_-]{40,50}", "Voyage AI keys", mixed=True),
    _row("elevenlabs-key", r"sk_[a-f0-9]{48}", "ElevenLabs keys"),
    _row("cerebras-key", r"csk-[a-z0-9]{40,56}", "Cerebras keys", mixed=True),
    _row("langfuse-public-key", r"pk-lf-[a-f0-9-]{36}", "Langfuse keys"),
    _row(
        "modelscope-token",
        r"ms-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}",
        "ModelScope SDK tokens",
    ),
    _row(
        "zhipu-key", r"[a-f0-9]{32}\.[A-Za-z0-9]{16}", "Zhipu (BigModel) id.secret keys", mixed=True
    ),
    _row("baidu-qianfan-key", r"bce-v3/ALTAK-[A-Za-z0-9]{20,}/[a-f0-9]{40}", "Baidu Qianfan v3"),
    RedactRule("databricks-token", r"\bdapi[0-9a-f]{32}(?:-[0-9])?\b"),
    _row("prefect-key", r"pnu_[A-Za-z0-9]{36}", "gitleaks prefect-api-token"),
    # Clouds, the Chinese ones included.
    RedactRule("aws-access-key-id", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    _row("aws-bedrock-key", r"ABSK[A-Za-z0-9+/]{109,269}={0,2}", "gitleaks aws bedrock"),
    RedactRule("gcp-api-key", r"\bAIza[0-9A-Za-z_-]{35}", source="gitleaks gcp-api-key"),
    RedactRule("google-oauth-token", r"\bya29\.[0-9A-Za-z_-]{20,}"),
    RedactRule(
        "azure-ad-client-secret",
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        source="gitleaks azure-ad-client-secret",
    ),
    _row("aliyun-access-key-id", r"LTAI[A-Za-z0-9]{12,28}", "gitleaks alibaba-access-key-id"),
    _row("tencent-secret-id", r"AKID[A-Za-z0-9]{32,40}", "Tencent Cloud SecretId", mixed=True),
    _row(
        "volcengine-access-key", r"AKLT[A-Za-z0-9_-]{20,60}", "Volcengine/Kingsoft AK", mixed=True
    ),
    _row("jdcloud-access-key", r"JDC_[A-Z0-9]{28,32}", "JD Cloud AK", mixed=True),
    _row("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", "gitleaks digitalocean-*"),
    _row("cloudflare-origin-key", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}", "gitleaks cloudflare"),
    _row("heroku-key", r"HRKU-AA[0-9A-Za-z_-]{58}", "gitleaks heroku-api-key-v2"),
    _row("vault-token", r"hv[sb]\.[A-Za-z0-9_-]{24,300}", "gitleaks vault-*"),
    _row("terraform-token", r"[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}", "gitleaks hashicorp"),
    _row("doppler-token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}", "gitleaks"),
    _row("flyio-token", r"fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}", "gitleaks"),
    _row("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}", "gitleaks planetscale"),
    _row("pulumi-token", r"pul-[a-f0-9]{40}", "gitleaks pulumi-api-token"),
    _row("openshift-token", r"sha256~[\w-]{43}", "gitleaks openshift-user-token"),
    _row(
        "yandex-key",
        r"AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}|t1\.[\w-]+={0,2}\.[\w-]{86}"
        r"={0,2}",
        "gitleaks yandex-*",
        mixed=True,
    ),
    # Observability, CI and SaaS.
    _row(
        "grafana-token",
        r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}"
        r"|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        "gitleaks grafana-*",
    ),
    _row("sentry-token", r"sntry[su]_[A-Za-z0-9+/=_]{40,}", "gitleaks sentry-*"),
    _row("newrelic-key", r"NR(?:AK|JS|II)-[A-Za-z0-9-]{19,32}", "gitleaks new-relic-*"),
    _row("dynatrace-token", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", "gitleaks dynatrace"),
    _row("linear-key", r"lin_api_[A-Za-z0-9]{40}", "gitleaks linear-api-key"),
    _row(
        "notion-token",
        r"ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}",
        "Notion tokens",
        mixed=True,
    ),
    _row("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", "gitleaks postman-api-token"),
    _row("readme-key", r"rdme_[a-z0-9]{70}", "gitleaks readme-api-token"),
    _row("atlassian-token", r"ATATT3[A-Za-z0-9_=-]{186}", "gitleaks atlassian-api-token"),
    _row(
        "onepassword-token",
        r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}|A3-[A-Z0-9]{6}-[A-Z0-9-]{23,29}",
        "gitleaks 1password-*",
        mixed=True,
    ),
    _row("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "gitleaks"),
    _row("infracost-token", r"ico-[A-Za-z0-9]{32}", "gitleaks infracost-api-token"),
    _row("scalingo-token", r"tk-us-[\w-]{48}", "gitleaks scalingo-api-token"),
    _row("airtable-token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", "gitleaks airtable"),
    _row(
        "harness-token",
        r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
        "gitleaks harness-api-key",
    ),
    _row("adobe-secret", r"p8e-[A-Za-z0-9]{32}", "gitleaks adobe-client-secret", mixed=True),
    _row("octopus-key", r"API-[A-Z0-9]{26}", "gitleaks octopus-deploy-api-key", mixed=True),
    _row("maxmind-key", r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk", "gitleaks maxmind-license-key"),
    _row("settlemint-token", r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}", "gitleaks settlemint-*"),
    _row("easypost-key", r"EZ[AT]K[A-Za-z0-9]{54}", "gitleaks easypost-*"),
    _row("frameio-token", r"fio-u-[A-Za-z0-9_=-]{64}", "gitleaks frameio-api-token"),
    _row("duffel-token", r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}", "gitleaks duffel-api-token"),
    _row("typeform-token", r"tfp_[A-Za-z0-9_.=-]{59}", "gitleaks typeform-api-token"),
    # Messaging, mail and payments.
    _row("telegram-bot-token", r"[0-9]{5,16}:A[A-Za-z0-9_-]{34}", "gitleaks, detect-secrets"),
    RedactRule(  # api.telegram.org/bot<id>:<token>/ (no word boundary after "bot"), or host-less
        "telegram-bot-url",
        r"(?i)((?:api\.telegram\.org)?/(?:file/)?bot)([0-9]{5,16}:[A-Za-z0-9_-]{30,40})",
        group=2,
    ),
    _row(
        "discord-bot-token",
        r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}",
        "detect-secrets DiscordBotTokenDetector",
        mixed=True,
    ),
    _row("sendgrid-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", "gitleaks, detect-secrets"),
    _row("sendinblue-key", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", "gitleaks sendinblue"),
    _row("mailgun-key", r"(?:pub)?key-[a-f0-9]{32}", "gitleaks mailgun-*", mixed=True),
    _row("mailchimp-key", r"[a-f0-9]{32}-us[0-9]{1,2}", "gitleaks, detect-secrets"),
    _row("twilio-key", r"SK[0-9a-fA-F]{32}", "gitleaks, detect-secrets", mixed=True),
    _row(
        "stripe-key",
        r"(?:sk|rk|pk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{32,}",
        "gitleaks, detect-secrets",
    ),
    _row(
        "square-token",
        r"(?:EAAA|sq0atp-|sq0csp-)[\w-]{22,60}",
        "gitleaks, detect-secrets",
        mixed=True,
    ),
    _row("facebook-token", r"EAA[MC][A-Za-z0-9]{100,}", "gitleaks facebook-page-access-token"),
    _row("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "gitleaks shopify-*"),
    _row("shippo-token", r"shippo_(?:live|test)_[a-fA-F0-9]{40}", "gitleaks shippo-api-token"),
    _row("dropbox-token", r"sl\.[A-Za-z0-9_=-]{130,140}", "gitleaks dropbox-short-lived"),
    RedactRule("errkb-token", r"\berrkb_[a-z]+_[A-Za-z0-9_-]{32,}", source="errkb's own tokens"),
    RedactRule("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"),
)
