"""Real Chromium for the browser tests: Debian's package, driven by Playwright, kept offline.

Playwright's own browser download is never used (it needs the network):
``chromium`` (and ``fonts-noto-cjk`` for the Chinese pages) comes from apt,
installed here when missing if we are root (CI runs as root), else the tests
are skipped with the reason. Each test gets a fresh profile; every request
the page makes is intercepted and any that is not for 127.0.0.1 is aborted
and recorded, so a test fails if the UI reaches for a CDN, a font service or
anything else outside the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Dialog, Page, Route, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
LOCAL_HOSTS = ("127.0.0.1",)


def _has_chinese_font() -> bool:
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, timeout=60, check=False)
    return bool(listed.stdout.strip())


def ensure_chromium() -> Path:
    """Debian's Chromium and a Chinese font (else the zh screenshots show boxes), installed
    with apt when missing and we are root; else skip."""
    packages = [] if CHROMIUM.exists() else ["chromium"]
    packages += [] if _has_chinese_font() else ["fonts-noto-cjk"]
    if not packages:
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"browser tests need {' and '.join(packages)}: apt-get install them as root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", *packages]):
        done = subprocess.run(command, env=env, capture_output=True, timeout=600, check=False)
        if done.returncode != 0:
            pytest.fail(f"{' '.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
    return CHROMIUM


@dataclass
class Watch:
    """What a page did that a test must see: console errors, page errors, foreign requests."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.foreign == [], f"requests left 127.0.0.1: {self.foreign}"
        assert self.console_errors == [], f"console errors: {self.console_errors}"
        assert self.page_errors == [], f"page errors: {self.page_errors}"
        assert self.dialogs == [], f"dialogs opened: {self.dialogs}"


@contextmanager
def browser_context(
    profile: Path, *, width: int = 1280, height: int = 900, script: bool = True
) -> Iterator[tuple[BrowserContext, Watch]]:
    """A persistent-profile context in a fresh folder, with a ``Watch`` on it."""
    executable = ensure_chromium()
    watch = Watch()
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(executable),
            args=ARGS,
            headless=True,
            viewport={"width": width, "height": height},
            java_script_enabled=script,
        )
        try:
            context.route("**/*", lambda route: _only_local(route, watch))
            yield context, watch
        finally:
            context.close()


def _only_local(route: Route, watch: Watch) -> None:
    url = route.request.url
    if urlsplit(url).hostname in LOCAL_HOSTS:
        route.continue_()
    else:
        watch.foreign.append(url)
        route.abort()


def watch_page(page: Page, watch: Watch) -> None:
    """Record console errors, uncaught errors and dialogs (an ``alert`` from an XSS)."""
    page.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: watch.page_errors.append(str(error)))

    def dialog(d: Dialog) -> None:
        watch.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
