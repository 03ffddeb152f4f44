"""The match answer's examples in /docs, one per format, rendered by the real renderers.

A bot author reads /docs to see what each ``?format=`` returns. Hand-written
examples drift from the code; these are made by the renderers themselves
from one small, fixed reply (an imaginary article), so they always show
what errkb sends.
"""

from __future__ import annotations

from typing import Any

from app.api import chat
from app.api.answers import text_answer
from app.api.reply import Reply, ReplyMatch
from app.articles.fixsteps import first_step

_FIX = """1. **Lower the per-device batch size** and keep the global batch with accumulation:

   ```bash
   torchrun --nproc-per-node 8 train.py --per_device_train_batch_size 4 \\
       --gradient_accumulation_steps 4
   ```

2. Turn on gradient checkpointing.
"""
_MATCH = ReplyMatch(
    article_id="cuda-oom",
    title="CUDA out of memory",
    url="https://errkb.example/articles/cuda-oom",
    score=0.97,
    confidence="high",
    summary="The GPU ran out of memory while allocating a tensor.",
    layer="user-code",
    layer_note="Fix it in the training code or its configuration.",
    infrastructure=False,
    step=first_step(_FIX),
    fix_markdown=_FIX.strip(),
)
REPLY = Reply(
    lang="en",
    matches=(_MATCH,),
    result_url="https://errkb.example/r/4711/Qm9vayBrZXk",
    evidence=None,
    unknown=None,
    unmatched_url="https://errkb.example/unmatched",
)
_EVIDENCE = {"kind": "error", "signature": "CUDA out of memory", "line_start": 812,
             "line_end": 812, "hint": "the error line"}  # fmt: skip
JSON_EXAMPLE: dict[str, Any] = {
    "matches": [
        {"article_id": "cuda-oom", "score": 0.97, "confidence": "high",
         "title": "CUDA out of memory", "event_index": 0, "evidence": [_EVIDENCE],
         "url": _MATCH.url, "summary_markdown": "**[CUDA out of memory](...)** — ...",
         "fix_markdown": _MATCH.fix_markdown, "layer": "user-code",
         "layer_note": _MATCH.layer_note},
    ],
    "events": [{"exception": "torch.OutOfMemoryError", "message": "CUDA out of memory. ...",
                "ranks": [0, 3], "line_start": 790, "line_end": 812, "root_cause": True}],
    "unknown": False,
    "input": {"bytes": 52113, "lines": 812, "redactions": 1},
    "match_event_id": 4711,
    "result_url": REPLY.result_url,
    "result_key": "Qm9vayBrZXk",
    "lang": "en",
    "kb_revision": "3f1c...",
    "answer_text": text_answer(REPLY),
    "hints": [],
}  # fmt: skip


def match_examples() -> dict[str, Any]:
    """OpenAPI ``content`` for the 200 answer: JSON, text and each chat format."""
    chats = {
        name: {"summary": f"?format={name}", "value": build(REPLY)}
        for name, build in (
            ("slack", chat.slack),
            ("feishu", chat.feishu),
            ("dingtalk", chat.dingtalk),
            ("wecom", chat.wecom),
        )
    }
    return {
        "application/json": {
            "examples": {"json": {"summary": "?format=json", "value": JSON_EXAMPLE}, **chats}
        },
        "text/plain": {"schema": {"type": "string"}, "example": text_answer(REPLY)},
    }
