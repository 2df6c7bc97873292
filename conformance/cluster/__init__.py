"""A real RocketMQ controller-mode cluster under faults (``autoswitch cluster run``, issue 41): a name server with the
controller embedded (or three standalone controller nodes, ``--controllers 3``) and one broker set of 2 or 3 brokers,
each a JVM of its own started from RocketMQ's Maven artifacts (``pom.xml`` and ``src/``: launchers of our own, no
RocketMQ source); a producer recording a Jepsen-style history; seeded faults (kill -9 and restart of brokers, the name
server and controller nodes, SIGSTOP/SIGCONT, wiped broker stores with ``--wipe``); after healing, everything read back
and checked: NoAckedMessageLost (MODEL.md) on the history; and the controller's view, as an event log, against the
model. ``autoswitch cluster table`` runs N seeds per settings row and sets them beside the model's verdict.

- ``build.py``: the Maven build, cached per release and source hash (as ``conformance/rocketmq/jvm.py``);
- ``settings.py``: ``--settings`` names -> broker and controller properties and the model configuration;
- ``schedule.py``: the seeded fault schedule;
- ``procs.py``: the JVMs, each in its own process group, all killed at exit, on SIGTERM/SIGINT/SIGHUP;
- ``check.py``: the history check and its report;
- ``events.py``: the controller's view and the run's crashes (and wipes) as event logs, and ``autoswitch validate`` on them;
- ``run.py``: one run, start to verdicts;
- ``table.py``: ``autoswitch cluster table``: N runs per settings row, the model's verdict beside them.
"""
