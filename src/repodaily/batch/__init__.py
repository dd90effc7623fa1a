"""Batch APIs: a backfill's analyses sent as files of requests, answered within a day at a lower price.

::

    lines     custom ids, the line formats (openai, slim), chunks by lines and bytes, output lines read
    manifest  what an export wrote: its chunks, each request's input and cache key
    export    `batch export`: the commits a report would analyse, not yet cached, as JSONL chunks
    api       the provider's Files and Batches endpoints over httpx: upload, create, poll, download
    submit    `batch submit` / `batch status`: each chunk sent once, recorded in the store by its hash
    collect   `batch collect`: replies validated, stored in the analysis cache; failures asked one by one

The requests are the analyzer's own (:class:`~repodaily.analyzers.base.BatchAnalyzer`):
a line's body is exactly what the synchronous call would post, and a reply is read
as that call's answer is, so a report after ``collect`` is the report the
synchronous path writes, with no call made.
"""
