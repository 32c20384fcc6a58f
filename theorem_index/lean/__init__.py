"""Lean 4 statements as term trees: parse, print, resolve names, analyse declarations."""

from .analysis import Analysis, LocatedParseError, analyse_declaration
from .binding_printer import print_binder, print_binders
from .canonical import (
    Difference,
    canonical,
    first_difference,
    parse_definition,
    parse_signature,
)
from .errors import LeanParseError
from .free import free_names
from .hypotheses import hypotheses, is_proposition
from .known import KnownNames
from .parser import MAX_DEPTH, parse_binders, parse_term
from .printer import print_term
from .resolve import ResolvedTerm, resolve, type_head
from .sexpr import to_sexpr
from .syntax import Binder, Term, from_json, to_json

__all__ = [
    "MAX_DEPTH",
    "Analysis",
    "Binder",
    "Difference",
    "KnownNames",
    "LeanParseError",
    "LocatedParseError",
    "ResolvedTerm",
    "Term",
    "analyse_declaration",
    "canonical",
    "first_difference",
    "free_names",
    "hypotheses",
    "is_proposition",
    "from_json",
    "parse_binders",
    "parse_definition",
    "parse_signature",
    "parse_term",
    "print_binder",
    "print_binders",
    "print_term",
    "resolve",
    "to_json",
    "to_sexpr",
    "type_head",
]
