"""Build the per-set environments under test with uv, once each, safely from many processes.

``EnvStore(root, install)`` keeps one environment per ``EnvSpec`` in
``root/<key>/`` (``.venv-repro/`` by default, gitignored). ``ensure(spec)``
takes the key's lock (``flock``: a second process, or a thread, waits and
then reuses what the first built), reuses a finished environment (its stamp
equals the spec's), and otherwise builds it from scratch and checks that
torch is still the pinned CPU build before it writes the stamp. A half-built
environment (a crash, a kill) has no stamp and is rebuilt; a changed set has
another key and gets another folder. ``prune`` removes the folders no set
wants any more.

``UvInstall`` is the real installer: ``uv venv`` plus ``uv pip install -r
requirements -c constraints`` with ``torch==TORCH`` in both, the package
sources pip is configured with, and uv's cache in ``root/.uv-cache`` (the
same file system as the environments, so uv hard-links instead of copying a
gigabyte of torch into every environment).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.errors import ConfigError, ErrkbError
from app.verify.envset import EnvPlan, EnvSpec, plan_envs, uv_sources
from app.verify.model import Interpreters
from app.verify.plan import Plan

STAMP = "errkb-env.json"
CACHE = ".uv-cache"
KEY = re.compile(r"^[0-9a-f]{16}$")
BUILD_TIMEOUT_S = 1200.0
TORCH_OF_TIMEOUT_S = 60.0

Install = Callable[[EnvSpec, Path], None]
TorchOf = Callable[[Path], str | None]


class EnvBuildFailed(ErrkbError):
    """An environment could not be built; the message says which set and why."""


def installed_torch(python: Path) -> str | None:
    """The torch version installed for ``python`` (metadata only: importing torch takes seconds)."""
    code = "import importlib.metadata as m\ntry: print(m.version('torch'))\nexcept Exception: pass"
    try:
        done = subprocess.run(  # noqa: S603
            [str(python), "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=TORCH_OF_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


@contextlib.contextmanager
def locked(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path``; yield False if it is taken and ``wait`` is off."""
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class EnvStore:
    """The environments under ``root``, one folder per key."""

    def __init__(self, root: Path, install: Install, torch_of: TorchOf = installed_torch) -> None:
        self.root = root.absolute()  # uv runs elsewhere; the venv's paths must not depend on cwd
        self._install = install
        self._torch_of = torch_of

    def python(self, spec: EnvSpec) -> Path:
        return self.root / spec.key / "bin" / "python"

    def ready(self, spec: EnvSpec) -> bool:
        """Built for exactly this spec: the stamp matches and the interpreter is there."""
        stamp = self.root / spec.key / STAMP
        try:
            return stamp.read_text(encoding="utf-8") == spec.stamp() and self.python(spec).exists()
        except OSError:
            return False

    def ensure(self, spec: EnvSpec) -> tuple[Path, bool]:
        """The environment's interpreter, and whether this call built it (False: reused)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with locked(self.root / f".{spec.key}.lock"):
            if self.ready(spec):
                return self.python(spec), False
            folder = self.root / spec.key
            shutil.rmtree(folder, ignore_errors=True)
            try:
                self._build(spec, folder)
            except OSError as exc:
                shutil.rmtree(folder, ignore_errors=True)
                raise EnvBuildFailed(f"environment for {spec.describe()}: {exc}") from exc
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            return self.python(spec), True

    def _build(self, spec: EnvSpec, folder: Path) -> None:
        self._install(spec, folder)
        torch = self._torch_of(self.python(spec))
        if torch != spec.torch:
            raise EnvBuildFailed(
                f"environment for {spec.describe()}: torch is {torch or 'missing'} after the "
                f"install, not {spec.torch}; a repro environment may not upgrade or replace torch"
            )
        partial = folder / f".{STAMP}.tmp"
        partial.write_text(spec.stamp(), encoding="utf-8")
        partial.replace(folder / STAMP)  # the stamp appears whole, last

    def prune(self, keep: Iterable[str]) -> list[str]:
        """Remove the environments whose key is not in ``keep`` (skipping any being built)."""
        wanted = set(keep)
        removed: list[str] = []
        if not self.root.is_dir():
            return removed
        for folder in sorted(self.root.iterdir()):
            if not KEY.match(folder.name) or folder.name in wanted:
                continue
            with locked(self.root / f".{folder.name}.lock", wait=False) as mine:
                if mine:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder.name)
        return removed


@dataclass(frozen=True)
class BuildReport:
    """What ``build_all`` did: interpreters by key, keys built (not reused), failures by key."""

    pythons: Mapping[str, Path]
    built: tuple[str, ...]
    failed: Mapping[str, str]


def build_all(
    store: EnvStore,
    specs: Mapping[str, EnvSpec],
    on_event: Callable[[str], None] | None = None,
) -> BuildReport:
    """Ensure every spec, one after another (uv parallelises each); a failure costs only its set."""
    pythons: dict[str, Path] = {}
    built: list[str] = []
    failed: dict[str, str] = {}
    for key, spec in sorted(specs.items()):
        try:
            python, fresh = store.ensure(spec)
        except ErrkbError as exc:
            failed[key] = str(exc)
            _tell(on_event, f"environment {key}: FAILED ({spec.describe()})")
            continue
        pythons[key] = python
        if fresh:
            built.append(key)
        _tell(on_event, f"environment {key}: {'built' if fresh else 'reused'} ({spec.describe()})")
    return BuildReport(pythons, tuple(built), failed)


def interpreters_for(
    plan: Plan, store: EnvStore, on_event: Callable[[str], None] | None = None
) -> Interpreters:
    """Build (or reuse) the environment of every planned run's package sets; map runs to them.

    An article with ``repro.fixed_requires`` gets two: repro.py's and fixed.py's.
    A set that fails to build costs the articles that use it, in either role.
    """
    envs = plan_for_runs(plan)
    report = build_all(store, envs.specs, on_event)
    broken = dict(envs.conflicts)
    for roles in (envs.by_article, envs.fixed_by_article):
        for article_id, key in roles.items():
            if key in report.failed:
                broken.setdefault(article_id, report.failed[key])
    return Interpreters(
        by_article=_built(envs.by_article, report, broken),
        broken=broken,
        fixed_by_article=_built(envs.fixed_by_article, report, broken),
    )


def plan_for_runs(plan: Plan) -> EnvPlan:
    """The environments of the planned runs: requires.packages, and fixed_requires where given."""
    runs = [(run.article_id, run.repro) for run in plan.runs]
    return plan_envs(
        {article_id: repro.requires.packages for article_id, repro in runs},
        fixed={
            article_id: repro.fixed_requires.packages
            for article_id, repro in runs
            if repro.fixed_requires is not None
        },
    )


def _built(
    roles: Mapping[str, str], report: BuildReport, broken: Mapping[str, str]
) -> dict[str, str]:
    return {
        article_id: str(report.pythons[key])
        for article_id, key in roles.items()
        if key in report.pythons and article_id not in broken
    }


def open_store(root: Path, uv: Path | None = None, cwd: Path | None = None) -> EnvStore:
    """The store under ``root`` with uv as installer, its cache in ``root``, pip's sources."""
    install = UvInstall(find_uv(uv, cwd), root.absolute() / CACHE)
    return EnvStore(root, install)


def _tell(on_event: Callable[[str], None] | None, message: str) -> None:
    if on_event is not None:
        on_event(message)


@dataclass(frozen=True)
class UvInstall:
    """Create ``folder`` with ``uv venv`` and install the spec into it with ``uv pip install``."""

    uv: str
    cache: Path
    base_python: str = sys.executable
    sources: tuple[str, ...] | None = None  # None: pip's, asked when something is built
    timeout_s: float = BUILD_TIMEOUT_S

    def __call__(self, spec: EnvSpec, folder: Path) -> None:
        self.cache.mkdir(parents=True, exist_ok=True)
        venv = ("venv", "--quiet", "--python", self.base_python, str(folder))
        self._uv(*venv, spec=spec, cwd=folder.parent)
        requirements, constraints = folder / "errkb-requirements.txt", folder / "errkb-torch.txt"
        requirements.write_text(spec.requirements_txt(), encoding="utf-8")
        constraints.write_text(spec.constraints_txt(), encoding="utf-8")
        self._uv(
            "pip", "install", "--quiet", "--python", str(folder / "bin" / "python"),
            "-r", str(requirements), "-c", str(constraints),
            "--index-strategy", "unsafe-best-match",
            *(pip_sources() if self.sources is None else self.sources),
            spec=spec, cwd=folder.parent,
        )  # fmt: skip

    def _uv(self, *args: str, spec: EnvSpec, cwd: Path) -> None:
        """Run uv from the store's folder (uv refuses to run from inside its cache)."""
        env = {**os.environ, "UV_CACHE_DIR": str(self.cache), "UV_PYTHON_DOWNLOADS": "never"}
        env.pop("VIRTUAL_ENV", None)
        try:
            done = subprocess.run(  # noqa: S603
                [self.uv, *args],
                cwd=cwd,  # uv reads uv.toml/pyproject.toml from here up; errkb's sets none
                env=env,
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise EnvBuildFailed(f"environment for {spec.describe()}: uv {args[0]}: {exc}") from exc
        if done.returncode != 0:
            raise EnvBuildFailed(_uv_failure(spec, done.stderr or done.stdout))


def _uv_failure(spec: EnvSpec, said: str) -> str:
    tail = said.strip()[-1500:]
    if "torch" in said and ("No solution found" in said or "unsatisfiable" in said):
        return (
            f"environment for {spec.describe()}: these packages cannot be installed next to "
            f"torch {spec.torch}: they need another torch (an upgrade, a downgrade or a CUDA "
            f"build), and every repro environment runs torch {spec.torch}. uv said:\n{tail}"
        )
    return f"environment for {spec.describe()}: uv pip install failed:\n{tail}"


def find_uv(explicit: Path | None = None, cwd: Path | None = None) -> str:
    """``explicit``, else the ``.tools/bin/uv`` that ``make install-dev`` installs, else PATH's."""
    candidates = [explicit] if explicit else [(cwd or Path.cwd()) / ".tools" / "bin" / "uv"]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.absolute())
    if explicit is None and (found := shutil.which("uv")):
        return found
    raise ConfigError(
        f"no uv at {explicit}" if explicit else "uv not found: run make install-dev or pass --uv"
    )


def pip_sources() -> tuple[str, ...]:
    """uv options for pip's configured sources (find-links, index URLs); none without pip."""
    for python in (sys.executable, str(Path(sys.base_prefix) / "bin" / "python3")):
        try:
            done = subprocess.run(  # noqa: S603
                [python, "-m", "pip", "config", "list"],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return tuple(uv_sources(done.stdout))
    return ()
