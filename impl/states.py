"""The states a broker moves through (MODEL.md §4-§5) and the error of an operation called outside them.

``RegisterState`` is the registration of a ``ReplicasManager`` (DOWN: a process without one), ``Role``
its role in the broker set, ``HAState`` the connection state of its HA client.
"""

from __future__ import annotations

from enum import StrEnum


class IllegalStateError(Exception):
    """The broker is not in a state where this operation applies (the spec action is not enabled)."""


class RegisterState(StrEnum):
    """Registration states (reference ``state.py``); DOWN is a process without volatile state."""

    DOWN = "DOWN"
    INITIAL = "INITIAL"
    TEMP_DONE = "TEMP_DONE"
    APPLY_FAILED = "APPLY_FAILED"
    ID_APPLIED = "ID_APPLIED"
    META_WRITTEN = "META_WRITTEN"
    META_DONE = "META_DONE"
    REGISTERED = "REGISTERED"


class Role(StrEnum):
    """A broker's role in its set (RocketMQ ``BrokerRole``); NONE before it learns a master."""

    NONE = "NONE"
    MASTER = "MASTER"
    SLAVE = "SLAVE"


class HAState(StrEnum):
    """HA connection state of a slave (RocketMQ ``HAConnectionState``); NONE for a process that is not a slave."""

    NONE = "NONE"
    READY = "READY"
    TRANSFER = "TRANSFER"
