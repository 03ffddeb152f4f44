"""A small syntax highlighter for the code blocks of articles: Python, shell and YAML.

Why not a library: articles hold short fix snippets (an ``export``, a few
lines of Python, a DeepSpeed config), and four token kinds (comments,
strings, keywords, numbers; flags for shell) make them readable. It runs on
the server so the page needs no script, and every piece of text is escaped
before it is wrapped in a ``<span class="tok-...">``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

TOKEN_CLASSES = ("tok-com", "tok-str", "tok-kw", "tok-num", "tok-flag", "tok-key")
_PY_WORDS = [
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
]
_SH_WORDS = [
    "export",
    "pip",
    "python",
    "python3",
    "torchrun",
    "accelerate",
    "deepspeed",
    "conda",
    "uv",
    "cd",
    "sudo",
    "apt-get",
    "if",
    "then",
    "fi",
    "for",
    "do",
    "done",
    "echo",
    "unset",
    "source",
]


def _rule(words: list[str], flags: bool) -> re.Pattern[str]:
    parts = [
        r"(?P<com>#[^\n]*)",
        r"(?P<str>\"[^\"\n]*\"|'[^'\n]*')",
        r"(?P<kw>\b(?:" + "|".join(map(re.escape, words)) + r")\b)" if words else r"(?P<kw>(?!))",
        r"(?P<num>\b\d+(?:\.\d+)?\b)",
        r"(?P<flag>(?<![\w-])--?[A-Za-z][\w-]*)" if flags else r"(?P<flag>(?!))",
    ]
    return re.compile("|".join(parts))


_YAML = re.compile(
    r"(?P<com>#[^\n]*)|(?P<key>^\s*[\w.-]+(?=:))|(?P<str>\"[^\"\n]*\"|'[^'\n]*')"
    r"|(?P<num>\b\d+(?:\.\d+)?\b)",
    re.MULTILINE,
)
RULES: Mapping[str, re.Pattern[str]] = {
    "python": _rule(_PY_WORDS, flags=False),
    "bash": _rule(_SH_WORDS, flags=True),
    "yaml": _YAML,
    "json": _YAML,
    "text": re.compile(r"(?!)"),
}
ALIASES = {"py": "python", "sh": "bash", "shell": "bash", "console": "bash", "yml": "yaml"}
LANGUAGES = tuple(RULES)


def code_html(code: str, lang: str) -> str:
    """``<pre><code>`` with escaped text and token spans; unknown languages stay plain."""
    name = ALIASES.get(lang.strip().lower(), lang.strip().lower()) or "text"
    rule = RULES.get(name, RULES["text"])
    out: list[str] = []
    last = 0
    for found in rule.finditer(code):
        if found.start() == found.end() or found.lastgroup is None:
            continue
        out.append(html.escape(code[last : found.start()]))
        out.append(f'<span class="tok-{found.lastgroup}">{html.escape(found.group())}</span>')
        last = found.end()
    out.append(html.escape(code[last:]))
    klass = f' class="language-{name}"' if name in RULES else ""
    return f"<pre><code{klass}>{''.join(out)}</code></pre>\n"
