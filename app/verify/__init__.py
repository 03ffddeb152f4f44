"""The verifier: run each article's reproduction and record whether the article still holds.

The door is ``verifier.verify(live, plan, executor)``; ``cli.verify_cli`` is
the ``errkb verify`` command. The pieces, in the order a run meets them:

    plan.py        pure: which articles this executor can run, and why not (E10)
    executors/     where runs execute: local, ray, fake (run(job) / close())
    runner.py      on the worker: probe, check packages, run repro.py and fixed.py, confined
      sandbox.py   network namespace, pids cgroup, allowlisted environment, the sweep (E2-E8)
      bootstrap.py rlimits, oom_score_adj, loopback, then exec (in the environment under test)
      probe.py     versions, asked of the environment under test
      capture.py   head + tail of the output (E5)
    outcome.py     pure: verified, stale, drifted, fix-broken, unverifiable, error
    report.py      the table; bundle.py JSON Lines; post.py the service; ingest.py the database

It never imports the HTTP layers, and only ``executors/ray.py`` imports ray,
lazily (the layer contracts in pyproject.toml).
"""
