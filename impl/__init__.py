"""The optimized implementation of controller-mode failover, shaped like RocketMQ 5.x:

- ``protocol``: ResponseCode numbers, request headers, responses;
- ``events``, ``replicas_info``, ``elect_policy``, ``heartbeat``, ``controller``: the controller
  (ReplicasInfoManager state machine fed by a replicated event log, BrokerHeartbeatManager, ControllerManager);
- ``storage``, ``metadata``, ``broker``: the broker side (disk backends, identity files, ReplicasManager);
- ``epoch_file``, ``commit_log``, ``truncation``, ``ha``: the data path (EpochFileCache with binary
  searches, the commit log with its flushed prefix, the four truncation policies, HA options, the peer
  directory and the ghost message sets); master and slave HA steps are ReplicasManager methods;
- ``engine``: ``ImplSystem``, the adapter the conformance suite steps like the reference model.
"""
