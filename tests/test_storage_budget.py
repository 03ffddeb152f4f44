"""The daily allowance of stored text per client (issue 24, item 6; target I7)."""

from __future__ import annotations

from app.service.storage_budget import DAY_S, StorageBudget


def test_i7_the_allowance_is_spent_refilled_over_the_day_and_kept_per_client() -> None:
    now = [0.0]
    budget = StorageBudget(100_000, clock=lambda: now[0])
    assert [budget.take("a", 40_000) for _ in range(3)] == [True, True, False]
    assert budget.take("a", 20_000) is True  # what is left is still spent
    assert budget.take("a", 1) is False
    assert budget.take("b", 100_000) is True  # another address has its own
    now[0] = DAY_S / 4  # a quarter of a day: a quarter of the allowance is back
    assert budget.take("a", 30_000) is False
    assert budget.take("a", 25_000) is True
    now[0] = 10 * DAY_S  # never more than one day's allowance
    assert budget.take("a", 100_001) is False
    assert budget.take("a", 100_000) is True
    assert StorageBudget(0).take("a", 1 << 40) is True  # 0: no limit


def test_i7_a_text_charged_recently_is_free_again() -> None:
    """Identical texts are stored once: a job's 64 ranks or a retried hook pay once."""
    budget = StorageBudget(10_000, clock=lambda: 0.0)
    log = "x" * 6_000
    assert budget.take_texts("a", [log, ""]) is True
    assert all(budget.take_texts(rank, [log]) for rank in ("a", "b", "c"))
    assert budget.take_texts("a", ["y" * 6_000]) is False  # 4,000 left
    assert budget.take_texts("a", [log, "z" * 3_000]) is True  # only the new text is charged
