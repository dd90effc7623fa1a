"""The one exception tree of repodaily.

::

    RepodailyError                 anything repodaily reports as a failure
    ├── ConfigError                a bad config file, key, option or date (exit 2)
    ├── SourceError                git or a remote could not give us the commits
    ├── StoreError                 the SQLite store or cache directory is unusable
    ├── AnalysisError              one commit could not be analysed
    │   ├── ProviderError          the endpoint failed (HTTP error, timeout, refusal)
    │   │   └── AuthError          the endpoint refuses our credentials (401/403): stop asking
    │   ├── InvalidOutput          the reply did not validate against the schema
    │   └── Truncated              the reply was cut off (finish_reason == "length")
    ├── RenderError                a template failed
    └── PublishError               a delivery failed

Library code raises these (``raise ... from`` the foreign error, at the adapter
edge); only ``cli.py`` turns them into exit codes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from repodaily.models import Usage


class RepodailyError(Exception):
    """Root of every error repodaily raises on purpose."""


class ConfigError(RepodailyError):
    """Invalid configuration or invocation; names the key and file when it can."""


class SourceError(RepodailyError):
    """The commits could not be read (unknown path or URL, git failure)."""


class StoreError(RepodailyError):
    """The store or cache directory cannot be used."""


class AnalysisError(RepodailyError):
    """A commit could not be analysed."""

    #: What the analyzer spent before it failed (calls, tokens, seconds), when it counted:
    #: those requests were sent all the same, so the run's accounting includes them.
    usage: Usage | None = None
    #: Whoever heard this failure first logged it once for the whole run (a refused key, an
    #: endpoint given up on); each commit it costs after that is the same news, not a new line.
    said_once: bool = False


class ProviderError(AnalysisError):
    """The analysis endpoint failed to answer usefully."""


class AuthError(ProviderError):
    """The endpoint rejected the credentials; every further call would fail the same way."""

    said_once = True


class InvalidOutput(AnalysisError):
    """The analyzer's output did not match the schema."""


class Truncated(AnalysisError):
    """The analyzer's output was cut off before it was complete."""


class RenderError(RepodailyError):
    """A report could not be rendered."""


class PublishError(RepodailyError):
    """A rendered report could not be delivered."""
