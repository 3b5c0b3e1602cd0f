"""An AWS Signature Version 4 checker written from the published specification, for the tests.

It plays the server's side: given a recorded request and the secret key, it rebuilds the
canonical request and the signature and says whether the request's ``Authorization`` matches.
It shares no code with the signer pi uses (botocore), so a request it accepts was signed right
(path encoded twice for non-S3 services, every signed header present, payload hash of the body
as sent). Its own correctness is pinned by AWS's published test-suite vectors
(``test_reference_matches_aws_test_suite``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlsplit

_AUTH = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})$"
)


@dataclass
class Check:
    ok: bool
    expected: str
    access_key: str
    region: str
    service: str
    signed_headers: list[str]
    canonical_request: str


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _canonical_uri(path: str, service: str) -> str:
    if service == "s3":
        return path or "/"
    # Every service but S3: each segment of the (already encoded) path is encoded once more.
    return quote(path or "/", safe="/~")


def _canonical_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    encoded = sorted((quote(k, safe="-_.~"), quote(v, safe="-_.~")) for k, v in pairs)
    return "&".join(f"{k}={v}" for k, v in encoded)


def signature(secret: str, date: str, region: str, service: str, string_to_sign: str) -> str:
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{secret}".encode(), date), region), service), "aws4_request")
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()


def check(method: str, target: str, headers: dict[str, str], body: bytes, secret: str) -> Check:
    """Verify the SigV4 ``Authorization`` of one request.

    Args:
        method: ``POST``.
        target: The request target as sent (path and query).
        headers: The request's headers, names lower-cased.
        body: The body bytes as sent.
        secret: The secret access key.
    """
    match = _AUTH.match(headers.get("authorization", ""))
    if match is None:
        raise AssertionError(f"not a SigV4 Authorization header: {headers.get('authorization')!r}")
    signed = match["signed"].split(";")
    parts = urlsplit(target)
    lines = []
    for name in signed:
        value = headers.get(name)
        if value is None:
            raise AssertionError(f"signed header {name!r} was not sent")
        lines.append(f"{name}:{' '.join(value.strip().split())}\n")
    payload_hash = headers.get("x-amz-content-sha256") or hashlib.sha256(body).hexdigest()
    canonical = "\n".join([
        method, _canonical_uri(parts.path, match["service"]), _canonical_query(parts.query),
        "".join(lines), match["signed"], payload_hash,
    ])
    amz_date = headers.get("x-amz-date", "")
    scope = f"{match['date']}/{match['region']}/{match['service']}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    expected = signature(secret, match["date"], match["region"], match["service"], to_sign)
    return Check(hmac.compare_digest(expected, match["signature"]), expected, match["key"], match["region"],
                 match["service"], signed, canonical)
