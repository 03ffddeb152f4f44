"""The running errkb without HTTP: what the API, the pages, the CLI and the verifier share.

Its doors:

- ``kb.prepare_kb`` / ``kb.prepare_valid_kb``: a KB revision ready to serve
  (loaded, linted, indexed, self-tested); ``kb.LiveKb`` is that revision.
- ``reload.KbHolder`` and ``reload.Reloader``: the revision in use, swapped
  whole by a reload that builds the new one beside it.
- ``runner.MatchRunner``: matching as a service (admission slots, cache and
  single flight, work off the event loop), answering an ``runner.Ask``.
- ``recorder.Recorder``: the writer thread that stores each answer's redacted
  match event and the unmatched clusters; ``recorder.purge_stored`` ages them.
- ``article_states.article_lifecycles``: every article's lifecycle state from
  the KB and the store; ``article_pages.article_page``: one article as its API
  answer and its web page both show it; ``previews.preview`` replays stored events against a
  proposed KB; ``cluster_seeds.seed_for_cluster`` turns an unmatched cluster
  into a draft's seed.
- ``metrics.make_metrics``: one Prometheus registry per app;
  ``allocator.tune_malloc``: glibc's mmap threshold for ``errkb serve``.

It reads no settings (callers pass values in) and imports no ``http``,
``api`` or ``web``: the import-linter layers contract keeps it so.
"""
