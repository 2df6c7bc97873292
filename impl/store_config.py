"""A broker's configured role in the designs RIP-44 replaced, on its disk: the ``broker.conf`` properties of
RocketMQ's ``MessageStoreConfig`` the model reads (reference ``Process.broker_role``, the variable ``brokerRole``).

- RocketMQ 4.x master-slave (``impl/master_slave.py``): ``brokerRole`` is ``SYNC_MASTER``, ``ASYNC_MASTER`` or
  ``SLAVE``, and a slave's ``haMasterAddress`` names the master it follows (here by broker id: the model's address
  of a master is its id);
- DLedger mode (``impl/dledger.py``): ``enableDLegerCommitLog=true`` (the role is DLedger's, not configured).

A controller-mode broker has no ``broker.conf``. The file is written whole through the storage (atomically on a
:class:`~autoswitch.impl.storage.FileStorage`): by the operator (:func:`provision`, and the 4.x failover) only.
"""

from __future__ import annotations

from enum import StrEnum

from attrs import frozen

from .config import BrokerConfig
from .metadata import META_FILE, BrokerMetadata
from .protocol import NO_MASTER_ID
from .storage import Storage

STORE_CONFIG_FILE = "broker.conf"


class BrokerRole(StrEnum):
    """RocketMQ 4.x ``BrokerRole``."""

    ASYNC_MASTER = "ASYNC_MASTER"
    SYNC_MASTER = "SYNC_MASTER"
    SLAVE = "SLAVE"


@frozen
class MessageStoreConfig:
    """The ``broker.conf`` properties of one broker."""

    broker_role: BrokerRole | None = None
    ha_master_address: int = NO_MASTER_ID
    enable_dleger_commit_log: bool = False

    @property
    def is_master(self) -> bool:
        return self.broker_role is BrokerRole.SYNC_MASTER or self.broker_role is BrokerRole.ASYNC_MASTER

    def encode(self) -> str:
        if self.enable_dleger_commit_log:
            return "enableDLegerCommitLog=true\n"
        lines = [f"brokerRole={self.broker_role}"]
        if self.ha_master_address != NO_MASTER_ID:
            lines.append(f"haMasterAddress={self.ha_master_address}")
        return "\n".join(lines) + "\n"

    @classmethod
    def decode(cls, text: str) -> MessageStoreConfig:
        props = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        if props.get("enableDLegerCommitLog") == "true":
            return cls(enable_dleger_commit_log=True)
        return cls(BrokerRole(props["brokerRole"]), int(props.get("haMasterAddress", NO_MASTER_ID)))


def load_store_config(storage: Storage) -> MessageStoreConfig | None:
    """The broker's ``broker.conf``, or None (a controller-mode broker)."""
    text = storage.read(STORE_CONFIG_FILE)
    return None if text is None else MessageStoreConfig.decode(text)


def save_store_config(storage: Storage, config: MessageStoreConfig) -> None:
    """The operator writes a broker's ``broker.conf``."""
    storage.write(STORE_CONFIG_FILE, config.encode())


def provision(storage: Storage, config: BrokerConfig, broker_id: int, store_config: MessageStoreConfig) -> None:
    """InitDesign (spec/Designs.tla) for one broker's disk, before it first starts: its configured id (the identity
    file, as in controller mode) and its ``broker.conf``."""
    storage.write(META_FILE, BrokerMetadata(config.cluster_name, config.broker_name, broker_id).encode())
    save_store_config(storage, store_config)


def initial_configs(processes: list[str], design: str, sync_master: bool) -> dict[str, tuple[int, MessageStoreConfig]]:
    """InitDesign (spec/Designs.tla): each process's id and ``broker.conf``, ids 1..n in name order. 4.x
    (``masterslave``): the first is the master (SYNC_MASTER or ASYNC_MASTER), the others its slaves; ``dledger``:
    every one a DLedger member."""
    configs = {}
    for broker_id, name in enumerate(sorted(processes), start=1):
        if design == "dledger":
            config = MessageStoreConfig(enable_dleger_commit_log=True)
        elif design != "masterslave":
            raise ValueError(f"unknown design {design!r}: one of masterslave, dledger")
        elif broker_id == 1:
            config = MessageStoreConfig(BrokerRole.SYNC_MASTER if sync_master else BrokerRole.ASYNC_MASTER)
        else:
            config = MessageStoreConfig(BrokerRole.SLAVE, 1)
        configs[name] = broker_id, config
    return configs
