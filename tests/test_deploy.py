"""The Docker image and the compose file, checked without a Docker engine.

hadolint lints the Dockerfile (a dev dependency, so ``make test`` installs
it: nothing is skipped). docker-compose.yml is checked against the
compose-spec rules that need no engine: known top-level keys, every service
has an image or a build, healthchecks are well formed, every named volume
is declared, environment names are valid, ``depends_on`` names services, and
the errkb service runs exactly the command the end-to-end tests run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.conftest import SERVE

REPO = Path(__file__).resolve().parents[1]
HADOLINT = Path(sys.executable).parent / "hadolint"
TOP_LEVEL = {"version", "name", "services", "networks", "volumes", "configs", "secrets", "include"}
SERVICE_KEYS = {
    "build", "image", "command", "entrypoint", "environment", "env_file", "ports", "volumes",
    "depends_on", "healthcheck", "restart", "networks", "user", "working_dir", "expose",
    "deploy", "labels", "logging", "secrets", "configs", "stop_grace_period", "profiles",
    "shm_size",
}  # fmt: skip
HEALTHCHECK_KEYS = {
    "test",
    "interval",
    "timeout",
    "retries",
    "start_period",
    "start_interval",
    "disable",
}
DURATION = re.compile(r"^(\d+(us|ms|s|m|h))+$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def compose() -> dict[str, Any]:
    document = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    assert isinstance(document, dict)
    return document


def test_h11_dockerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [str(HADOLINT), "--no-color", "Dockerfile"], cwd=REPO, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_h11_dockerfile_runs_errkb_serve_as_a_non_root_user_with_a_healthcheck() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert text.startswith("#")
    assert "FROM python:3.11-slim" in text
    assert "uv sync --locked --no-dev" in text
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user
    assert user[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n.*/healthz", text, re.M)
    assert f"CMD {str(SERVE).replace(chr(39), chr(34))}" in text
    assert "ERRKB_HOST=0.0.0.0" in text


def test_h11_compose_file_follows_the_spec_rules_we_can_check() -> None:
    spec = compose()
    assert set(spec) <= TOP_LEVEL
    services = spec["services"]
    declared_volumes = set(spec.get("volumes") or {})
    for name, service in services.items():
        assert set(service) <= SERVICE_KEYS, name
        assert "image" in service or "build" in service, name
        health = service.get("healthcheck")
        assert health, f"{name} has no healthcheck"
        assert set(health) <= HEALTHCHECK_KEYS
        assert health.get("disable") is True or health["test"][0] in ("CMD", "CMD-SHELL", "NONE")
        for key in ("interval", "timeout", "start_period"):
            assert key not in health or DURATION.match(health[key]), (name, key)
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0]
            if not source.startswith((".", "/", "~")):
                assert source in declared_volumes, f"{name}: volume {source} is not declared"
        environment = service.get("environment", {})
        assert isinstance(environment, dict)
        assert all(ENV_NAME.match(key) for key in environment), name
        assert all(isinstance(v, str) for v in environment.values()), name
        for needed in service.get("depends_on", {}):
            assert needed in services


def test_errkb_runs_beside_postgres_15_with_a_volume() -> None:
    services = compose()["services"]
    db, errkb = services["db"], services["errkb"]
    assert db["image"] == "postgres:15"
    assert any(mount.endswith(":/var/lib/postgresql/data") for mount in db["volumes"])
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    url = errkb["environment"]["ERRKB_DATABASE_URL"]
    user = db["environment"]["POSTGRES_USER"]
    assert url.startswith(f"postgresql+psycopg://{user}:")
    assert url.endswith(f"@db:5432/{db['environment']['POSTGRES_DB']}")
    assert errkb["depends_on"]["db"]["condition"] == "service_healthy"
    assert errkb["environment"]["ERRKB_HOST"] == "0.0.0.0"


def test_compose_runs_the_command_the_end_to_end_tests_run() -> None:
    assert compose()["services"]["errkb"]["command"] == SERVE


def test_verifier_workers_join_in_their_own_profile_with_the_gpu_reservation() -> None:
    """Issue 6: a Ray head and GPU worker nodes, not started by a plain `up`."""
    services = compose()["services"]
    head, worker, job = services["ray-head"], services["ray-gpu-worker"], services["verify"]
    assert head["profiles"] == worker["profiles"] == ["verifier"]
    assert job["profiles"] == ["verify"]
    assert "profiles" not in services["errkb"]
    assert "profiles" not in services["db"]
    assert "--num-gpus=0" in head["command"]
    assert "--address=ray-head:6379" in worker["command"]
    (device,) = worker["deploy"]["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia"
    assert device["capabilities"] == ["gpu"]
    command = job["command"]
    assert command[:4] == ["errkb", "verify", "--executor", "ray"]
    assert "--post" in command
    assert "ERRKB_VERIFY_TOKEN" in job["environment"]
    assert all("TOKEN" not in part for part in command)  # secrets stay out of `ps`


def test_the_nightly_schedules_run_the_compose_verify_job() -> None:
    crontab = (REPO / "deploy" / "verify" / "crontab.example").read_text()
    assert "docker compose --profile verifier --profile verify run --rm verify" in crontab
    cronjob = yaml.safe_load((REPO / "deploy" / "verify" / "cronjob.yaml").read_text())
    assert cronjob["kind"] == "CronJob"
    assert cronjob["spec"]["schedule"]


COMPOSE_COMMAND = re.compile(r"docker compose((?: --profile [\w.-]+)*) (up|run)\b([^`>\n]*)")
DOCUMENTS = (
    "docker-compose.yml",
    "README.md",
    "docs/verification.md",
    "deploy/verify/README.md",
    "deploy/verify/crontab.example",
)


def _targets(services: dict[str, Any], verb: str, rest: str, enabled: set[str]) -> list[str]:
    """The services a command names: `run [--rm] NAME`, or `up` of every enabled service."""
    words = [w for w in rest.split() if not w.startswith("-") and not w.isdigit()]
    if verb == "run":
        return words[:1]
    named = [w for w in words if w in services]
    active = [n for n, s in services.items() if _active(s, enabled)]
    return named or active


def _active(service: dict[str, Any], enabled: set[str]) -> bool:
    profiles = set(service.get("profiles", ()))
    return not profiles or bool(profiles & enabled)


def _dependencies(services: dict[str, Any], name: str) -> set[str]:
    found: set[str] = set()
    waiting = [name]
    while waiting:
        for needed in services[waiting.pop()].get("depends_on", {}):
            if needed not in found:
                found.add(needed)
                waiting.append(needed)
    return found


def test_every_documented_compose_command_enables_the_profiles_its_services_need() -> None:
    """Compose enables a targeted service's own profile, never its dependencies' (compose-spec,
    profiles): `--profile verify run verify` alone would miss ray-head, in profile verifier."""
    services = compose()["services"]
    seen = 0
    for document in DOCUMENTS:
        text = (REPO / document).read_text(encoding="utf-8")
        for flags, verb, rest in COMPOSE_COMMAND.findall(text):
            enabled = set(flags.split()[1::2])
            for target in _targets(services, verb, rest, enabled):
                assert target in services, (document, target)
                seen += 1
                for needed in _dependencies(services, target):
                    assert _active(services[needed], enabled), (document, target, needed)
    assert seen >= 4  # up, --profile verifier up, and the nightly run in two places


def test_the_gpu_worker_reserves_nvidia_gpus_and_only_the_head_builds_the_image() -> None:
    """A GPU node takes its host's GPUs (count: all) through the NVIDIA device reservation;
    the other verifier services reuse the image the head builds (no second build)."""
    services = compose()["services"]
    worker = services["ray-gpu-worker"]
    reservation = worker["deploy"]["resources"]["reservations"]
    nvidia = {"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}
    assert reservation == {"devices": [nvidia]}
    assert "build" in services["ray-head"]
    image = services["ray-head"]["image"]
    assert worker["image"] == services["verify"]["image"] == image
    assert "devices" not in str(services["ray-head"].get("deploy", {}))  # the head takes no GPU
    for needed in ("ray-head", "errkb"):  # the cluster it drives, the service it posts to
        assert services["verify"]["depends_on"][needed]["condition"] == "service_healthy"
