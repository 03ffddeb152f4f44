"""The JSON log lines escape what a terminal would act on (issue 24, item 8)."""

from __future__ import annotations

import json
import logging

from app.http.logs import JsonFormatter


def test_i8_bidi_overrides_and_c1_controls_in_a_logged_path_are_escaped() -> None:
    path = "/r/1/abc\u202egnp.exe\u2066x\u2028y\x9b31m"
    record = logging.LogRecord("errkb.access", logging.INFO, __file__, 1, "request", None, None)
    record.fields = {"path": path}
    line = JsonFormatter().format(record)
    for char in "\u202e\u2066\u2028\x9b":
        assert char not in line
    assert "\\u202e" in line
    assert json.loads(line)["path"] == path  # escaped, not lost
    assert "\n" not in line
