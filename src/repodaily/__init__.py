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

Plugins (sources, analyzers, renderers, publishers) enter through :func:`registry`;
see :mod:`repodaily.hookspecs` and the README's architecture section.

Every name below is imported on first use (PEP 562), so ``import repodaily.models``
loads the models alone, not the HTTP client or the template engine.
"""

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

_EXPORTS = {
    "Analysis": "repodaily.models",
    "AnalysisError": "repodaily.errors",
    "AnalysisInput": "repodaily.models",
    "Analyzer": "repodaily.analyzers",
    "AuthError": "repodaily.errors",
    "Commit": "repodaily.models",
    "Config": "repodaily.config",
    "ConfigError": "repodaily.errors",
    "DailyReport": "repodaily.models",
    "InvalidOutput": "repodaily.errors",
    "Pipeline": "repodaily.pipeline",
    "Provenance": "repodaily.models",
    "PluginSpec": "repodaily.plugins",
    "ProviderError": "repodaily.errors",
    "PublishError": "repodaily.errors",
    "Redactor": "repodaily.redact",
    "RenderError": "repodaily.errors",
    "RepoConfig": "repodaily.config",
    "RepodailyError": "repodaily.errors",
    "RunSummary": "repodaily.pipeline",
    "SourceError": "repodaily.errors",
    "Store": "repodaily.store",
    "StoreError": "repodaily.errors",
    "Truncated": "repodaily.errors",
    "Verdict": "repodaily.models",
    "hookimpl": "repodaily.hookspecs",
    "load_config": "repodaily.config",
    "redactor_for": "repodaily.credentials",
    "registry": "repodaily.plugins",
    "render_json": "repodaily.render",
    "render_markdown": "repodaily.render",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> _Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_importlib.import_module(_EXPORTS[name]), name)
