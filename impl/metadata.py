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


class BrokerIdentityMismatch(RuntimeError):
    """An identity file belongs to another broker set than the configured one: the broker must not
    register with it (it would steal that set's id)."""


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


def _check_identity(name: str, cluster_name: str, broker_name: str, expected: tuple[str, str]) -> None:
    if (cluster_name, broker_name) != expected:
        raise BrokerIdentityMismatch(
            f"{name} belongs to cluster {cluster_name!r} broker {broker_name!r}, "
            f"but this broker is configured as cluster {expected[0]!r} broker {expected[1]!r}: refusing to register"
        )


def load_meta(storage: Storage, expected: tuple[str, str] | None = None) -> BrokerMetadata | None:
    """The ``brokerIdentity`` file, or None; with ``expected`` (clusterName, brokerName) a file of another
    broker set raises :class:`BrokerIdentityMismatch`."""
    text = storage.read(META_FILE)
    if text is None:
        return None
    meta = BrokerMetadata.decode(text)
    if expected is not None:
        _check_identity(META_FILE, meta.cluster_name, meta.broker_name, expected)
    return meta


def load_temp(storage: Storage, expected: tuple[str, str] | None = None) -> TempBrokerMetadata | None:
    """The ``brokerIdentity-temp`` file, or None; checked against ``expected`` as :func:`load_meta`."""
    text = storage.read(TEMP_META_FILE)
    if text is None:
        return None
    temp = TempBrokerMetadata.decode(text)
    if expected is not None:
        _check_identity(TEMP_META_FILE, temp.cluster_name, temp.broker_name, expected)
    return temp
