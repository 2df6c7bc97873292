"""The broker's identity files (RocketMQ ``BrokerMetadata`` / ``TempBrokerMetadata``), MODEL.md §4.

``brokerIdentity`` holds ``clusterName#brokerName#brokerId``: the id the broker owns for ever.
``brokerIdentity-temp`` holds ``clusterName#brokerName#brokerId#registerCheckCode``: the id being applied
for and the checkCode that proves the application was ours. Both are read and written through a
:class:`~autoswitch.impl.storage.Storage`.
"""

from __future__ import annotations

from attrs import frozen

from .storage import Storage

META_FILE = "brokerIdentity"
TEMP_META_FILE = "brokerIdentity-temp"


class CorruptMetadata(RuntimeError):
    """An identity file does not parse."""


def _fields(text: str, name: str, count: int) -> list[str]:
    parts = text.split("#", count - 1)
    if len(parts) != count or not parts[2].isdigit():
        raise CorruptMetadata(f"{name}: cannot parse {text!r}")
    return parts


@frozen
class BrokerMetadata:
    """Content of ``brokerIdentity``."""

    cluster_name: str
    broker_name: str
    broker_id: int

    def encode(self) -> str:
        return f"{self.cluster_name}#{self.broker_name}#{self.broker_id}"

    @classmethod
    def decode(cls, text: str) -> BrokerMetadata:
        cluster_name, broker_name, broker_id = _fields(text, META_FILE, 3)
        return cls(cluster_name, broker_name, int(broker_id))


@frozen
class TempBrokerMetadata:
    """Content of ``brokerIdentity-temp``."""

    cluster_name: str
    broker_name: str
    broker_id: int
    register_check_code: str

    def encode(self) -> str:
        return f"{self.cluster_name}#{self.broker_name}#{self.broker_id}#{self.register_check_code}"

    @classmethod
    def decode(cls, text: str) -> TempBrokerMetadata:
        cluster_name, broker_name, broker_id, check_code = _fields(text, TEMP_META_FILE, 4)
        return cls(cluster_name, broker_name, int(broker_id), check_code)


def belongs_to(identity: BrokerMetadata | TempBrokerMetadata, cluster_name: str, broker_name: str) -> bool:
    """ReplicasManager.checkMetadataValid for one file: it names the configured cluster and broker set.
    A file of another set must not be registered with (the broker would take that set's id)."""
    return identity.cluster_name == cluster_name and identity.broker_name == broker_name


def load_meta(storage: Storage) -> BrokerMetadata | None:
    """The ``brokerIdentity`` file, or None."""
    text = storage.read(META_FILE)
    return None if text is None else BrokerMetadata.decode(text)


def load_temp(storage: Storage) -> TempBrokerMetadata | None:
    """The ``brokerIdentity-temp`` file, or None."""
    text = storage.read(TEMP_META_FILE)
    return None if text is None else TempBrokerMetadata.decode(text)
