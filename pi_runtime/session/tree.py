"""The session tree as nested nodes, for ``/tree`` views and extensions."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..records import record
from .entries import SessionEntry, parse_entry


@record
class TreeNode:
    """One entry with its children (oldest first) and its resolved label."""

    entry: SessionEntry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None
    raw: dict[str, Any] | None = field(default=None, repr=False)
    """The entry's dict as stored (what Pi wrote, unknown fields included). Do not modify."""


def build_tree(entries: list[dict[str, Any]], labels: dict[str, str]) -> list[TreeNode]:
    """Nest entries under their parents.

    Args:
        entries: Entry dicts in file order.
        labels: Current label per entry id.

    Returns:
        The roots; an entry whose parent is missing (a damaged file) is a root too.
    """
    nodes: dict[str, TreeNode] = {}
    for entry in entries:
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            nodes[entry_id] = TreeNode(parse_entry(entry), label=labels.get(entry_id), raw=entry)
    roots: list[TreeNode] = []
    for entry in entries:
        node = nodes.get(entry.get("id"))  # type: ignore[arg-type]
        if node is None:
            continue
        parent_id = entry.get("parentId")
        parent = nodes.get(parent_id) if isinstance(parent_id, str) and parent_id != entry["id"] else None
        (parent.children if parent is not None else roots).append(node)
    # Iterative, so a 20,000-deep linear session does not hit the recursion limit.
    stack = list(roots)
    while stack:
        node = stack.pop()
        node.children.sort(key=lambda n: n.entry.timestamp)
        stack.extend(node.children)
    return roots
