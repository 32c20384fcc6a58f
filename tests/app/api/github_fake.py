"""A GitHub-like HTTP server on 127.0.0.1 for the reporting tests: it answers the REST API's
endpoints that reports use, as GitHub documents them, and refuses what GitHub would refuse.

Every request must send `Accept: application/vnd.github+json`, `X-GitHub-Api-Version:
2022-11-28`, a `User-Agent` and `Authorization: Bearer <token>`. Tokens: the plain token it
was given, or an installation token it issued for a JSON Web Token signed (RS256) with the
App's key, issued in the past and valid at most ten minutes. Check runs need an installation
token (GitHub answers 403 to any other). Bodies are checked field by field (required
fields, enumerations, at most 50 annotations, each with path, lines, level and message);
what is wrong answers 422 with a message, an unknown path 404. It keeps statuses, check runs
and issue comments, and records every request.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt

SHA = r"[0-9a-f]{40}|[0-9a-f]{64}"
REPO = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"
STATES = {"error", "failure", "pending", "success"}
CONCLUSIONS = {
    "action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale",
    "timed_out",
}  # fmt: skip
LEVELS = {"notice", "warning", "failure"}
APP_SLUG = "proofbridge-ci"  # the App's bot comments as proofbridge-ci[bot]
TOKEN_LOGIN = "proofbridge-bot"  # the plain token's user


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class FakeGitHub:
    token: str
    app_id: int
    public_key: str
    installation: int
    requests: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    issued: set[str] = field(default_factory=set)
    next_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    # --- authentication --------------------------------------------------------

    def _bearer(self, headers: dict[str, str]) -> str:
        if headers.get("accept") != "application/vnd.github+json":
            raise Refused(415, "Accept must be application/vnd.github+json")
        if headers.get("x-github-api-version") != "2022-11-28":
            raise Refused(400, "X-GitHub-Api-Version must be 2022-11-28")
        if not headers.get("user-agent"):
            raise Refused(403, "a User-Agent header is required")
        auth = headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            raise Refused(401, "Requires authentication")
        return auth[len("Bearer ") :]

    def _user(self, headers: dict[str, str]) -> str:
        token = self._bearer(headers)
        if token == self.token:
            return "token"
        if token in self.issued:
            return "installation"
        raise Refused(401, "Bad credentials")

    def _app(self, headers: dict[str, str]) -> None:
        token = self._bearer(headers)
        try:
            claims = jwt.decode(
                token,
                self.public_key,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
            )
        except jwt.PyJWTError as exc:
            raise Refused(401, f"A JSON web token could not be decoded: {exc}") from None
        if str(claims["iss"]) != str(self.app_id):
            raise Refused(401, "'Issuer' claim ('iss') must be the App's id")
        if claims["iat"] > time.time() or claims["exp"] - claims["iat"] > 600:
            raise Refused(401, "'Expiration time' claim ('exp') is too far in the future")

    # --- endpoints -------------------------------------------------------------

    def handle(
        self,
        method: str,
        path: str,
        query: dict[str, list[str]],
        headers: dict[str, str],
        body: Any,
    ) -> tuple[int, Any]:
        if path == "/app" and method == "GET":
            self._app(headers)
            return 200, {"id": self.app_id, "slug": APP_SLUG}
        if m := re.fullmatch(r"/app/installations/(\d+)/access_tokens", path):
            if method != "POST":
                raise Refused(404, "Not Found")
            self._app(headers)
            if int(m.group(1)) != self.installation:
                raise Refused(404, "Not Found")
            token = "ghs_" + secrets.token_hex(16)
            self.issued.add(token)
            return 201, {"token": token, "expires_at": "2099-01-01T00:00:00Z"}
        user = self._user(headers)
        if path == "/user" and method == "GET":
            if user != "token":
                raise Refused(403, "Resource not accessible by integration")
            return 200, {"login": TOKEN_LOGIN}
        if m := re.fullmatch(rf"/repos/({REPO})/statuses/({SHA})", path):
            if method != "POST":
                raise Refused(404, "Not Found")
            _require(body, {"state": str})
            if body["state"] not in STATES:
                raise Refused(422, f"state is not one of {sorted(STATES)}")
            for key in ("description", "context", "target_url"):
                if key in body and not isinstance(body[key], str):
                    raise Refused(422, f"{key} must be a string")
            item = body | {"id": self.new_id(), "repo": m.group(1), "sha": m.group(2)}
            self.statuses.append(item)
            return 201, item
        if m := re.fullmatch(rf"/repos/({REPO})/check-runs", path):
            if method != "POST":
                raise Refused(404, "Not Found")
            if user != "installation":
                raise Refused(403, "You must authenticate via a GitHub App.")
            _require(body, {"name": str, "head_sha": str})
            if not re.fullmatch(SHA, body["head_sha"]):
                raise Refused(422, "head_sha is not a commit SHA")
            if body.get("status") == "completed" and body.get("conclusion") not in CONCLUSIONS:
                raise Refused(422, "a completed check run needs a conclusion")
            _check_output(body.get("output"))
            run_id = self.new_id()
            output = dict(body.get("output") or {})
            run = body | {
                "id": run_id,
                "repo": m.group(1),
                "annotations": list(output.get("annotations", [])),
            }
            self.check_runs[run_id] = run
            return 201, {"id": run_id, "head_sha": body["head_sha"], "status": body.get("status")}
        if m := re.fullmatch(rf"/repos/({REPO})/check-runs/(\d+)", path):
            if method != "PATCH":
                raise Refused(404, "Not Found")
            if user != "installation":
                raise Refused(403, "You must authenticate via a GitHub App.")
            run = self.check_runs.get(int(m.group(2)))
            if run is None:
                raise Refused(404, "Not Found")
            _check_output(body.get("output"))
            run["annotations"].extend(body["output"].get("annotations", []))
            return 200, {"id": run["id"]}
        if m := re.fullmatch(rf"/repos/({REPO})/issues/(\d+)/comments", path):
            number = int(m.group(2))
            if method == "GET":
                per_page = int(query.get("per_page", ["30"])[0])
                page = int(query.get("page", ["1"])[0])
                if not 1 <= per_page <= 100:
                    raise Refused(422, "per_page must be from 1 to 100")
                items = self.comments.get(number, [])
                return 200, items[(page - 1) * per_page : page * per_page]
            if method == "POST":
                _require(body, {"body": str})
                login = TOKEN_LOGIN if user == "token" else f"{APP_SLUG}[bot]"
                item = {"id": self.new_id(), "body": body["body"], "user": {"login": login}}
                self.comments.setdefault(number, []).append(item)
                return 201, item
            raise Refused(404, "Not Found")
        if m := re.fullmatch(rf"/repos/({REPO})/issues/comments/(\d+)", path):
            if method != "PATCH":
                raise Refused(404, "Not Found")
            _require(body, {"body": str})
            for items in self.comments.values():
                for item in items:
                    if item["id"] == int(m.group(2)):
                        mine = TOKEN_LOGIN if user == "token" else f"{APP_SLUG}[bot]"
                        if item["user"]["login"] != mine:
                            raise Refused(403, "Resource not accessible by integration")
                        item["body"] = body["body"]
                        return 200, item
            raise Refused(404, "Not Found")
        raise Refused(404, "Not Found")


def _require(body: Any, fields: dict[str, type]) -> None:
    if not isinstance(body, dict):
        raise Refused(400, "Problems parsing JSON")
    for key, kind in fields.items():
        if not isinstance(body.get(key), kind):
            raise Refused(422, f"{key} is required and must be a {kind.__name__}")


def _check_output(output: Any) -> None:
    if output is None:
        return
    _require(output, {"title": str, "summary": str})
    notes = output.get("annotations", [])
    if not isinstance(notes, list) or len(notes) > 50:
        raise Refused(422, "at most 50 annotations a request")
    for note in notes:
        _require(
            note,
            {
                "path": str,
                "start_line": int,
                "end_line": int,
                "annotation_level": str,
                "message": str,
            },
        )
        if note["annotation_level"] not in LEVELS:
            raise Refused(422, f"annotation_level must be one of {sorted(LEVELS)}")
        if note["end_line"] < note["start_line"]:
            raise Refused(422, "end_line is before start_line")


def serve(fake: FakeGitHub) -> tuple[ThreadingHTTPServer, str]:
    """Start the server on a free port; (the server, its base URL)."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = "<not JSON>"
            with fake.lock:
                fake.requests.append(
                    {"method": self.command, "path": url.path, "headers": headers, "body": body}
                )
                try:
                    if raw and headers.get("content-type", "").split(";")[0] != "application/json":
                        raise Refused(415, "the body must be application/json")
                    code, answer = fake.handle(
                        self.command, url.path, parse_qs(url.query), headers, body
                    )
                except Refused as exc:
                    code, answer = exc.code, {"message": str(exc)}
            data = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
