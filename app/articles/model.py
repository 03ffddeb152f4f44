"""The on-disk article: what a KB author writes in ``kb/articles/<id>.yaml``.

This pydantic model *is* the schema: ``errkb schema`` exports it as JSON Schema
(``kb/schema.json``) so editors can complete and check articles. It forbids
unknown keys so that a typo (``contxt:``) is an error, not a silently ignored
signature. The matcher never runs this model directly: ``matching`` compiles
it into its own runtime index (STYLE.md rule 8).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

ARTICLE_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
EXAMPLE_FILE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*\.log$"

NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._+-]*$", max_length=64)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Localized(_Strict):
    """A text in both languages the service speaks; neither may be empty."""

    en: NonEmpty = Field(description="English text (Markdown where the field allows it).")
    zh: NonEmpty = Field(description="Chinese text (Markdown where the field allows it).")

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


class TracebackSignature(_Strict):
    """The fuzzy signature: compared with an event after both are normalised."""

    exception: NonEmpty = Field(
        description="Exception type as printed, e.g. RuntimeError or torch.OutOfMemoryError."
    )
    message: NonEmpty = Field(description="A representative message, as the error prints it.")
    frames: list[NonEmpty] = Field(
        default_factory=list,
        description="Key frames as 'path/suffix.py:function', innermost last.",
    )


class Signatures(_Strict):
    """Regex signatures (RE2 syntax) plus the fuzzy traceback signature."""

    error: list[NonEmpty] = Field(
        min_length=1,
        description="Regexes; one must match the event's error line(s) for the article to match.",
    )
    context: list[NonEmpty] = Field(
        default_factory=list,
        description="Regexes that raise the score when found near the event (frames, lines).",
    )
    exclude: list[NonEmpty] = Field(
        default_factory=list,
        description="Regexes that veto the match when found in the event or nearby lines.",
    )
    report: list[NonEmpty] = Field(
        default_factory=list,
        description=(
            "Regexes for a line that reports this failure without saying why (torchrun's "
            "'failed (exitcode: 1)', a watchdog's teardown line): read only when the paste "
            "holds no exception line and nothing else matched, at low confidence."
        ),
    )
    alone: list[NonEmpty] = Field(
        default_factory=list,
        description=(
            "Regexes for a line that names this failure only when it is pasted alone, without "
            "the traceback or the context the error patterns need (a bare KeyError of a name "
            "the library looks up, a warning that precedes the failure): read last, when "
            "nothing matched and a short paste holds no traceback frames, at low confidence."
        ),
    )
    traceback: TracebackSignature | None = Field(
        default=None, description="Fuzzy traceback signature."
    )
    context_required: bool = Field(
        default=False,
        description=(
            "Match only when a context signature hits too: for a message that other "
            "causes print as well (a bare 'chunk expects at least a 1-dimensional tensor')."
        ),
    )

    def all_patterns(self) -> list[tuple[str, int, str]]:
        """(kind, position in its list, pattern) for every regex of the article."""
        return [
            (kind, i, pattern)
            for kind in ("error", "context", "exclude", "report", "alone")
            for i, pattern in enumerate(getattr(self, kind))
        ]


def _check_requirement(value: str) -> str:
    try:
        Requirement(value)
    except InvalidRequirement as exc:
        raise ValueError(f"not a PEP 508 requirement: {exc}") from exc
    return value


def _check_specifier(value: str) -> str:
    try:
        SpecifierSet(value)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a PEP 440 specifier set: {value!r}") from exc
    return value


PackageRequirement = Annotated[str, AfterValidator(_check_requirement)]
VersionSpecifier = Annotated[str, AfterValidator(_check_specifier)]


class Requirements(_Strict):
    """What a worker must offer to run the reproduction."""

    gpus: int = Field(default=0, ge=0, le=64, description="GPUs on one host.")
    processes: int = Field(default=1, ge=1, le=64, description="Processes (ranks) on one host.")
    packages: list[PackageRequirement] = Field(
        default_factory=list,
        description="PEP 508 requirements of the environment under test, e.g. 'torch>=2.4'.",
    )


class FixedRequirements(_Strict):
    """fixed.py's own environment, for a fix that is another install of a package."""

    packages: list[PackageRequirement] = Field(
        description=(
            "PEP 508 requirements of fixed.py's environment (e.g. 'numpy<2', "
            "'deepspeed>=0.14.4'); GPUs and processes are those of requires."
        ),
    )


class Repro(_Strict):
    """How the verifier runs ``kb/repros/<id>/repro.py`` and ``fixed.py``."""

    requires: Requirements = Field(default_factory=Requirements)
    fixed_requires: FixedRequirements | None = Field(
        default=None,
        description=(
            "Present when the fix is another install (numpy<2, a newer DeepSpeed): fixed.py runs "
            "in an environment of these packages, repro.py in that of requires.packages. "
            "Absent: both scripts run in one environment. CPU repros only."
        ),
    )
    launcher: Literal["python", "torchrun"] = Field(
        default="python", description="python: one process; torchrun: 'processes' ranks."
    )
    timeout_s: int = Field(default=300, ge=1, le=3600, description="Wall-clock limit per script.")


class Example(_Strict):
    """A captured log in ``kb/examples/<id>/`` that the article must (not) match."""

    file: Annotated[str, StringConstraints(pattern=EXAMPLE_FILE_PATTERN)] = Field(
        description="File name inside kb/examples/<article-id>/."
    )
    expect: Literal["match", "no-match"] = Field(
        description="match: this article must rank first; no-match: it must not match at all."
    )
    note: str | None = Field(default=None, description="Where the log comes from.")


Layer = Literal["hardware", "cluster", "environment", "framework", "user-code"]
Status = Literal["draft", "active", "retired"]
SERVED_STATUS: Status = "active"


class Article(_Strict):
    """One failure, its cause and its fix, and the signatures that recognise it."""

    id: Annotated[str, StringConstraints(pattern=ARTICLE_ID_PATTERN, max_length=80)] = Field(
        description="Lowercase, dash-separated; equal to the file name without .yaml."
    )
    status: Status = Field(
        default="active",
        description=(
            "draft: being written, not served (errkb dryrun --include-drafts previews it); "
            "active: served; retired: kept for history, never matched."
        ),
    )
    title: Localized
    summary: Localized = Field(description="One sentence.")
    libraries: list[Slug] = Field(
        min_length=1, description="Where the failure lives: torch, transformers, deepspeed, ..."
    )
    tags: list[Slug] = Field(default_factory=list)
    layer: Layer = Field(
        description=(
            "Where the fault lives, so results can say who fixes it: hardware (GPU, "
            "driver, ECC, Xid), cluster (network, NCCL transport, shared memory, ports), "
            "environment (installed packages, builds, CUDA toolkit), framework (a bug or "
            "limit of a library), user-code (the training script or its configuration)."
        )
    )
    affects: dict[Slug, VersionSpecifier] = Field(
        default_factory=dict,
        description="Package -> PEP 440 specifier set of the versions that show the failure.",
    )
    signatures: Signatures
    cause: Localized = Field(description="Markdown: why it happens.")
    fix: Localized = Field(description="Markdown: what to do, with code blocks.")
    references: list[Annotated[str, StringConstraints(pattern=r"^https?://\S+$")]] = Field(
        default_factory=list, description="Primary sources: docs, upstream issues and PRs."
    )
    repro: Repro | None = Field(
        default=None, description="Present when kb/repros/<id>/ holds repro.py and fixed.py."
    )
    examples: list[Example] = Field(
        default_factory=list, description="Self-tests run by errkb lint."
    )


def article_json_schema() -> dict[str, object]:
    """The JSON Schema of an article file, as ``errkb schema`` prints it."""
    schema = Article.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "errkb-article.schema.json"
    return schema


def is_valid_article_id(value: str) -> bool:
    return re.fullmatch(ARTICLE_ID_PATTERN, value) is not None
