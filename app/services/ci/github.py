"""A client of GitHub's REST API for what CI reports post: commit statuses, check runs with
annotations, and one pull request comment kept up to date.

Authentication, as GitHub documents it:
- a token (`PROOFBRIDGE_GITHUB_TOKEN`: a personal or fine-grained token, or Actions'
  GITHUB_TOKEN) serves statuses and comments;
- check runs need a GitHub App: its id and private key (`PROOFBRIDGE_GITHUB_APP_ID`,
  `PROOFBRIDGE_GITHUB_APP_PRIVATE_KEY`) sign a JSON Web Token (RS256, issued a minute in the
  past, valid nine minutes), exchanged for an installation token
  (`POST /app/installations/{id}/access_tokens`) of the installation the webhook named.
  With an App configured, every request uses its installation token.

The base URL is a setting (`PROOFBRIDGE_GITHUB_API_URL`): `https://api.github.com`, or a
GitHub Enterprise server's `https://HOST/api/v3`. Every request sends the documented
headers (`Accept: application/vnd.github+json`, `X-GitHub-Api-Version: 2022-11-28`, a
`User-Agent`); an answer other than the documented success is a `GitHubError` naming the
request and GitHub's message.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from app import __version__

__all__ = [
    "ANNOTATIONS_PER_REQUEST",
    "API_VERSION",
    "GitHubClient",
    "GitHubError",
    "app_jwt",
]

API_VERSION = "2022-11-28"
# GitHub takes at most 50 annotations in one create or update of a check run
ANNOTATIONS_PER_REQUEST = 50
TIMEOUT_S = 30.0


class GitHubError(Exception):
    """A request GitHub refused or did not answer."""


def app_jwt(app_id: int | str, private_key: str, *, now: float | None = None) -> str:
    """The JSON Web Token that authenticates as the App: RS256 over `iss` (the App's id),
    `iat` a minute in the past (against clock drift) and `exp` nine minutes ahead."""
    import jwt  # PyJWT, with `cryptography` for RS256

    issued = int(now if now is not None else time.time()) - 60
    claims = {"iat": issued, "exp": issued + 600, "iss": str(app_id)}
    return str(jwt.encode(claims, private_key, algorithm="RS256"))


@dataclass
class GitHubClient:
    """GitHub's REST API at `base_url`, with a token, or as an App's installation."""

    base_url: str = "https://api.github.com"
    token: str | None = field(default=None, repr=False)
    app_id: int | None = None
    private_key: str | None = field(default=None, repr=False)
    installation_id: int | None = None
    transport: httpx.BaseTransport | None = None

    def __post_init__(self) -> None:
        self._installation_token: str | None = None
        self._login: str | None = None
        self._http = httpx.Client(
            base_url=self.base_url.rstrip("/"), timeout=TIMEOUT_S, transport=self.transport
        )

    def close(self) -> None:
        self._http.close()

    @property
    def can_check_runs(self) -> bool:
        return self.app_id is not None and bool(self.private_key) and bool(self.installation_id)

    @property
    def can_post(self) -> bool:
        return bool(self.token) or self.can_check_runs

    # --- requests ------------------------------------------------------------

    def _auth(self) -> str:
        if self.can_check_runs:
            return f"Bearer {self.installation_token()}"
        if self.token:
            return f"Bearer {self.token}"
        raise GitHubError("no GitHub credentials: set a token, or an App's id and private key")

    def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        auth: str | None = None,
        expect: Sequence[int] = (200, 201),
    ) -> Any:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"proofbridge/{__version__}",
            "Authorization": auth or self._auth(),
        }
        try:
            response = self._http.request(method, path, json=json, params=params, headers=headers)
        except httpx.HTTPError as exc:
            raise GitHubError(f"{method} {path}: no answer from GitHub: {exc}") from None
        if response.status_code not in expect:
            try:
                message = response.json().get("message", "")
            except ValueError:
                message = response.text[:200]
            raise GitHubError(f"{method} {path}: HTTP {response.status_code}: {message}")
        return response.json() if response.content else None

    def installation_token(self) -> str:
        """The installation's access token (requested once per client: it lasts an hour)."""
        if self._installation_token is None:
            if not (self.app_id is not None and self.private_key and self.installation_id):
                raise GitHubError("check runs need a GitHub App: its id, key and installation")
            token = app_jwt(self.app_id, self.private_key)
            body = self._request(
                "POST",
                f"/app/installations/{int(self.installation_id)}/access_tokens",
                auth=f"Bearer {token}",
                expect=(201,),
            )
            self._installation_token = str(body["token"])
        return self._installation_token

    # --- what reports post -----------------------------------------------------

    def create_status(
        self, repo: str, sha: str, *, state: str, description: str, context: str, target_url: str
    ) -> Any:
        """`POST /repos/{owner}/{repo}/statuses/{sha}` (state: error, failure, pending,
        success; a description of at most 140 characters)."""
        body = {"state": state, "description": description[:140], "context": context}
        if target_url:
            body["target_url"] = target_url
        return self._request("POST", f"/repos/{_repo(repo)}/statuses/{sha}", json=body)

    def create_check_run(
        self,
        repo: str,
        *,
        name: str,
        head_sha: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: Sequence[dict[str, Any]],
        details_url: str = "",
        external_id: str = "",
    ) -> int:
        """A completed check run with its annotations, 50 a request: the first batch with
        `POST /repos/{owner}/{repo}/check-runs`, the others with `PATCH .../{id}`."""
        batches = list(_batches(annotations)) or [[]]
        output = {"title": title, "summary": summary[:65535], "annotations": batches[0]}
        body: dict[str, Any] = {
            "name": name,
            "head_sha": head_sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": output,
        }
        if details_url:
            body["details_url"] = details_url
        if external_id:
            body["external_id"] = external_id
        created = self._request("POST", f"/repos/{_repo(repo)}/check-runs", json=body)
        run_id = int(created["id"])
        for batch in batches[1:]:
            more = {"title": title, "summary": output["summary"], "annotations": batch}
            self._request(
                "PATCH", f"/repos/{_repo(repo)}/check-runs/{run_id}", json={"output": more}
            )
        return run_id

    def own_login(self) -> str:
        """The account comments are posted as: the App's bot (`GET /app`: `<slug>[bot]`),
        or the token's user (`GET /user`)."""
        if self._login is None:
            if self.can_check_runs:
                assert self.app_id is not None and self.private_key
                token = app_jwt(self.app_id, self.private_key)
                app = self._request("GET", "/app", auth=f"Bearer {token}", expect=(200,))
                self._login = f"{app['slug']}[bot]"
            else:
                self._login = str(self._request("GET", "/user", expect=(200,))["login"])
        return self._login

    def upsert_comment(self, repo: str, number: int, *, body: str, marker: str) -> tuple[int, bool]:
        """Our own comment on the pull request holding `marker`, updated to `body`
        (`PATCH /repos/{owner}/{repo}/issues/comments/{id}`), or created when there is none
        (`POST /repos/{owner}/{repo}/issues/{number}/comments`): (its id, whether created).
        A comment of anyone else is never edited, whatever it holds."""
        login = self.own_login()
        for comment in self._comments(repo, number):
            author = comment.get("user") or {}
            if author.get("login") == login and marker in str(comment.get("body") or ""):
                comment_id = int(comment["id"])
                self._request(
                    "PATCH",
                    f"/repos/{_repo(repo)}/issues/comments/{comment_id}",
                    json={"body": body},
                )
                return comment_id, False
        created = self._request(
            "POST", f"/repos/{_repo(repo)}/issues/{int(number)}/comments", json={"body": body}
        )
        return int(created["id"]), True

    def _comments(self, repo: str, number: int) -> Iterator[dict[str, Any]]:
        page = 1
        while True:
            batch = self._request(
                "GET",
                f"/repos/{_repo(repo)}/issues/{int(number)}/comments",
                params={"per_page": 100, "page": page},
                expect=(200,),
            )
            if not isinstance(batch, list):
                raise GitHubError("GET comments: GitHub answered something other than a list")
            yield from batch
            if len(batch) < 100:
                return
            page += 1


def _repo(full_name: str) -> str:
    """`owner/name`, each part quoted for a URL path."""
    owner, _, name = full_name.partition("/")
    return f"{quote(owner, safe='')}/{quote(name, safe='')}"


def _batches(items: Sequence[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), ANNOTATIONS_PER_REQUEST):
        yield list(items[start : start + ANNOTATIONS_PER_REQUEST])
