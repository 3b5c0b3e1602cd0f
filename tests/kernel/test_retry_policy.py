"""The retry policy and request limits read from Pi's settings (settings.md, Network and retries)."""

from __future__ import annotations

import random

from pi_runtime.ai.options import RequestLimits, StreamOptions
from pi_runtime.kernel.retry import RetryPolicy, request_limits
from pi_runtime.settings import SettingsManager


def typed(data: dict) -> object:
    return SettingsManager.in_memory(data).settings


def test_defaults_are_pis() -> None:
    limits = request_limits(typed({}))
    assert limits == RequestLimits(idle_timeout=300.0, request_timeout=300.0, max_retry_delay=60.0)
    policy = RetryPolicy.from_settings(typed({}))
    assert (policy.max_retries, policy.base_delay_ms, policy.max_delay_ms, policy.max_server_delay_ms) == (3, 2000, 60000, 60000)


def test_idle_timeout_disabled_and_provider_timeout_override() -> None:
    assert request_limits(typed({"httpIdleTimeoutMs": "disabled"})).idle_timeout is None
    assert request_limits(typed({"httpIdleTimeoutMs": 0})).request_timeout is None
    limits = request_limits(typed({"httpIdleTimeoutMs": 5000, "retry": {"provider": {"timeoutMs": 1500}}}))
    assert (limits.idle_timeout, limits.request_timeout) == (5.0, 1.5)
    options = limits.apply(StreamOptions())
    assert (options.timeout, options.request_timeout, options.max_retry_delay) == (5.0, 1.5, 60.0)


def test_server_delay_cap_and_its_legacy_name() -> None:
    assert request_limits(typed({"retry": {"provider": {"maxRetryDelayMs": 0}}})).max_retry_delay is None
    legacy = RetryPolicy.from_settings(typed({"retry": {"maxDelayMs": 5000}}))
    assert legacy.max_server_delay_ms == 5000
    assert legacy.server_delay_too_long(6) and not legacy.server_delay_too_long(5)
    assert not RetryPolicy(max_server_delay_ms=0).server_delay_too_long(3600)  # 0: no limit


def test_a_delay_never_exceeds_the_caps() -> None:
    policy = RetryPolicy(base_delay_ms=2000, max_delay_ms=8000, max_server_delay_ms=20000)
    rng = random.Random(7)
    assert all(1000 <= policy.delay_ms(1, rng=rng) <= 2000 for _ in range(50))
    assert policy.delay_ms(5, rng=rng) <= 8000
    assert policy.delay_ms(1, retry_after_s=15, rng=rng) == 15000  # the server's wish wins when longer
    assert policy.delay_ms(1, retry_after_s=3600, rng=rng) == 20000  # and is capped
