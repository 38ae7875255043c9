"""The benchmarks, one module each, run from the repository root: ``python -m bench.import``.

``harness`` holds what they share (child runs, RSS sampling, ratios, the table renderer);
``corpus`` and ``agents_corpus`` generate the histories they measure.
"""
