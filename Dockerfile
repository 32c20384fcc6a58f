# The ProofBridge service: API, dashboard and (with a broker) the check worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /srv/proofbridge

COPY pyproject.toml README.md ./
COPY app ./app
COPY theorem_index ./theorem_index
COPY checkers ./checkers
COPY migrations ./migrations
COPY alembic.ini ./
COPY examples ./examples

RUN pip install . \
    && useradd --create-home --uid 10001 proofbridge \
    && mkdir -p var && chown proofbridge var

USER proofbridge
EXPOSE 8000

CMD ["sh", "-c", "proofbridge db upgrade && proofbridge serve --host 0.0.0.0 --port 8000"]
