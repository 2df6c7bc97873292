"""Pages a person reads in a browser: the counterexample explorer (``autoswitch explain TRACE --html OUT``) and the
campaign report (``report.html`` beside ``report.md``). Each page is one self-contained file: its script, style and
plots are inlined, so it opens with no network access.

- ``explorer.py``: one trace (every trace kind) as lanes per process, the controller beside them, stepped with the keys.
- ``report.py``: the campaign report as HTML, each failure linked to its explorer page.
- ``assets/``: the page's script and style, read with importlib.resources and inlined.
"""
