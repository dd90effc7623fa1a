"""The parsed parts of a message, for tests that build an :class:`AnalysisInput` by hand."""

from __future__ import annotations

from typing import Any

from repodaily.sources.message import parse_message


def parsed_parts(subject: str, body: str = "") -> dict[str, Any]:
    """What the source would parse out of this message; the subject and body stay as given."""
    return {**parse_message(f"{subject}\n\n{body}").message_parts(), "subject": subject, "body": body}
