"""Finding tools by topic: the BM25 ranking behind ``searchTools()`` and the ``tool_search`` tool.

A tool's document is its description plus its parameters' names and descriptions, with the name
and the namespace (an MCP server: name, description, instructions) as separate fields, as Pi
ranks them:

- a tool that matches more of the query's terms, in any field, ranks above one that matches fewer;
- a query term in the name counts three times its IDF (more than any number of mentions in the
  description), one in the namespace half its IDF; only the description is length-normalised;
- a tool whose whole local name is in the query gets a bonus of one more match of every term;
- a query that is exactly a tool's name (or its ``__``-suffix) ranks that tool first.

Ties keep document order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .declarations import resolve_ref

DEFAULT_LIMIT = 8
NAME_WEIGHT = 3.0
NAMESPACE_WEIGHT = 0.5
_STOP_WORDS = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "with"])


@dataclass(frozen=True)
class Namespace:
    """A group of tools (an MCP server)."""

    name: str
    description: str | None = None
    instructions: str | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchDocument:
    """What the ranker reads of one tool."""

    name: str
    text: str
    namespace_text: str = ""


def _singular(term: str) -> str:
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 4 and re.search(r"(ches|shes|sses|xes|zes)$", term):
        return term[:-2]
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


def tokenize(text: str) -> list[str]:
    """Words of ``text``: identifier parts split (``readFile`` -> read, file), lower case, English stop
    words dropped, ASCII words in a naive singular form."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    words = re.sub(r"[\W_]+", " ", text.lower()).split(" ")
    return [_singular(w) if re.fullmatch(r"[a-z0-9]+", w) else w for w in words if w and w not in _STOP_WORDS]


def _schema_text(schema: Any, root: Any, parts: list[str], seen: list[Any]) -> None:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = resolve_ref(ref, root)
        if isinstance(target, dict) and not any(target is s for s in seen):
            seen.append(target)
            _schema_text(target, root, parts, seen)
    if isinstance(schema.get("description"), str):
        parts.append(schema["description"])
    if isinstance(schema.get("properties"), dict):
        for name, prop in schema["properties"].items():
            parts.append(name)
            _schema_text(prop, root, parts, seen)
    _schema_text(schema.get("items"), root, parts, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list):
            for variant in schema[key]:
                _schema_text(variant, root, parts, seen)


def search_document(name: str, description: str, parameters: Any, namespace: Namespace | None) -> SearchDocument:
    """The searchable text of one tool."""
    parts = [description]
    _schema_text(parameters, parameters, parts, [parameters])
    ns_text = " ".join([namespace.name, namespace.description or "", namespace.instructions or ""]) if namespace else ""
    return SearchDocument(name, " ".join(p for p in parts if isinstance(p, str) and p.strip()), ns_text)


def _normal_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_$]", "_", name.strip().lower())


def rank(query: str, documents: Iterable[SearchDocument], limit: int, k1: float = 1.2, b: float = 0.75) -> list[str]:
    """The names of the best matches for ``query``, best first (see the module docstring)."""
    terms = list(dict.fromkeys(tokenize(query)))
    docs = list(documents)
    if not terms or not docs or limit <= 0:
        return []
    indexed = []
    for doc in docs:
        counts: dict[str, int] = {}
        for term in tokenize(doc.text):
            counts[term] = counts.get(term, 0) + 1
        local = doc.name.split("__")[-1]
        indexed.append((doc.name, set(tokenize(doc.name)), list(dict.fromkeys(tokenize(local))), counts,
                        sum(counts.values()), set(tokenize(doc.namespace_text))))
    average = (sum(entry[4] for entry in indexed) / len(indexed)) or 1
    idf = {}
    for term in terms:
        frequency = sum(1 for e in indexed if term in e[1] or term in e[3] or term in e[5])
        idf[term] = math.log(1 + (len(indexed) - frequency + 0.5) / (frequency + 0.5))
    bonus = sum(idf.values())
    exact_query = _normal_name(query)
    matches = []
    for order, (name, name_terms, local_terms, counts, length, ns_terms) in enumerate(indexed):
        norm = k1 * (1 - b + b * length / average)
        score = 0.0
        covered = 0
        for term in terms:
            count = counts.get(term, 0)
            weight = (NAME_WEIGHT if term in name_terms else 0) + (NAMESPACE_WEIGHT if term in ns_terms else 0) \
                + count * (k1 + 1) / (count + norm)
            if weight > 0:
                covered += 1
            score += idf[term] * weight
        if score == 0:
            continue
        if local_terms and all(t in terms for t in local_terms):
            score += bonus
        normal = _normal_name(name)
        exact = normal == exact_query or normal.endswith("__" + exact_query)
        matches.append((not exact, -covered, -score, order, name))
    matches.sort()
    return [m[4] for m in matches[:limit]]
