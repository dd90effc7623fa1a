"""repodaily: daily reports of what changed in the repositories you depend on.

The pipeline is importable for people who embed it::

    from repodaily import Pipeline, Store, load_config
"""

from repodaily.errors import (
    AnalysisError,
    ConfigError,
    InvalidOutput,
    ProviderError,
    PublishError,
    RenderError,
    RepodailyError,
    SourceError,
    StoreError,
    Truncated,
)

__version__ = "0.1.0"

__all__ = [
    "AnalysisError",
    "ConfigError",
    "InvalidOutput",
    "ProviderError",
    "PublishError",
    "RenderError",
    "RepodailyError",
    "SourceError",
    "StoreError",
    "Truncated",
    "__version__",
]
