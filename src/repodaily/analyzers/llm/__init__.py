"""The ``llm`` analyzer: commits judged by any OpenAI-compatible endpoint, against the rubric.

::

    settings     EndpointSettings, LLMSettings, settings_from_env: what to ask, how hard
    client       ChatClient: one endpoint over httpx; retries, limits, our errors only
    limits       request/token budgets and the waits a server asks for
    schema       LLMVerdict and the other reply models; the importance overrides
    prompts      the Jinja2 prompt files (zh, en) and PROMPT_VERSION
    structured   output-mode negotiation, validation, the repair round
    chunks       splitting a big commit's diff for map-reduce
    analyzer     LLMAnalyzer, registered as "llm"

Importing this package registers the analyzer.
"""

from repodaily.analyzers.llm.analyzer import LLMAnalyzer
from repodaily.analyzers.llm.client import ChatClient, OutputMode
from repodaily.analyzers.llm.prompts import PROMPT_VERSION
from repodaily.analyzers.llm.schema import LLMVerdict
from repodaily.analyzers.llm.settings import EndpointSettings, LLMSettings, settings_from_env

__all__ = [
    "PROMPT_VERSION",
    "ChatClient",
    "EndpointSettings",
    "LLMAnalyzer",
    "LLMSettings",
    "LLMVerdict",
    "OutputMode",
    "settings_from_env",
]
