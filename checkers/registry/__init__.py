"""Registered checkers and the environment they are resolved in.

registrations (`register`, `REGISTRY`; input specs `real`, `fin`, `nat`,
`index_map` from templates), binding and definition_binding (a registration bound to
the statement and the definitions it was written for), prose (checkers of prose
theorems), environment (the ingested declarations, and which checker a theorem gets).
"""

from checkers.registry.environment import Environment, UnknownTheorem
from checkers.registry.registrations import (
    REGISTRY,
    RegistrationError,
    Registry,
    fin,
    index_map,
    nat,
    real,
    register,
)

__all__ = [
    "REGISTRY",
    "Environment",
    "RegistrationError",
    "Registry",
    "UnknownTheorem",
    "fin",
    "index_map",
    "nat",
    "real",
    "register",
]
