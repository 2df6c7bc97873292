"""The optimized implementation of controller-mode failover, shaped like RocketMQ 5.x:

- ``protocol``: ResponseCode numbers, request headers, responses;
- ``events``, ``replicas_info``, ``elect_policy``, ``heartbeat``, ``controller``: the controller
  (ReplicasInfoManager state machine fed by a replicated event log, BrokerHeartbeatManager, ControllerManager);
- ``storage``, ``metadata``, ``broker``: the broker side (disk backends, identity files, ReplicasManager);
- ``engine``: ``ImplSystem``, the adapter the conformance suite steps like the reference model.
"""
