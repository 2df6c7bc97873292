"""RocketMQ's own classes as a third engine: ``pom.xml`` and ``src/`` (the harness JVM's sources, no RocketMQ code),
``jvm.py`` (building it with Maven per release and speaking its JSON lines), ``engine.py`` (the ``rocketmq`` engine:
the model's processes with the real controller, the real EpochFileCache), ``findings.py`` (where the corpus and the
real code disagree, and how each is settled)."""
