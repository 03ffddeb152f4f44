"""Writing and changing the KB safely (issue 9): drafts from real gaps, dry runs, fixtures.

``signature`` and ``scaffold`` turn an unmatched error into a draft article,
``dryrun`` replays stored match events against a proposed KB, ``fixtures``
turns feedback into candidate test logs. All of it is pure; the CLI and the
HTTP layers read the store and write files.
"""
