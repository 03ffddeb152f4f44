"""The entropy rule: random-looking tokens inside URLs and ``X-`` headers.

Global entropy would redact evidence (commit hashes, model names, run ids;
research note A.2), so the rule runs only where a token is a credential more
often than not, and asks more than entropy: upper case, lower case and digits,
few separators and few runs that read as words (a quarter vowels or more:
``Sequence`` and ``Instruct`` do, ``Xxgzt`` does not). ``Wav2Vec2ForCTC``,
``DeepSeek-R1-Distill-Qwen-32B``, hex hashes and UUIDs fail it; base62 and
base64url keys pass (about 98 % of random 20-40 character ones; the rest are
documented misses, A12). Plain string operations only: this runs per URL.
"""

from __future__ import annotations

import math
from collections import Counter


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value).values()
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts) if total else 0.0


_DELIMITERS = str.maketrans(dict.fromkeys("/?&=;:.,@#+%!$'()*~[]{}<>|^`\"\\", " "))


def _runs(secret: str) -> list[tuple[int, int]]:
    """Spans of 20+ characters of ``[A-Za-z0-9_-]`` between URL delimiters."""
    spans, offset = [], 0
    for piece in secret.translate(_DELIMITERS).split(" "):
        size = len(piece)
        if (
            20 <= size <= 512
            and piece.isascii()
            and piece.replace("-", "").replace("_", "").isalnum()
        ):
            spans.append((offset, offset + size))
        offset += size + 1
    return spans


def _words(token: str) -> list[str]:
    """Camel-case words of four lower-case letters or five capitals (``Sequence``, ``HTTPS``)."""
    words, run = [], ""
    for char in token + " ":
        if char.isascii() and char.isalpha():
            run += char
            continue
        words += _camel_words(run)
        run = ""
    return words


def _camel_words(run: str) -> list[str]:
    found, index, size = [], 0, len(run)
    while index < size:
        end = index
        while end < size and run[end].isupper():
            end += 1
        lower = end
        while lower < size and run[lower].islower():
            lower += 1
        capitals = end - index - (1 if lower > end else 0)
        if capitals >= 5:
            found.append(run[index : index + capitals])
        head = index + capitals
        if lower - end >= 4:
            found.append(run[head:lower])
        index = max(lower, index + 1)
    return found


def _wordy(run: str) -> bool:
    """A letter run that is a quarter vowels reads as a word (``Sequence``); ``Xxgzt`` does not."""
    return sum(c in "aeiouAEIOU" for c in run) * 4 >= len(run)


def random_token(secret: str, key: str = "") -> bool:
    """Upper, lower and digits, high entropy, few dictionary-like runs: a random token.

    Model names (``Wav2Vec2ForCTC``, ``models--meta-llama--Llama-2-7b-hf``), commit
    hashes (hex, no upper case) and UUIDs fail it; base62/base64url keys pass.
    """
    if len(secret) < 20 or not any(c.isdigit() for c in secret):
        return False
    if not any(c.isupper() for c in secret) or not any(c.islower() for c in secret):
        return False
    if (secret.count("-") + secret.count("_")) * 8 > len(secret):  # Qwen2-7B-Instruct-v0
        return False
    wordy = sum(len(word) for word in _words(secret) if _wordy(word))
    return wordy * 2 < len(secret) and entropy(secret) >= 0.8 * math.log2(min(len(secret), 64))


def url_tokens(secret: str) -> list[tuple[int, int]]:
    """Spans of random-looking tokens in a URL's path and query (the entropy rule)."""
    return [(a, b) for a, b in _runs(secret) if random_token(secret[a:b])]
