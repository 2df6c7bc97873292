"""The optimized implementation of controller-mode failover, shaped like RocketMQ 5.x. It does not import
the reference: the conformance adapter (``conformance/engines/impl.py``) translates between the two.

Module map:

- ``protocol``: ResponseCode numbers, request headers, responses, the broker-side outcome codes;
- ``events``, ``replicas_info``, ``elect_policy``, ``heartbeat``, ``controller``, ``processor``: the
  controller (ReplicasInfoManager state machine fed by a replicated event log, BrokerHeartbeatManager,
  ControllerManager, ControllerRequestProcessor with the leadership check);
- ``config``: ``ImplConfig`` (``ControllerConfig`` + ``HAConfig``) and ``BrokerConfig``;
- ``states``: ``RegisterState``, ``Role``, ``HAState`` and ``IllegalStateError``;
- ``storage``, ``metadata``: a broker's disk backends and its identity files;
- ``client``: ``ControllerClient`` (BrokerOuterAPI), the brokers' RPC client with a lossy transport and the
  requests the network holds to deliver late;
- ``replicas_manager``: ``ReplicasManager``: registration, role change, heartbeat, elect, replica-info
  sync, AlterSyncStateSet and its answer, the requests a late delivery is built from;
- ``ha``: ``AutoSwitchHAService`` (master side: write, acks, settle, expand/shrink) and
  ``AutoSwitchHAClient`` (slave side: handshake, transfer, ack), ``BrokerSet`` (with the HA links cut
  between two brokers), ``PendingAlter``;
- ``acks``: the pure confirmOffset / acked-up-to rule (spec/Acks.tla);
- ``epoch_file``, ``commit_log``, ``truncation``, ``retention``: EpochFileCache with binary searches, the
  commit log with its flushed prefix, the four truncation policies, retention;
- ``broker``: ``BrokerProcess``: disk, crash (and the torn crash), restart, flush, consume, disk wipe;
- the designs RIP-44 replaced (spec/Designs.tla): ``store_config`` (a broker's ``broker.conf``: 4.x's
  ``brokerRole`` and ``haMasterAddress``, DLedger's ``enableDLegerCommitLog``; InitDesign's ``initial_configs``),
  ``master_slave`` (4.x: ``MasterSlaveManager`` with ``DefaultHAService`` and ``DefaultHAClient``,
  ``operator_failover``), ``dledger`` (``DLedgerServer`` with ``MemberState``, whose term is in the file
  ``currterm``, ``DLedgerStore``, ``DLedgerLeaderElector``, ``DLedgerEntryPusher``); a broker with a ``broker.conf``
  runs one of these instead of a ``ReplicasManager``.

The adapter the conformance suite steps like the reference model, ``ImplSystem``, lives in
``conformance/engines/impl.py``.

Glossary, RocketMQ name -> model name (spec / reference), where the implementation keeps RocketMQ's name
on purpose:

- ``ReplicaInfo.broker_id_table`` -> ``replicas`` (the registered ids, their addresses and checkCodes);
- ``address_of_check_code`` -> ``addr_of_check_code`` / ``.addr``;
- ``elect_policy``'s ``assigned``, ``ElectMasterRequest.designate_elect`` -> ``designated``;
- ``ReplicasManager.master_epoch`` / ``sync_state_set_epoch`` / ``master_id`` -> ``localMasterEpoch`` /
  ``localSyncStateSetEpoch`` / ``localMasterId`` (``SyncStateInfo.master_epoch`` is the controller's
  ``masterEpoch``);
- ``AutoSwitchHAService.sync_state_set`` / ``acks`` / ``pending_alter`` -> ``localSyncStateSet`` /
  ``acks`` / ``pendingAlter``; ``AutoSwitchHAClient.ha_state`` -> ``haState``;
- ``BrokerProcess.meta_id`` -> ``metaFile[p]`` (the id in the identity file on disk);
  ``ReplicasManager.broker_id`` -> the reference's ``broker_id`` (the id registration works under);
- ``BrokerProcess.register_state`` (``RegisterState``) -> ``regState``; ``CheckCodeClock.now`` -> ``clock``;
- ``EpochFile.index_of`` / ``entry_at_offset`` -> ``-1`` where ``EntryOf`` gives ``None``;
- ``AutoSwitchHAClient.handshake`` -> ``-1`` where the trace says ``NO_CONSISTENT_POINT``;
- ``AutoSwitchHAService.write`` -> ``None`` where the trace says ``IN_SYNC_REPLICAS_NOT_ENOUGH``;
- ``report_sync_state_set_changed`` (doReportSyncStateSetChanged) -> ``Propose``;
- ``IllegalStateError`` -> an action that is not enabled (``NotEnabled`` in the adapter);
- 4.x: ``store_config.BrokerRole`` (SYNC_MASTER, ASYNC_MASTER, SLAVE) -> ``brokerRole`` MASTER or SLAVE;
  ``DefaultHAService.acks`` (each ``HAConnection``'s slave offset) -> ``acks``; ``DefaultHAService.request``
  (the ``GroupCommitRequest`` waiting for a slave) -> ``confirmOffset < LEO`` on a master; ``PutMessageStatus.PUT_OK``
  -> ``SUCCESS``;
- DLedger: ``MemberState.curr_term`` -> ``term``; LEADER / FOLLOWER -> role MASTER / SLAVE, ``leader_id`` ->
  ``localMasterId``; ``DLedgerStore.committed_index`` -> ``confirmOffset``; ``DLedgerEntryPusher.acks`` (peer water
  marks) -> ``acks``; ``EntryHandler.ha_state`` -> ``haState``; ``DLedgerEntryPusher.push`` -> ``(False, term)``
  where the trace says ``EXPIRED_TERM``.
"""
