#!/bin/sh
# Check a Lean project's theorem statements with ProofBridge, from any CI system.
#
# Uploads the documents under DOCS_DIR (doc-gen4 output, plain-text doc pages or the Lean
# sources) as one .tar.gz at COMMIT, queues a run (`POST /api/v1/webhooks/ci`), follows it
# until it finishes, downloads its JUnit XML and SARIF (each failure at its theorem's file
# and line) and exits:
#   0  the run passed (no theorem failed or errored)
#   1  the run failed, errored or was cancelled
#   2  bad usage, or ProofBridge refused a request (its answer is printed) or did not answer
#
# Environment:
#   PROOFBRIDGE_URL        the server, e.g. https://proofbridge.example.org (required)
#   PROOFBRIDGE_API_TOKEN  its API token (required)
#   COMMIT                 the commit the documents come from, 4 to 64 hex digits (required)
#   DOCS_DIR               the folder to upload (required)
#   CHANGED_ONLY           true (default): only theorems that changed since last checked
#   JUNIT_FILE             where the JUnit XML goes (default: junit.xml)
#   SARIF_FILE             where the SARIF 2.1.0 of the failures goes, for code scanning
#                          (default: proofbridge.sarif)
#   IDEMPOTENCY_KEY        sent as Idempotency-Key: a job retried with the same key gets
#                          the same run (default: none)
#   POLL_S, TIMEOUT_S      poll interval and the longest wait for the run (5 and 3600 s)
#
# Needs curl, tar, gzip and python3 (for JSON).
set -eu

die() {
    echo "proofbridge-ci: $*" >&2
    exit 2
}

: "${PROOFBRIDGE_URL:?set PROOFBRIDGE_URL to the ProofBridge server}"
: "${PROOFBRIDGE_API_TOKEN:?set PROOFBRIDGE_API_TOKEN to its API token}"
: "${COMMIT:?set COMMIT to the commit the documents come from}"
: "${DOCS_DIR:?set DOCS_DIR to the folder of documents to upload}"
CHANGED_ONLY=${CHANGED_ONLY:-true}
JUNIT_FILE=${JUNIT_FILE:-junit.xml}
SARIF_FILE=${SARIF_FILE:-proofbridge.sarif}
IDEMPOTENCY_KEY=${IDEMPOTENCY_KEY:-}
POLL_S=${POLL_S:-5}
TIMEOUT_S=${TIMEOUT_S:-3600}

[ -d "$DOCS_DIR" ] || die "DOCS_DIR $DOCS_DIR is not a folder"
case $CHANGED_ONLY in
    true | false) ;;
    *) die "CHANGED_ONLY must be true or false, not $CHANGED_ONLY" ;;
esac

base=${PROOFBRIDGE_URL%/}
api=$base/api/v1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT HUP INT TERM

# request METHOD URL [curl arguments...]: the answer's body goes to $work/body, its HTTP
# status to stdout
request() {
    method=$1
    url=$2
    shift 2
    curl -sS -X "$method" -o "$work/body" -w '%{http_code}' \
        -H "Authorization: Bearer $PROOFBRIDGE_API_TOKEN" "$@" "$url"
}

# field NAME: the top-level field NAME of the JSON in $work/body
field() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
        "$work/body" "$1"
}

unreachable() {
    die "no answer from $PROOFBRIDGE_URL (see curl's message above)"
}

refused() {
    echo "proofbridge-ci: $1 answered HTTP $2:" >&2
    cat "$work/body" >&2
    echo >&2
    exit 2
}

echo "proofbridge-ci: uploading $DOCS_DIR at commit $COMMIT"
tar -czf "$work/docs.tar.gz" -C "$DOCS_DIR" .
code=$(request POST "$api/ingest?commit=$COMMIT" \
    -F "files=@$work/docs.tar.gz;type=application/gzip") || unreachable
[ "$code" = 200 ] || refused "POST /ingest" "$code"
python3 - "$work/body" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("proofbridge-ci: ingested {declarations} declarations ({theorems} theorems): "
      "{new} new, {changed} changed, {removed} removed".format(**report))
for problem in report["errors"]:
    print("proofbridge-ci: ingestion error:", json.dumps(problem), file=sys.stderr)
PY

body=$(printf '{"commit": "%s", "changed_only": %s}' "$COMMIT" "$CHANGED_ONLY")
if [ -n "$IDEMPOTENCY_KEY" ]; then
    code=$(request POST "$api/webhooks/ci" -H "Content-Type: application/json" \
        -H "Idempotency-Key: $IDEMPOTENCY_KEY" --data "$body") || unreachable
else
    code=$(request POST "$api/webhooks/ci" -H "Content-Type: application/json" \
        --data "$body") || unreachable
fi
case $code in
    200 | 202) ;;
    *) refused "POST /webhooks/ci" "$code" ;;
esac
run=$(field run)
url=$base$(field url)
junit=$base$(field junit)
echo "proofbridge-ci: run $run queued, $(field total) theorem(s) to check: $url"

waited=0
while :; do
    code=$(request GET "$url") || unreachable
    [ "$code" = 200 ] || refused "GET /runs/$run" "$code"
    status=$(field status)
    case $status in
        queued | running) ;;
        *) break ;;
    esac
    if [ "$waited" -ge "$TIMEOUT_S" ]; then
        echo "proofbridge-ci: run $run still $status after $TIMEOUT_S s" >&2
        exit 1
    fi
    sleep "$POLL_S"
    waited=$((waited + POLL_S))
done

code=$(request GET "$junit") || unreachable
[ "$code" = 200 ] || refused "GET /runs/$run/junit.xml" "$code"
cp "$work/body" "$JUNIT_FILE"
code=$(request GET "$api/runs/$run/sarif") || unreachable
[ "$code" = 200 ] || refused "GET /runs/$run/sarif" "$code"
cp "$work/body" "$SARIF_FILE"
code=$(request GET "$url") || unreachable
[ "$code" = 200 ] || refused "GET /runs/$run" "$code"
python3 - "$work/body" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
counts = ", ".join(f"{n} {k}" for k, n in run["summary"].items())
print(f"proofbridge-ci: run {run['id']} {run['status']}: {counts}")
if run.get("error"):
    print(f"proofbridge-ci: {run['error']}", file=sys.stderr)
PY
echo "proofbridge-ci: JUnit XML in $JUNIT_FILE, SARIF in $SARIF_FILE"
case $status in
    passed) exit 0 ;;
    *) exit 1 ;;
esac
