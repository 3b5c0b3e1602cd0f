"""Where a Bedrock request goes and how it is authenticated, resolved as Pi 1.6 resolves it.

Pi hands this to the AWS SDK; here botocore plays the SDK's part: its SigV4 signer, and its
credential chain for profiles (``~/.aws/credentials`` and ``~/.aws/config``, SSO token caches,
``credential_process``, assumed roles, container and web-identity credentials). botocore is
imported on the first Bedrock request, in a worker thread, never at start-up.

Order of precedence, as Pi's:

- auth: a bearer token (the request's key, else ``AWS_BEARER_TOKEN_BEDROCK``) unless
  ``AWS_BEDROCK_SKIP_AUTH=1`` (then dummy credentials, for proxies that need none); else
  ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` (``AWS_SESSION_TOKEN``) unless a profile was
  given for the request; else the profile chain;
- region: the one in an inference-profile ARN, ``AWS_REGION``, ``AWS_DEFAULT_REGION``, the
  region of an explicit standard endpoint, ``us-east-1`` without ``AWS_PROFILE``, else the profile's;
- endpoint: the model's ``baseUrl`` when it is not a standard Bedrock host, or when neither a
  region nor ``AWS_PROFILE`` is configured; otherwise ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``,
  ``AWS_ENDPOINT_URL``, or the region's standard host.

Messages name what to set and never hold a secret.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from ...options import StreamOptions
from ...types import Model

SERVICE = "bedrock"
MISSING_CREDENTIALS = (
    "No AWS credentials for Amazon Bedrock: set AWS_PROFILE (a profile in ~/.aws/credentials or "
    "~/.aws/config), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK"
)
_ARN_REGION = re.compile(r"^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):")
_STANDARD_HOST = re.compile(r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")
_PLACEHOLDER_KEY = re.compile(r"^<[^>]+>$")
_RESERVED_HEADERS = ("authorization", "host")
_CHAIN_HINTS = ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "AWS_WEB_IDENTITY_TOKEN_FILE")


class AwsConfigError(Exception):
    """Credentials, profile or region could not be resolved; ``str()`` says what to set."""


@dataclass(frozen=True)
class Keys:
    """An access key pair (what botocore's signer reads: ``access_key``, ``secret_key``, ``token``)."""

    access_key: str
    secret_key: str
    token: str | None = None

    def __repr__(self) -> str:
        return f"Keys(access_key={self.access_key[:4]}…)"


@dataclass(frozen=True)
class Target:
    """Where one request goes and what authenticates it (exactly one of ``bearer`` and ``keys``)."""

    url: str
    region: str
    bearer: str | None = None
    keys: Keys | None = None

    def secrets(self) -> tuple[str, ...]:
        """The values error messages must never show."""
        if self.bearer:
            return (self.bearer,)
        if self.keys is not None:
            return tuple(v for v in (self.keys.secret_key, self.keys.token) if v)
        return ()


def environment(options: StreamOptions) -> dict[str, str]:
    """The process environment with the request's provider-scoped values (``extra["env"]``) on top."""
    scoped = options.extra.get("env")
    env = dict(os.environ)
    if isinstance(scoped, dict):
        env.update({k: v for k, v in scoped.items() if isinstance(v, str)})
    return env


def standard_endpoint_region(base_url: str) -> str | None:
    """The region of a standard ``bedrock-runtime.<region>.amazonaws.com`` URL, else None."""
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return None
    match = _STANDARD_HOST.match(host)
    return match.group(1) if match else None


def configured_region(options: StreamOptions, env: Mapping[str, str]) -> str | None:
    """The region the request or the environment names (not the profile's)."""
    region = options.extra.get("region")
    if isinstance(region, str) and region:
        return region
    return env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None


def _bearer_token(options: StreamOptions, env: Mapping[str, str]) -> str | None:
    key = options.api_key
    if key and not _PLACEHOLDER_KEY.match(key.strip()):
        return key
    return env.get("AWS_BEARER_TOKEN_BEDROCK") or None


def _request_profile(options: StreamOptions) -> str | None:
    """A profile chosen for this request (an option, or the credential's own ``AWS_PROFILE``)."""
    profile = options.extra.get("profile")
    scoped = options.extra.get("env")
    if not profile and isinstance(scoped, dict):
        profile = scoped.get("AWS_PROFILE")
    return profile if isinstance(profile, str) and profile else None


def standard_url(region: str) -> str:
    suffix = ".amazonaws.com.cn" if region.startswith("cn-") else ".amazonaws.com"
    return f"https://bedrock-runtime.{region}{suffix}"


def resolve_target(model: Model, options: StreamOptions, env: Mapping[str, str]) -> Target:
    """Endpoint, region and credentials for one request. May read files, run a
    ``credential_process`` or call AWS (SSO, STS): call it in a worker thread.

    Raises:
        AwsConfigError: Nothing to authenticate with, an unknown profile, no region.
    """
    region_set = configured_region(options, env)
    ambient_profile = bool(os.environ.get("AWS_PROFILE"))
    base = (model.base_url or "").strip()
    endpoint_region = standard_endpoint_region(base)
    explicit = bool(base) and (endpoint_region is None or (not region_set and not ambient_profile))
    profile = _request_profile(options) or env.get("AWS_PROFILE") or None

    arn = _ARN_REGION.match(model.id)
    region = arn.group(1) if arn else region_set
    if region is None and explicit and endpoint_region:
        region = endpoint_region
    if region is None and not ambient_profile:
        region = "us-east-1"
    if region is None:
        region = _profile_region(profile)
    if not region:
        raise AwsConfigError(f"No AWS region for Amazon Bedrock: set AWS_REGION, or region in profile '{profile}'")

    if explicit:
        root = base
    else:
        root = env.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") or env.get("AWS_ENDPOINT_URL") or standard_url(region)
    url = f"{root.rstrip('/')}/model/{quote(model.id, safe='')}/converse-stream"

    skip_auth = env.get("AWS_BEDROCK_SKIP_AUTH") == "1"
    bearer = _bearer_token(options, env)
    if bearer and not skip_auth:
        return Target(url, region, bearer=bearer)
    if skip_auth:
        return Target(url, region, keys=Keys("dummy-access-key", "dummy-secret-key"))
    access, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
    if access and secret and not _request_profile(options):
        return Target(url, region, keys=Keys(access, secret, env.get("AWS_SESSION_TOKEN") or None))
    if profile or any(env.get(name) for name in _CHAIN_HINTS):
        return Target(url, region, keys=_chain_keys(profile))
    raise AwsConfigError(MISSING_CREDENTIALS)


# --------------------------------------------------------------------------- botocore's chain

_sessions: dict[str | None, Any] = {}
_sessions_lock = threading.Lock()


def _session(profile: str | None) -> Any:
    """One botocore session per profile for the life of the process, so refreshable credentials
    (SSO, assumed roles) are fetched once and refreshed when they near expiry, not per request."""
    with _sessions_lock:
        session = _sessions.get(profile)
        if session is None:
            import botocore.session

            session = botocore.session.Session(profile=profile)
            _sessions[profile] = session
        return session


def forget_sessions() -> None:
    """Drop the cached sessions (their credentials and the config files they read)."""
    with _sessions_lock:
        _sessions.clear()


def _profile_region(profile: str | None) -> str | None:
    from botocore.exceptions import BotoCoreError

    try:
        region = _session(profile).get_config_variable("region")
    except BotoCoreError as exc:
        raise AwsConfigError(f"AWS profile problem: {exc}") from None
    return region if isinstance(region, str) and region else None


def _chain_keys(profile: str | None) -> Keys:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        credentials = _session(profile).get_credentials()
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
    except (BotoCoreError, ClientError) as exc:
        # botocore's messages name the profile, the file or the SSO step, never a secret.
        raise AwsConfigError(f"AWS credentials for profile '{profile or 'default'}' could not be loaded: {exc}") from None
    if frozen is None or not frozen.access_key or not frozen.secret_key:
        where = f"profile '{profile}'" if profile else "the AWS credential chain"
        raise AwsConfigError(f"{where} gave no AWS credentials. {MISSING_CREDENTIALS}")
    return Keys(frozen.access_key, frozen.secret_key, frozen.token or None)


# --------------------------------------------------------------------------- signing


def request_headers(extra: Mapping[str, str]) -> dict[str, str]:
    """Caller headers that may go out with the request: ``x-amz-*``, ``authorization`` and ``host``
    belong to the signature (or the bearer token) and are left out, as Pi does."""
    return {k: v for k, v in extra.items()
            if not k.lower().startswith("x-amz-") and k.lower() not in _RESERVED_HEADERS}


def authorize(target: Target, headers: dict[str, str], payload: bytes) -> dict[str, str]:
    """The headers to send: with the bearer token, or signed with SigV4 over the final body."""
    out = {k: v for k, v in headers.items()
           if not k.lower().startswith("x-amz-") and k.lower() not in _RESERVED_HEADERS}
    if target.bearer is not None:
        out["authorization"] = f"Bearer {target.bearer}"
        return out
    assert target.keys is not None
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest

    out["content-length"] = str(len(payload))
    out["x-amz-content-sha256"] = hashlib.sha256(payload).hexdigest()
    unsigned = {k: v for k, v in out.items() if k.lower() == "user-agent"}
    request = AWSRequest(method="POST", url=target.url, data=payload,
                         headers={k: v for k, v in out.items() if k not in unsigned})
    SigV4Auth(target.keys, SERVICE, target.region).add_auth(request)
    signed = {k.lower(): v for k, v in request.headers.items()}
    signed.update(unsigned)
    return signed


def load_signer() -> None:
    """Import botocore's signer (a tenth of a second) so ``authorize`` does not pay for it on the loop."""
    import botocore.auth
    import botocore.awsrequest  # noqa: F401
