"""The sign-in and sign-up throttle: a sliding window per key, bounded in memory."""

from __future__ import annotations

import time

from kseri.server.accounts import THROTTLE_KEYS, Throttle


def test_a_key_waits_once_over_its_limit_until_the_window_passes() -> None:
    throttle = Throttle(limit=2, window=1.0)  # a second: a busy machine stays inside it
    throttle.hit("eleni")
    assert throttle.wait("eleni") == 0
    throttle.hit("eleni")
    assert 0 < throttle.wait("eleni") <= 1.0
    assert throttle.wait("nikos") == 0
    time.sleep(1.01)
    assert throttle.wait("eleni") == 0
    throttle.hit("eleni")
    throttle.hit("eleni")
    throttle.clear("eleni")
    assert throttle.wait("eleni") == 0


def test_a_throttle_forgets_expired_keys_when_it_fills() -> None:
    throttle = Throttle(limit=1, window=1.0)  # a second: filling it stays inside even on a loaded machine
    for number in range(THROTTLE_KEYS):
        throttle.hit(f"name {number}")
    assert throttle.wait("name 1") > 0
    time.sleep(1.01)
    throttle.hit("one more")
    assert list(throttle._events) == ["one more"] and throttle.wait("one more") > 0
