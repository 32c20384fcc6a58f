# The ProofBridge image: API, dashboard, migrations and the Celery worker.
# `proofbridge` is the entrypoint, so a container's command is its arguments:
#   docker run IMAGE db upgrade
#   docker run IMAGE worker --queues cpu,light
# JAX_BUILD picks the JAX build: `cpu` (default), or `gpu` for the CUDA 12 build
# (the `gpu` extra, jax[cuda12]; its wheels bring the CUDA libraries, the host brings the
# NVIDIA driver and container toolkit):
#   docker build -t proofbridge:cpu .
#   docker build -t proofbridge:gpu --build-arg JAX_BUILD=gpu .
FROM python:3.11-slim

ARG JAX_BUILD=cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/proofbridge

# The dependencies first, read from pyproject.toml, so that a change to the source does not
# download JAX (and, for the GPU build, the CUDA libraries) again.
COPY pyproject.toml ./
RUN case "$JAX_BUILD" in \
      cpu) groups="" ;; \
      gpu) groups="gpu" ;; \
      *) echo "JAX_BUILD must be cpu or gpu, not '$JAX_BUILD'" >&2; exit 1 ;; \
    esac \
    && python -c 'import sys, tomllib; \
project = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
extras = project["optional-dependencies"]; \
print("\n".join(project["dependencies"] + [d for e in sys.argv[1:] for d in extras[e]]))' \
       $groups > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY README.md alembic.ini ./
COPY app ./app
COPY theorem_index ./theorem_index
COPY checkers ./checkers
# the lean4-mlir pack (its vocabulary and registered checkers), installed as any pack is
COPY packs ./packs
COPY migrations ./migrations
COPY examples ./examples

# Editable: `proofbridge db upgrade` reads migrations/ beside the `app` package, which a
# plain `pip install .` would move into site-packages without it.
RUN pip install --no-deps -e . -e packs/lean4_mlir \
    && python -m compileall -q app theorem_index checkers migrations packs \
    && proofbridge --version \
    && useradd --create-home --uid 10001 proofbridge \
    && mkdir -p var/jax-cache \
    && chown -R proofbridge:proofbridge var

# var/ holds the embedded database and token when no PostgreSQL is configured, and the
# JAX compilation cache (var/jax-cache; a volume shared by the workers under compose).
USER proofbridge
EXPOSE 8000

ENTRYPOINT ["proofbridge"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
