"""Benchmarks of the matching engine (``make bench``); never collected by pytest."""
