"""Cost of the fuzzy step per event (goal P7), with and without regex candidates.

The pipeline compares an event's normalised signature with the traceback
signatures of its candidate articles: the articles a regex found plus those
whose traceback names the same exception type, capped at ``MAX_CANDIDATES``
(``app.matching.fuzzy``). This times exactly those functions on the events of
the 10 KB log, three ways: regex candidates only, the pipeline's candidate set
(regex plus exception type), and the exception-type bucket alone (an event no
signature matched). It also times ``match_text`` on inputs holding one event.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from app.matching.events_model import Event
from app.matching.fuzzy import candidates, similarities
from app.matching.index import SignatureIndex
from app.matching.normalize import signature_text
from app.matching.pipeline import match_text
from benchmarks.synth_logs import oom_traceback, unrelated_tracebacks

MIN_LOOP_S = 0.05  # each sample loops until it took this long: sub-ms costs need it


def per_call(run: Callable[[], object], repeat: int = 5) -> list[float]:
    """Seconds per call, ``repeat`` samples, each averaged over enough calls (after a warm-up)."""
    run()
    loops, start = 1, time.perf_counter()
    run()
    single = max(time.perf_counter() - start, 1e-7)
    loops = max(1, int(MIN_LOOP_S / single))
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            run()
        samples.append((time.perf_counter() - start) / loops)
    return samples


def _fuzzy_run(query: str, ids: Sequence[str], index: SignatureIndex) -> Callable[[], object]:
    return lambda: similarities(query, ids, index)


def event_row(
    event: Event, regex_ids: list[str], index: SignatureIndex, matched: bool
) -> dict[str, Any]:
    """The three fuzzy costs of one event, and how many candidates each compares."""
    query = signature_text(event)
    pipeline_ids = candidates(event.exception, regex_ids, index)
    bucket_ids = candidates(event.exception, [], index)

    def pipeline() -> object:
        return similarities(query, candidates(event.exception, regex_ids, index), index)

    return {
        "event": f"{event.kind.value}: {event.exception or '(untyped)'}",
        "matched": matched,  # the event the top match is about
        "regex_only": {
            "candidates": len(regex_ids),
            "samples": per_call(_fuzzy_run(query, regex_ids, index)),
        },
        "pipeline": {"candidates": len(pipeline_ids), "samples": per_call(pipeline)},
        "exception_only": {
            "candidates": len(bucket_ids),
            "samples": per_call(_fuzzy_run(query, bucket_ids, index)),
        },
    }


def single_event_inputs() -> dict[str, bytes]:
    """Pasted tracebacks of one event: the matched OOM, and an IndexError no article knows."""
    oom = "\n".join(line.split(": ", 1)[1] for line in oom_traceback(0, short=False))
    index_error = "\n".join(unrelated_tracebacks()[0])
    return {
        "CUDA-OOM traceback (matched)": oom.encode(),
        "IndexError traceback (unmatched)": index_error.encode(),
    }


def fuzzy_costs(index: SignatureIndex, data: bytes) -> list[dict[str, Any]]:
    """One row per distinct (kind, exception) event of ``data``, then the one-event inputs."""
    hits = index.scan(data)
    regex_ids = sorted(
        {index.signatures[s].article_id for s in hits if index.signatures[s].kind == "error"}
    )
    result = match_text(data, index)
    top_event = result.top.event_index if result.top else -1
    rows, seen = [], set()
    for number, event in enumerate(result.events):
        key = (event.kind, event.exception)
        if key not in seen or number == top_event:
            seen.add(key)
            rows.append(event_row(event, regex_ids, index, number == top_event))
    for name, text in single_event_inputs().items():
        rows.append(one_event_row(name, text, index))
    return rows


def one_event_row(name: str, text: bytes, index: SignatureIndex) -> dict[str, Any]:
    """The whole ``match_text`` on an input that holds one event."""
    top = match_text(text, index).top
    samples = per_call(lambda: match_text(text, index))
    return {"input": name, "top": top.article_id if top else None, "samples": samples}
