"""repodaily: daily reports of what changed in the repositories you depend on.

The pipeline is importable for people who embed it::

    import asyncio
    import os
    from datetime import date
    from repodaily import Pipeline, Store, load_config, redactor_for, render_markdown

    config = load_config(None)
    redact = redactor_for(config, environ=os.environ)  # keys stay out of the store and reports
    with Store(config.cache_path, redact=redact) as store:
        pipeline = Pipeline(config, store, redact=redact)
        (report,) = asyncio.run(pipeline.reports_for(config.repos[0], [date(2026, 2, 9)]))
    print(redact(render_markdown(report)))
"""

from repodaily.analyzers import Analyzer, create_analyzer, register_analyzer
from repodaily.config import Config, RepoConfig, load_config
from repodaily.credentials import redactor_for
from repodaily.errors import (
    AnalysisError,
    AuthError,
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
from repodaily.models import Analysis, AnalysisInput, Commit, DailyReport, Provenance, Verdict
from repodaily.pipeline import Pipeline, RunSummary
from repodaily.redact import Redactor
from repodaily.render import render_json, render_markdown
from repodaily.store import Store

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "AnalysisError",
    "AnalysisInput",
    "Analyzer",
    "AuthError",
    "Commit",
    "Config",
    "ConfigError",
    "DailyReport",
    "InvalidOutput",
    "Pipeline",
    "Provenance",
    "ProviderError",
    "PublishError",
    "Redactor",
    "RenderError",
    "RepoConfig",
    "RepodailyError",
    "RunSummary",
    "SourceError",
    "Store",
    "StoreError",
    "Truncated",
    "Verdict",
    "__version__",
    "create_analyzer",
    "load_config",
    "redactor_for",
    "register_analyzer",
    "render_json",
    "render_markdown",
]
