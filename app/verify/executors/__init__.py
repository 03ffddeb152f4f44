"""Where runs execute: ``local`` (this host), ``ray`` (a cluster), ``fake`` (a function, for tests).

Every executor is an ``executors.base.Executor``: ``run(job) -> RunResult``
and ``close()`` (STYLE.md rule 9). Only ``ray.py`` imports ray, and lazily.
"""
