"""The conformance tooling: what checks that the spec (``spec/``), the reference (``reference/``) and the
implementation (``impl/``) are one model. Nothing here holds a rule of the model; each subsystem runs the
reference's and the implementation's own code, or says in ``spec/README.md``'s rule map where its encoding is.

Read first: ``engines`` (the one interface both models are driven through), ``trace.replay`` (what a trace
is checked against) and ``controls`` (every configuration and negative control); then ``explore``.

Module map:

- ``engines``: ``Engine`` (``step``, ``variables``), ``Config`` from a trace's ``#meta``, the option names
  (``OPTION_FIELDS``, ``spec_constant``); ``engines.reference``: ``ReferenceEngine``; ``engines.impl``:
  ``ImplSystem``, the adapter that steps the implementation by action records (``_STEPS``) and builds its
  ``ImplConfig`` from ``Options`` (``impl_config``), the only module that imports both models;
- ``trace``: ITF files (``itf``), ``replay`` of a walk or a truncation step on each engine, ``components``
  (the epoch-file, handshake and retention trace kinds), ``explain``, ``vocabulary`` (what a trace may add to
  the action table of ``reference/actions.py``);
- ``scenarios``: the hand-written corpus of ``traces/`` (``controller``, ``data_path``, ``components``,
  ``kinds``, ``code``), written by ``autoswitch scenarios``;
- ``explore``: the actions of the spec's ``Next`` in a state (``next_actions``, ``NextActions``) and
  ``check_step`` (both engines on one action, every invariant and action property);
- ``controls``: the registry of safe configurations and negative controls (MODEL.md §6), read by the CLI,
  ``check``, ``tla``, ``simulation`` and the tests;
- ``check``: the explicit-state model checker over the reference (``checker``), the spec's ``MC_*.cfg``
  reader (``specconfig``) and the verdicts of ``autoswitch check`` (``verdict``);
- ``tla``: TLC and Apalache (``run``), TLC's printed traces (``tlc_output``), their import as ITF
  (``import_``) and ``autoswitch tla`` (``check``);
- ``z3``: the controller's inductive invariant (``controller_encoding``: ``TRANSITIONS``; ``controller_induction``, ``controller_agreement``, ``controller``: the report) and the truncation policies
  against the common prefix (``truncation``: ``POLICIES``);
- ``simulation``: random walks (``generate``), the campaign grid and a walk's run (``campaign``), delta
  debugging (``shrink``), Spark (``spark``) and the summary (``report``);
- ``logs``: ``autoswitch validate``'s reading of event logs (``events``, ``merge``), the facts and distances its
  search prunes by (``facts``, ``distance``) and the search itself (``search``), logs cut from walks (``cut``);
- ``rocketmq``: RocketMQ's own classes as a third engine (``engine``: the ``rocketmq`` engine, the real controller
  under the reference's processes; ``jvm``: the harness JVM built by Maven; ``findings``: where the real code and the
  model differ and how it is settled; ``datapath``: the model's findings run on RocketMQ's stores);
- ``bench``: the engines timed on one corpus; ``cli``: the ``autoswitch`` command, which only parses and
  prints.
"""
