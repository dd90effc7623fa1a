"""A circuit breaker per endpoint: a server that is down is not asked once per commit.

Retries help a request past a passing fault. When the server is down, every
commit would climb the same ladder of retries and backoff, and a night's run
would spend its time proving it again and again. After consecutive failures —
connections refused or dropped, 5xx, deadlines passed with no sign that the
server is merely busy — of a few different requests, the circuit opens (one
request's own retries do not open it: they are how a passing fault is ridden out): every request fails at once,
unsent, with one line in the log, and the analyzer moves to the fallback
endpoint, then to the heuristic. After a cool-down one request goes through
(half-open); its success closes the circuit, its failure opens it again for
twice as long. A refused key is not this breaker's business: the client's
credential gate never asks again within the run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from repodaily.errors import ProviderError

__all__ = ["CircuitBreaker", "EndpointDown"]

log = logging.getLogger(__name__)

#: Different requests failing in a row that open the circuit: enough to rule out a passing blip.
FAILING_REQUESTS_TO_OPEN = 3
_FIRST_COOL_DOWN_S = 30.0
_LONGEST_COOL_DOWN_S = 300.0


class EndpointDown(ProviderError):
    """The endpoint's circuit is open: the request was not sent (the breaker said so when it opened)."""

    said_once = True


class CircuitBreaker:
    """Closed (requests go), open (they fail unsent) or half-open (one probe goes)."""

    def __init__(self, name: str, *, clock: Callable[[], float]) -> None:
        self._name = name
        self._clock = clock
        self._failures = 0
        self._failing: set[int] = set()
        self._last_failure = ""
        self._opened_until: float | None = None
        self._cool_down = _FIRST_COOL_DOWN_S
        self._probing = False

    @property
    def is_open(self) -> bool:
        return self._opened_until is not None

    def check(self) -> None:
        """Let a request go, or raise EndpointDown; after the cool-down one request goes as the probe."""
        if self._opened_until is None:
            return
        if self._clock() >= self._opened_until and not self._probing:
            self._probing = True
            log.info("%s: trying again after %.0f s", self._name, self._cool_down)
            return
        raise EndpointDown(
            f"{self._name}: not asked, the endpoint failed {self._failures} times in a row (last: {self._last_failure})"
        )

    def succeeded(self) -> None:
        if self._opened_until is not None:
            log.warning("%s: answering again; requests resume", self._name)
        self._failures, self._opened_until, self._probing = 0, None, False
        self._failing.clear()
        self._cool_down = _FIRST_COOL_DOWN_S

    def failed(self, reason: str, request: int) -> None:
        """Attempt of ``request`` (an id, the same for each of its retries) failed."""
        self._failures += 1
        self._failing.add(request)
        self._last_failure = reason
        if self._probing:
            self._probing = False
            self._cool_down = min(self._cool_down * 2, _LONGEST_COOL_DOWN_S)
            self._opened_until = self._clock() + self._cool_down
        elif self._opened_until is None and len(self._failing) >= FAILING_REQUESTS_TO_OPEN:
            self._opened_until = self._clock() + self._cool_down
            log.error(
                "%s: %d failures in a row (last: %s); not asked for %.0f s, its commits go to the fallback",
                self._name,
                self._failures,
                reason,
                self._cool_down,
            )
