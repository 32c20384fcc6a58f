"""The deployment files: docker-compose.yml (read with PyYAML) and the Dockerfile it builds.

docker is not installed where the tests run, so the compose file is checked by parsing it:
its services and the order they start in, and every command the project image runs, read
by the project's own argument parser, so that a command the CLI does not have fails here.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILE = REPO / "docker-compose.yml"
README = REPO / "README.md"
QUEUES = {"cpu", "gpu", "light"}
# Compose's interpolation: `$$` is a literal `$`; otherwise `$VAR` or `${VAR[op word]}`.
_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|(?P<bare>[A-Za-z_]\w*)"
    r"|\{(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?[-?+])(?P<word>[^}]*))?\})"
)


def _load() -> dict[str, Any]:
    with COMPOSE_FILE.open(encoding="utf-8") as f:
        document = yaml.safe_load(f)
    assert isinstance(document, dict), f"{COMPOSE_FILE.name} is not a mapping"
    return document


COMPOSE = _load()
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
# The services that run the project's image: those built from this checkout, and any other
# that names an image one of them builds.
_BUILT_IMAGES = {s["image"] for s in SERVICES.values() if "build" in s and "image" in s}
PROJECT_SERVICES = sorted(
    name for name, s in SERVICES.items() if "build" in s or s.get("image") in _BUILT_IMAGES
)
DAEMONS = ("api", "worker", "gpu-worker")  # the project's long-running services


def dockerfile_instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each instruction, continuation lines joined."""
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def dockerfile_args(path: Path) -> dict[str, str | None]:
    """The build arguments a Dockerfile declares, with their defaults."""
    args: dict[str, str | None] = {}
    for keyword, rest in dockerfile_instructions(path):
        if keyword == "ARG":
            name, sep, default = rest.partition("=")
            args[name] = default if sep else None
    return args


def command_words(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    return shlex.split(command) if isinstance(command, str) else [str(w) for w in command or []]


def parse_command(name: str) -> Any:
    """The service's command as `proofbridge` (the image's entrypoint) reads it."""
    words = command_words(SERVICES[name])
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            return build_parser().parse_args(words)
    except SystemExit:
        pass  # argparse has printed why; fail outside the handler, with that message only
    pytest.fail(
        f"service {name}: `proofbridge {shlex.join(words)}` is refused by the project's "
        f"command line: {stderr.getvalue().strip()}",
        pytrace=False,
    )


def option(words: list[str], flag: str) -> str | None:
    """The value given to `flag` (`--flag V` or `--flag=V`), or None."""
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(flag + "="):
            return word.partition("=")[2]
    return None


def depends_on(service: dict[str, Any]) -> dict[str, str]:
    """{service: condition}; the short (list) form means `service_started`."""
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return dict.fromkeys(deps, "service_started")
    return {name: (spec or {}).get("condition", "service_started") for name, spec in deps.items()}


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.partition("=")[::2] for item in env)
    return {key: str(value) for key, value in env.items()}


def with_defaults(value: str) -> str:
    """`value` as compose reads it with no variable set: each `${VAR:-word}` is `word`."""

    def default(m: re.Match[str]) -> str:
        if m["escaped"]:
            return "$"
        return m["word"] if m["op"] in ("-", ":-") else ""

    return _VARIABLE.sub(default, value)


def strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from strings(key)
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def test_compose_defines_the_services() -> None:
    expected = {"postgres", "redis", "migrate", "api", "worker", "gpu-worker"}
    assert expected <= set(SERVICES), f"missing: {sorted(expected - set(SERVICES))}"
    assert {"migrate", *DAEMONS} <= set(PROJECT_SERVICES)
    assert {"postgres", "redis"}.isdisjoint(PROJECT_SERVICES)


@pytest.mark.parametrize("name", PROJECT_SERVICES)
def test_parse_service_command_with_project_cli(name: str) -> None:
    service = SERVICES[name]
    assert "entrypoint" not in service, f"{name} must run the image's entrypoint, proofbridge"
    assert command_words(service), f"{name} has no command"
    parse_command(name)
    queues = option(command_words(service), "--queues")
    if queues is not None:
        assert set(queues.split(",")) <= QUEUES, f"{name}: unknown queue in {queues!r}"


def test_dockerfile_runs_proofbridge_as_non_root_user() -> None:
    instructions = dockerfile_instructions(REPO / "Dockerfile")
    values = dict(instructions)  # the last of each
    assert values["FROM"] == "python:3.11-slim"
    assert json.loads(values["ENTRYPOINT"]) == ["proofbridge"]
    assert values["USER"] not in ("root", "0")
    assert dockerfile_args(REPO / "Dockerfile")["JAX_BUILD"] == "cpu"


def test_build_refers_to_existing_dockerfile() -> None:
    built = [name for name, s in SERVICES.items() if "build" in s]
    assert built
    for name in built:
        build = SERVICES[name]["build"]
        if isinstance(build, str):
            build = {"context": build}
        context = REPO / build.get("context", ".")
        dockerfile = context / build.get("dockerfile", "Dockerfile")
        assert dockerfile.is_file(), f"{name}: no Dockerfile at {dockerfile}"
        unknown = set(build.get("args") or {}) - set(dockerfile_args(dockerfile))
        assert not unknown, f"{name}: {dockerfile.name} declares no ARG {sorted(unknown)}"


def test_gpu_worker_builds_the_cuda_image() -> None:
    build = SERVICES["gpu-worker"]["build"]
    assert build["args"]["JAX_BUILD"] == "gpu"
    others = {s.get("image") for name, s in SERVICES.items() if name != "gpu-worker"}
    assert SERVICES["gpu-worker"]["image"] not in others, "the CUDA image would replace another"
    with (REPO / "pyproject.toml").open("rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    assert any(dep.startswith("jax[cuda12]") for dep in extras["gpu"])


def test_postgres_and_redis_have_healthchecks() -> None:
    for name in ("postgres", "redis"):
        test = SERVICES[name].get("healthcheck", {}).get("test")
        assert test and test != ["NONE"], f"{name} has no healthcheck"


def test_migrate_runs_db_upgrade_once_postgres_is_healthy() -> None:
    args = parse_command("migrate")
    assert (args.command, args.db_command) == ("db", "upgrade")
    assert SERVICES["migrate"]["restart"] == "no"
    assert depends_on(SERVICES["migrate"]) == {"postgres": "service_healthy"}


@pytest.mark.parametrize("name", DAEMONS)
def test_start_service_after_migrate_completed_and_redis_healthy(name: str) -> None:
    deps = depends_on(SERVICES[name])
    assert deps.get("migrate") == "service_completed_successfully", deps
    assert deps.get("redis") == "service_healthy", deps


def test_api_serves_on_port_8000_of_every_interface() -> None:
    args = parse_command("api")
    assert (args.command, args.host, args.port) == ("serve", "0.0.0.0", 8000)
    assert [str(p) for p in SERVICES["api"]["ports"]] == ["8000:8000"]


def test_worker_scales_without_fixed_name_or_ports() -> None:
    worker = SERVICES["worker"]
    assert {"container_name", "hostname", "ports"}.isdisjoint(worker)
    words = command_words(worker)
    assert words[0] == "worker"
    assert option(words, "--queues") == "cpu,light"


def test_gpu_worker_reserves_nvidia_gpu_behind_gpu_profile() -> None:
    gpu = SERVICES["gpu-worker"]
    assert gpu.get("profiles") == ["gpu"]
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert any(d["driver"] == "nvidia" and "gpu" in d["capabilities"] for d in devices), devices
    assert environment(gpu)["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    words = command_words(gpu)
    assert words[0] == "worker"
    assert (option(words, "--queues"), option(words, "--concurrency")) == ("gpu,light", "1")
    # A plain `docker compose up` starts everything else, and asks for no device.
    for name, service in SERVICES.items():
        if name != "gpu-worker":
            assert "profiles" not in service, name
            assert "devices" not in service.get("deploy", {}).get("resources", {}).get(
                "reservations", {}
            ), name


def test_project_services_share_one_environment() -> None:
    anchors = [v for k, v in COMPOSE.items() if k.startswith("x-") and isinstance(v, dict)]
    shared = next((a for a in anchors if "PROOFBRIDGE_DATABASE_URL" in a), None)
    assert shared is not None, "no x- block holds the shared PROOFBRIDGE_* environment"
    for name in PROJECT_SERVICES:
        env = environment(SERVICES[name])
        assert {k: str(v) for k, v in shared.items()}.items() <= env.items(), name
    assert with_defaults(shared["PROOFBRIDGE_DATABASE_URL"]).startswith(
        "postgresql+psycopg://proofbridge:proofbridge@postgres:5432/"
    )
    assert shared["PROOFBRIDGE_BROKER_URL"] == "redis://redis:6379/0"
    assert with_defaults(shared["PROOFBRIDGE_CHECK_QUEUE"]) in ("cpu", "gpu")
    assert shared["PROOFBRIDGE_API_TOKEN"].startswith("${PROOFBRIDGE_API_TOKEN:?")


def test_workers_share_the_jax_cache_volume() -> None:
    mounted = set()
    for name in ("worker", "gpu-worker"):
        cache_dir = environment(SERVICES[name])["PROOFBRIDGE_JAX_CACHE_DIR"]
        volumes = [v.split(":")[:2] for v in SERVICES[name].get("volumes", [])]
        sources = [source for source, target in volumes if target == cache_dir]
        assert sources, f"{name}: nothing is mounted at {cache_dir}"
        assert sources[0] in (COMPOSE.get("volumes") or {}), f"{sources[0]} is not a named volume"
        mounted.add(sources[0])
    assert len(mounted) == 1, f"the workers mount different caches: {sorted(mounted)}"


def test_interpolated_variables_have_default_or_are_documented() -> None:
    readme = README.read_text(encoding="utf-8")
    undocumented = set()
    for value in strings(COMPOSE):
        for m in _VARIABLE.finditer(value):
            variable = m["bare"] or m["name"]
            if variable and m["op"] not in ("-", ":-") and f"`{variable}`" not in readme:
                undocumented.add(variable)
    assert not undocumented, f"no default and not in README.md: {sorted(undocumented)}"


def test_dockerignore_excludes_local_state_and_secrets() -> None:
    ignored = set((REPO / ".dockerignore").read_text(encoding="utf-8").split())
    assert {".git", ".venv", "var", ".env"} <= ignored


def _requirement_closure(requirements: list[str]) -> set[str]:
    """The distributions an install of `requirements` brings, read from the installed
    metadata (each requirement's extras followed, environment markers evaluated)."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: dict[str, set[str]] = {}
    todo = [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        extras = set(req.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen.setdefault(name, set()).update(extras)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for text in requires:
            sub = Requirement(text)
            if sub.marker is None or any(
                sub.marker.evaluate({"extra": e}) for e in {"", *seen[name]}
            ):
                todo.append(Requirement(str(sub).split(";")[0]))
    return set(seen)


def test_runtime_dependencies_bring_what_the_redis_transport_imports() -> None:
    # what `pip install -e .` and the Dockerfile install: the dependencies, no dev extra
    with (REPO / "pyproject.toml").open("rb") as f:
        runtime = tomllib.load(f)["project"]["dependencies"]
    assert 'project["dependencies"]' in (REPO / "Dockerfile").read_text()
    from importlib.metadata import distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def needed_for_redis(text: str) -> bool:
        marker = Requirement(text).marker
        return marker is not None and marker.evaluate({"extra": "redis"})

    kombu_redis = {
        canonicalize_name(Requirement(r).name)
        for r in distribution("kombu").requires or []
        if needed_for_redis(r)
    }
    assert kombu_redis, "kombu declares no `redis` extra: read its transport's imports again"
    missing = kombu_redis - _requirement_closure(runtime)
    assert not missing, f"the runtime dependencies lack {sorted(missing)} (kombu's redis extra)"
