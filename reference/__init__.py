"""The reference model: immutable state, one pure function per spec action, invariants as predicates."""

from .designs import initial_system
from .precondition import NotEnabled
from .state import Options, System
from .step import step

__all__ = ["NotEnabled", "Options", "System", "initial_system", "step"]
