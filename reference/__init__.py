"""The reference model: immutable state, one pure function per spec action, invariants as predicates."""

from .precondition import NotEnabled
from .state import Options, System, initial_system
from .step import step

__all__ = ["NotEnabled", "Options", "System", "initial_system", "step"]
