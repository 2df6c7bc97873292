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


# Module aliases of the states, imported by the modules that test states on every step: Python 3.11 looks an
# enum member up on its class in ~0.6 µs, a module global in ~0.1 µs (``autoswitch bench``).
S_INITIAL = RegisterState.INITIAL
S_TEMP_DONE = RegisterState.TEMP_DONE
S_APPLY_FAILED = RegisterState.APPLY_FAILED
S_ID_APPLIED = RegisterState.ID_APPLIED
S_META_WRITTEN = RegisterState.META_WRITTEN
S_META_DONE = RegisterState.META_DONE
S_REGISTERED = RegisterState.REGISTERED
S_ROLE_NONE = Role.NONE
S_MASTER = Role.MASTER
S_SLAVE = Role.SLAVE
S_HA_NONE = HAState.NONE
S_HA_READY = HAState.READY
S_HA_TRANSFER = HAState.TRANSFER
