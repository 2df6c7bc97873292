"""Validating a real system's logs against the model (``autoswitch validate``): partial traces with unobserved steps.

A system under test writes NDJSON event logs (spec/README.md "Event logs"), one file per node or one for all. This
package reads them, merges them into one candidate order, and searches for a behaviour of the model that explains them:

- ``events.py``: the event format, read strictly (``InputError`` naming the file, the line and the field).
- ``merge.py``: per-node files into one candidate order (logical clock, else timestamp, with a clock-skew window).
- ``search.py``: the depth-first search with memoisation over the model's steps (``validate``, ``Verdict``).
- ``cut.py``: logs cut from a trace (a simulation walk, an implementation run) and the mutations that must be refused.
- ``batch.py``: many logs, in this process or on Spark, and their summary table.
- ``reach.py``: the values no behaviour reaches, refused before any search.
- ``fuzz.py``: seeded mutations of committed logs and the contract ``validate`` keeps on them (``autoswitch fuzz --logs``).
"""
