"""Unit tests of the optimized implementation (``autoswitch.impl``) and its differential test against
the reference model: every step must give the same outcome and the same variables."""

from __future__ import annotations

import os
from typing import Any

import pytest

from autoswitch.impl.broker import BrokerConfig, BrokerProcess, CheckCodeClock
from autoswitch.impl.client import ControllerClient
from autoswitch.impl.controller import ControllerConfig, ControllerManager
from autoswitch.impl.events import ApplyBrokerIdEvent, ElectMasterEvent
from autoswitch.impl.metadata import (
    META_FILE,
    TEMP_META_FILE,
    BrokerMetadata,
    TempBrokerMetadata,
    belongs_to,
    load_meta,
    load_temp,
)
from autoswitch.impl.protocol import (
    AlterSyncStateSetRequest,
    ApplyBrokerIdRequest,
    BrokerHeartbeatRequest,
    CleanBrokerDataRequest,
    ElectMasterRequest,
    GetNextBrokerIdRequest,
    GetReplicaInfoRequest,
    RegisterBrokerToControllerRequest,
    ResponseCode,
)
from autoswitch.impl.replicas_info import ReplicasInfoManager
from autoswitch.impl.states import IllegalStateError, RegisterState, Role
from autoswitch.impl.storage import FileStorage, MemoryStorage

C = "DefaultCluster"

# ---- protocol ----------------------------------------------------------------------------------------


def test_response_codes_have_rocketmq_numbers() -> None:
    expected = {
        "SUCCESS": 0,
        "CONTROLLER_FENCED_MASTER_EPOCH": 2000,
        "CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH": 2001,
        "CONTROLLER_INVALID_MASTER": 2002,
        "CONTROLLER_INVALID_REPLICAS": 2003,
        "CONTROLLER_MASTER_NOT_AVAILABLE": 2004,
        "CONTROLLER_INVALID_REQUEST": 2005,
        "CONTROLLER_BROKER_NOT_ALIVE": 2006,
        "CONTROLLER_NOT_LEADER": 2007,
        "CONTROLLER_BROKER_METADATA_NOT_EXIST": 2008,
        "CONTROLLER_INVALID_CLEAN_BROKER_METADATA": 2009,
        "CONTROLLER_BROKER_NEED_TO_BE_REGISTERED": 2010,
        "CONTROLLER_MASTER_STILL_EXIST": 2011,
        "CONTROLLER_ELECT_MASTER_FAILED": 2012,
        "CONTROLLER_ALTER_SYNC_STATE_SET_FAILED": 2013,
        "CONTROLLER_BROKER_ID_INVALID": 2014,
        "CONTROLLER_JRAFT_INTERNAL_ERROR": 2015,
        "CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS": 2016,
    }
    assert {code.name: int(code) for code in ResponseCode} == expected
    assert ResponseCode(2014) is ResponseCode.CONTROLLER_BROKER_ID_INVALID


def test_responses_carry_code_number_and_name() -> None:
    ctl = ControllerManager()
    refused = ctl.apply_broker_id(ApplyBrokerIdRequest(C, "b", 2, "10.0.0.1;0"))
    assert refused.code == 2014 and refused.name == "CONTROLLER_BROKER_ID_INVALID"
    assert ctl.apply_broker_id(ApplyBrokerIdRequest(C, "b", 1, "10.0.0.1;0")).code == 0
    info = ctl.get_replica_info(GetReplicaInfoRequest(C, "b"))
    assert info.code == ResponseCode.SUCCESS and info.body == frozenset() and info.header["masterId"] == -1


# ---- controller ------------------------------------------------------------------------------------


def _register(ctl: ControllerManager, name: str, broker_id: int, addr: str) -> None:
    assert ctl.apply_broker_id(ApplyBrokerIdRequest(C, name, broker_id, f"{addr};0")).code == ResponseCode.SUCCESS
    ctl.broker_heartbeat(BrokerHeartbeatRequest(C, name, broker_id, 0, 0, 0))


def test_broker_sets_are_isolated() -> None:
    ctl = ControllerManager()
    _register(ctl, "broker-a", 1, "10.0.0.1")
    _register(ctl, "broker-a", 2, "10.0.0.2")
    _register(ctl, "broker-b", 1, "10.0.1.1")
    assert ctl.get_next_broker_id(GetNextBrokerIdRequest(C, "broker-a")).header["nextBrokerId"] == 3
    assert ctl.get_next_broker_id(GetNextBrokerIdRequest(C, "broker-b")).header["nextBrokerId"] == 2
    assert ctl.get_next_broker_id(GetNextBrokerIdRequest(C, "broker-c")).header["nextBrokerId"] == 1

    elected = ctl.elect_master(ElectMasterRequest(C, "broker-a", 2))
    assert elected.code == ResponseCode.SUCCESS and elected.header["masterAddr"] == "10.0.0.2"
    b_info = ctl.get_replica_info(GetReplicaInfoRequest(C, "broker-b"))
    assert b_info.header["masterId"] == -1 and b_info.header["masterEpoch"] == 0  # no master yet: epoch 0, reported

    # liveness is per broker set: expiring broker-a's id 1 leaves broker-b's id 1 alive
    assert ctl.heartbeat_manager.on_broker_inactive(C, "broker-a", 1)
    assert not ctl.heartbeat_manager.is_broker_active(C, "broker-a", 1)
    assert ctl.heartbeat_manager.is_broker_active(C, "broker-b", 1)
    assert not ctl.heartbeat_manager.is_broker_active("OtherCluster", "broker-b", 1)

    # cleaning one set leaves the other untouched
    cleaned = ctl.clean_broker_data(CleanBrokerDataRequest(C, "broker-b", frozenset(), clean_living_broker=True))
    assert cleaned.code == ResponseCode.SUCCESS
    assert ctl.get_replica_info(GetReplicaInfoRequest(C, "broker-b")).code == ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST
    a_info = ctl.get_replica_info(GetReplicaInfoRequest(C, "broker-a"))
    assert a_info.header["masterId"] == 2 and a_info.body == frozenset({2})


def test_handlers_do_not_mutate_and_the_log_replays() -> None:
    ctl = ControllerManager(ControllerConfig(enable_elect_unclean_master=True))
    response, events = ctl.replicas_info.apply_broker_id(ApplyBrokerIdRequest(C, "broker-a", 1, "10.0.0.1;7"))
    assert response.code == ResponseCode.SUCCESS
    assert events == (ApplyBrokerIdEvent(C, "broker-a", "10.0.0.1", 1, "10.0.0.1;7"),)
    assert ctl.replicas_info.replica_info_table == {} and ctl.event_log.entries == []

    _register(ctl, "broker-a", 1, "10.0.0.1")
    _register(ctl, "broker-a", 2, "10.0.0.2")
    ctl.elect_master(ElectMasterRequest(C, "broker-a", 1))
    assert ctl.alter_sync_state_set(AlterSyncStateSetRequest(C, "broker-a", 1, 1, frozenset({1, 2}), 1)).header == {
        "syncStateSetEpoch": 2
    }
    ctl.register_broker(RegisterBrokerToControllerRequest(C, "broker-a", 2, "10.9.9.9"))
    ctl.failover()  # the liveness table is gone, the replicated state is not
    # the master is not alive, but neither is any id of the set: the scan waits (scanNeedReelectBrokerSets)
    assert ctl.scan_inactive_master(C, "broker-a") is None and ctl.elect_tries_left == {}
    ctl.broker_heartbeat(BrokerHeartbeatRequest(C, "broker-a", 2, 5, 0, 0))
    assert ctl.scan_inactive_master(C, "broker-a").header["masterId"] == 2  # the slave heartbeats first: it is elected
    assert ctl.elect_tries_left == {} and ctl.scan_inactive_master(C, "broker-a") is None
    assert isinstance(ctl.event_log.entries[-1], ElectMasterEvent)

    follower = ReplicasInfoManager(enable_elect_unclean_master=True)
    ctl.event_log.replay(follower)

    def snapshot(m: ReplicasInfoManager) -> Any:
        return (
            {
                n: (r.cluster_name, r.next_assign_broker_id, {b: (e.address, e.register_check_code) for b, e in r.broker_id_table.items()})
                for n, r in m.replica_info_table.items()
            },
            {
                n: (s.master_broker_id, s.master_epoch, s.sync_state_set, s.sync_state_set_epoch)
                for n, s in m.sync_state_set_info_table.items()
            },
        )

    assert snapshot(follower) == snapshot(ctl.replicas_info)
    assert snapshot(follower)[0]["broker-a"][2][2] == ("10.9.9.9", "10.0.0.2;0")
    assert snapshot(follower)[1]["broker-a"] == (2, 2, frozenset({2}), 3)


@pytest.mark.parametrize(
    ("reports", "winner"),
    [
        ({2: (1, 0, 0), 3: (2, 0, 0)}, 3),  # higher epoch
        ({2: (1, 5, 0), 3: (1, 7, 0)}, 3),  # then higher maxOffset
        ({2: (1, 5, 2), 3: (1, 5, 1)}, 3),  # then lower priority value
        ({3: (1, 5, 1), 2: (1, 5, 1)}, 2),  # then lower id
    ],
)
def test_elect_policy_rank(reports: dict[int, tuple[int, int, int]], winner: int) -> None:
    ctl = ControllerManager()
    for broker_id in (1, 2, 3):
        _register(ctl, "b", broker_id, f"10.0.0.{broker_id}")
    ctl.elect_master(ElectMasterRequest(C, "b", 1))
    ctl.alter_sync_state_set(AlterSyncStateSetRequest(C, "b", 1, 1, frozenset({1, 2, 3}), 1))
    ctl.failover()
    for broker_id, (epoch, offset, priority) in reports.items():
        ctl.broker_heartbeat(BrokerHeartbeatRequest(C, "b", broker_id, epoch, offset, priority))
    response = ctl.scan_inactive_master(C, "b")
    assert response.code == ResponseCode.SUCCESS and response.header["masterId"] == winner
    assert response.header["masterEpoch"] == 2 and response.header["syncStateSetEpoch"] == 3


def test_heartbeat_progress_only_moves_forward() -> None:
    ctl = ControllerManager()
    hb = ctl.heartbeat_manager
    assert hb.on_broker_heartbeat(C, "b", 1, 3, 10, 1)  # a new entry
    assert hb.on_broker_heartbeat(C, "b", 1, 2, 99, 4)  # only the priority moves
    info = hb.live_table(C, "b")[1]
    assert (info.epoch, info.max_offset, info.election_priority) == (3, 10, 4)
    assert not hb.on_broker_heartbeat(C, "b", 1, 2, 99, 4)  # nothing to log (the event log's alive line)


# ---- storage and metadata ----------------------------------------------------------------------------


def test_file_storage_round_trips_and_deletes(tmp_path: Any) -> None:
    store = FileStorage(str(tmp_path / "p1"))
    assert store.read(META_FILE) is None and not store.exists(META_FILE)
    store.write(META_FILE, "DefaultCluster#broker-a#3")
    store.write(TEMP_META_FILE, "DefaultCluster#broker-a#4#10.0.0.1;0")
    assert FileStorage(str(tmp_path / "p1")).read(META_FILE) == "DefaultCluster#broker-a#3"  # a fresh reader
    assert load_temp(store) == TempBrokerMetadata(C, "broker-a", 4, "10.0.0.1;0")
    store.delete(TEMP_META_FILE)
    assert not store.exists(TEMP_META_FILE) and store.read(TEMP_META_FILE) is None
    store.delete(TEMP_META_FILE)  # deleting a missing file is fine
    assert sorted(os.listdir(tmp_path / "p1")) == [META_FILE]
    with pytest.raises(ValueError):
        store.write("../escape", "x")


def test_file_storage_write_is_atomic(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileStorage(str(tmp_path))
    store.write(META_FILE, "DefaultCluster#broker-a#1")

    def crash_before_rename(src: str, dst: str) -> None:
        raise OSError("power loss")

    monkeypatch.setattr(os, "replace", crash_before_rename)
    with pytest.raises(OSError):
        store.write(META_FILE, "DefaultCluster#broker-a#2")
    assert store.read(META_FILE) == "DefaultCluster#broker-a#1"  # the old content, whole
    assert os.listdir(tmp_path) == [META_FILE]  # no partial file left behind


def test_metadata_encoding() -> None:
    meta = BrokerMetadata(C, "broker-a", 12)
    assert meta.encode() == "DefaultCluster#broker-a#12"
    assert BrokerMetadata.decode(meta.encode()) == meta
    temp = TempBrokerMetadata(C, "broker-a", 2, "10.0.0.1:10911;1700000000")
    assert TempBrokerMetadata.decode(temp.encode()) == temp


def _broker(storage: Any, ctl: ControllerManager, cluster: str = C, name: str = "p1", addr: str = "10.0.0.1") -> BrokerProcess:
    masters: list[tuple[str, int]] = []
    return BrokerProcess(
        name, BrokerConfig(cluster, "broker-a"), storage, addr, ControllerClient(ctl), CheckCodeClock(), lambda p, e: masters.append((p, e))
    )


def test_meta_file_of_another_cluster_refuses_to_register(tmp_path: Any) -> None:
    """checkMetadataValid: the meta file is loaded, but register() sends nothing and the state stays."""
    store = FileStorage(str(tmp_path))
    store.write(META_FILE, BrokerMetadata("OtherCluster", "broker-a", 1).encode())
    ctl = ControllerManager()
    broker = _broker(store, ctl)
    broker.replicas_manager.load_meta_file()
    assert broker.register_state is RegisterState.META_DONE
    assert broker.replicas_manager.send_register() is False
    assert broker.register_state is RegisterState.META_DONE
    assert broker.client.last_response is None and not ctl.event_log.entries
    assert not belongs_to(load_meta(store), C, "broker-a") and belongs_to(load_meta(store), "OtherCluster", "broker-a")


# ---- broker ----------------------------------------------------------------------------------------


def test_registration_crash_and_restart_with_new_address() -> None:
    ctl = ControllerManager()
    disk = MemoryStorage()
    broker = _broker(disk, ctl)
    m = broker.replicas_manager
    with pytest.raises(IllegalStateError):
        m.load_meta_file()  # no meta file yet
    m.create_temp_file()
    m.send_apply_broker_id()
    m.write_meta_file()
    m.delete_temp_file()
    m.send_register()
    m.send_elect_master()
    assert (m.state, m.role, m.master_epoch) == (RegisterState.REGISTERED, Role.MASTER, 1)
    assert disk.read(META_FILE) == "DefaultCluster#broker-a#1" and not disk.exists(TEMP_META_FILE)

    broker.crash()
    assert broker.register_state is RegisterState.DOWN and broker.replicas_manager is None
    with pytest.raises(IllegalStateError):
        broker.crash()
    broker.restart("10.0.0.9")
    m = broker.replicas_manager
    assert (m.state, m.role, m.master_epoch) == (RegisterState.INITIAL, Role.NONE, 0)
    m.load_meta_file()
    m.send_register()
    assert ctl.replicas_info.replica_info_table["broker-a"].broker_id_table[1].address == "10.0.0.9"
    assert m.role is Role.NONE  # the master is not alive (no heartbeat): nothing adopted


def test_lost_apply_response_fails_locally_but_applies_on_the_controller() -> None:
    ctl = ControllerManager()
    broker = _broker(MemoryStorage(), ctl)
    m = broker.replicas_manager
    m.create_temp_file()
    broker.client.lose_next_response = True
    m.send_apply_broker_id()
    assert m.state is RegisterState.APPLY_FAILED
    assert broker.client.last_response.code == ResponseCode.SUCCESS
    assert 1 in ctl.replicas_info.replica_info_table["broker-a"].broker_id_table
    m.abandon_temp_file()
    assert not broker.storage.exists(TEMP_META_FILE) and m.state is RegisterState.INITIAL
