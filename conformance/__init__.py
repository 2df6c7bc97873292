"""The conformance tooling: what checks that the spec (``spec/``), the reference (``reference/``) and the
implementation (``impl/``) are one model. Nothing here holds a rule of the model; each subsystem runs the
reference's and the implementation's own code, or says in ``spec/README.md``'s rule map where its encoding is.

Read first: ``engines`` (the one interface both models are driven through), ``trace.replay`` (what a trace
is checked against) and ``controls`` (every configuration and negative control); then ``explore``.

Module map:

- ``engines``: ``Engine`` (``step``, ``variables``), ``make_engine``; ``engines.config`` (below the engines):
  ``Config`` from a trace's ``#meta``, the option names (``OPTION_FIELDS``, ``spec_constant``);
  ``engines.reference``: ``ReferenceEngine``; ``engines.impl``: ``ImplSystem``, the adapter that steps the
  implementation by action records (``_STEPS``) and builds its ``ImplConfig`` from ``Options`` (``impl_config``), the
  only module that imports both models;
- ``trace``: ITF files (``itf``), their strict reading (``validate``), ``replay`` of a walk or a truncation step on
  each engine, its verdict (``result``: ``Result``, the statuses), ``components`` (the epoch-file, handshake and
  retention trace kinds), ``explain``, ``vocabulary`` (what a trace may add to the action table of
  ``reference/actions.py``), ``fuzz`` (``autoswitch fuzz``);
- ``scenarios``: the hand-written corpus of ``traces/`` (``builder``, ``controller``, ``data_path``, ``components``,
  ``kinds``, ``code``, ``faults``, ``rocketmq``), written by ``autoswitch scenarios``;
- ``explore``: the actions of the spec's ``Next`` in a state (``next_actions``, ``NextActions``) and
  ``check_step`` (both engines on one action, every invariant and action property);
- ``controls``: the registry of settings: the safe configurations and negative controls (MODEL.md §6), the option
  sets and the simulation grid (``grid``, ``SimConfig``), read by the CLI, ``check``, ``tla``, ``simulation``,
  ``cfgs``, ``known_bugs`` and the tests;
- ``check``: the explicit-state model checker over the reference (``checker``), the spec's ``MC_*.cfg``
  reader (``specconfig``) and the verdicts of ``autoswitch check`` (``verdict``); fair cycles (``liveness``); which
  search runs (``search``, as ``how`` says): in worker processes (``parallel``, ``store``, ``codec``: checkpoints), on
  Spark (``spark_search``); ``fingerprint``; ``bench`` (``autoswitch bench --check``);
- ``tla``: TLC and Apalache (``run``), TLC's printed traces (``tlc_output``), their import as ITF
  (``import_``) and ``autoswitch tla`` (``check``);
- ``z3``: the controller's inductive invariant (``controller_encoding``: ``TRANSITIONS``; ``controller_induction``, ``controller_agreement``, ``controller``: the report) and the truncation policies
  against the common prefix (``truncation``: ``POLICIES``);
- ``simulation``: random walks (``generate``), a campaign and a walk's run (``campaign``), swarm testing
  (``swarm``), coverage guidance (``guide``), liveness walks' fair suffix (``fair``), delta debugging (``shrink``),
  the output folder (``store``), Spark (``spark``), coverage against the checker (``coverage``), the summary
  (``report``) and the strategies side by side (``bench``);
- ``logs``: ``autoswitch validate``'s reading of event logs (``events``, ``merge``), what it refuses before any
  search (``reach``), the facts and distances its search prunes by (``facts``, ``distance``), the search itself
  (``search``) and many logs at once (``batch``); logs cut from walks (``cut``), ``bench`` (``autoswitch bench
  --logs``) and ``fuzz`` (``autoswitch fuzz --logs``);
- ``rocketmq``: RocketMQ's own classes as a third engine (``engine``: the ``rocketmq`` engine, the real controller
  under the reference's processes; ``jvm``: the harness JVM built by Maven; ``findings``: where the real code and the
  model differ and how it is settled; ``datapath``: the model's findings run on RocketMQ's stores);
- ``cluster``: a real RocketMQ cluster under faults (``autoswitch cluster run``, ``cluster table``): the launchers
  built by Maven (``build``), ``settings`` (a row of ``controls`` as broker properties), the seeded ``schedule``, the
  JVMs (``procs``), one ``run``, the history ``check``, the run as an event log (``events``) and ``table``;
- ``html``: pages for a browser, the counterexample explorer (``explorer``: ``autoswitch explain --html``) and the
  campaign's ``report.html`` (``report``);
- top level: ``cfgs`` (the table the spec's ``MC_*.cfg`` files are written from: ``autoswitch configs``), ``compare``
  (the designs RIP-44 replaced, property by property: ``autoswitch compare``), ``known_bugs``
  (the catalogue: ``autoswitch bugs``), ``bench`` (the engines timed on one corpus), ``errors`` (the exit-code
  contract), ``paths`` (where a command may write), ``pytest_plugin`` (``pytest --autoswitch-traces``), ``cli`` (the
  ``autoswitch`` command, which only parses and prints).

The prose documentation: README.md (a guide), docs/ (one page per topic; docs/results/ the dated measurements) and
spec/README.md (the rule map, the refinements, the trace and log formats, the code-to-model table).
"""
