"""A real RocketMQ controller-mode cluster under faults (``autoswitch cluster run``, issue 41): a name server with the
controller embedded and one broker set of 2 or 3 brokers, each a JVM of its own started from RocketMQ's Maven
artifacts (``pom.xml`` and ``src/``: launchers of our own, no RocketMQ source); a producer recording a Jepsen-style
history; seeded faults (kill -9 and restart, SIGSTOP/SIGCONT); after healing, everything read back and checked:
NoAckedMessageLost (MODEL.md) on the history; and the controller's view, as an event log, against the model.

- ``build.py``: the Maven build, cached per release and source hash (as ``conformance/rocketmq/jvm.py``);
- ``settings.py``: ``--settings`` names -> broker and controller properties and the model configuration;
- ``schedule.py``: the seeded fault schedule;
- ``procs.py``: the JVMs, each in its own process group, all killed at exit, on SIGTERM/SIGINT/SIGHUP;
- ``check.py``: the history check and its report;
- ``events.py``: the controller's view and the run's crashes as event logs, and ``autoswitch validate`` on them;
- ``run.py``: one run, start to verdicts.
"""
