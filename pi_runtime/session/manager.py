"""SessionManager: one session as an append-only tree of entries, on disk or in memory.

Appending adds a child of the current leaf and moves the leaf to it; ``branch()`` moves the
leaf back to an earlier entry so the next append starts a new branch; nothing is ever
rewritten. A new session's file appears with the first user or assistant message (as in Pi
1.6), so starting pi and quitting leaves no empty sessions behind, and a crash during the first
reply still leaves the prompt on disk. While a manager has its
file, it holds an exclusive lock on it (see ``storage``).

A save that fails (a full disk) never raises into the conversation (see ``saving``).

Entries are kept as the dicts read from the file; typed views are built on demand.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from . import listing, storage
from .appends import EntryAppends
from .context import Entry, SessionContext, build_session_context, context_of_path, path_to, walk_up
from .entries import CURRENT_SESSION_VERSION, SessionEntry, SessionHeader, parse_entry, parse_header
from .paths import iso_now, new_entry_id, new_session_id, project_session_dir, session_file_name
from .problems import left_out_notice
from .saving import SessionSaving
from .tree import TreeNode, build_tree


class ReadOnlySessionError(storage.SessionFileError):
    """An append was attempted on a session opened read-only."""


class SessionManager(EntryAppends, SessionSaving):
    """Owns one session tree and its file. Use the factory classmethods to get one."""

    def __init__(self, cwd: str, session_dir: Path | None, *, persist: bool, fsync: bool = True) -> None:
        self.cwd = cwd
        self.session_dir = session_dir
        """Folder new files of this project go to (None in memory)."""
        self.persist = persist
        self.fsync = fsync
        self.read_only = False
        self.path: Path | None = None
        self.load_report: storage.LoadResult | None = None
        """Malformed-line count, torn tail, migration of the file this manager opened."""
        self._writer: storage.SessionWriter | None = None
        self._flushed = False
        self._has_conversation = False
        self._unsaved: builtins.list[Entry] = []
        """Entries a failed append could not write; they go first in the next one."""
        self._first_save_failed = False
        self.save_error: str | None = None
        """Why the last save failed, while entries are still unsaved (None when all is saved)."""
        self._notices: builtins.list[str] = []
        self._reported_unreadable: set[str] = set()
        self._new_session()

    # ------------------------------------------------------------------ factories

    @classmethod
    def create(cls, cwd: str, session_dir: str | os.PathLike[str] | None = None, *, session_id: str | None = None,
               parent_session: str | None = None, fsync: bool = True) -> SessionManager:
        """A new persistent session (its file is written with the first user or assistant message).

        Args:
            cwd: Working directory recorded in the header.
            session_dir: Folder for the file; ``<sessions>/--<cwd>--`` by default.
            session_id: A chosen id (``--session-id``); a UUIDv7 otherwise.
            parent_session: Path recorded as ``parentSession``.
            fsync: False relaxes durability (no fsync per append).

        Returns:
            The manager.
        """
        directory = Path(session_dir) if session_dir is not None else project_session_dir(cwd)
        manager = cls(cwd, directory, persist=True, fsync=fsync)
        manager._new_session(session_id=session_id, parent_session=parent_session)
        return manager

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        """A session that is never written to disk."""
        return cls(cwd or os.getcwd(), None, persist=False)

    @classmethod
    def open(cls, path: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None, *,
             cwd: str | None = None, read_only: bool = False,
             if_locked: Literal["error", "read_only"] = "error", fsync: bool = True) -> SessionManager:
        """Open a session file (a missing or empty file becomes a new session at that path).

        Args:
            path: The ``.jsonl`` file.
            session_dir: Folder for files this manager creates later (branched sessions).
            cwd: Working directory when the file has none; the process cwd otherwise.
            read_only: Do not lock or modify the file; appends raise.
            if_locked: What to do when another process writes to it: raise
                ``SessionLockedError`` or fall back to read-only.
            fsync: False relaxes durability.

        Returns:
            The manager, leaf at the last entry of the file.

        Raises:
            NotASessionFileError: The file has content but is not a session (left untouched).
            SessionLockedError: Locked by another process and ``if_locked == "error"``.
        """
        file = Path(path).resolve()
        directory = Path(session_dir) if session_dir is not None else file.parent
        manager = cls(cwd or os.getcwd(), directory, persist=True, fsync=fsync)
        manager.path = file
        if not file.exists():
            return manager
        if not read_only:
            try:
                writer, result = storage.open_for_writing(file, fsync=fsync)
            except storage.SessionLockedError:
                if if_locked != "read_only":
                    raise
                read_only = True
            else:
                manager._writer = writer
                manager._adopt(result, cwd)
                return manager
        result = storage.read_only(file)
        manager.read_only = True
        manager._adopt(result, cwd)
        return manager

    @classmethod
    def continue_recent(cls, cwd: str, session_dir: str | os.PathLike[str] | None = None, **kwargs: Any) -> SessionManager:
        """Open the project's most recently modified session, or create one if it has none."""
        directory = Path(session_dir) if session_dir is not None else project_session_dir(cwd)
        recent = listing.newest_session_in(directory)
        if recent is None:
            return cls.create(cwd, directory, fsync=kwargs.get("fsync", True))
        return cls.open(recent, directory, cwd=cwd, **kwargs)

    @classmethod
    def fork_from(cls, source: str | os.PathLike[str], cwd: str, session_dir: str | os.PathLike[str] | None = None,
                  *, fsync: bool = True, session_id: str | None = None) -> SessionManager:
        """Copy a whole session (every branch) into a new session of ``cwd``.

        Args:
            source: The session file to copy (read without locking; it is not modified).
            cwd: Working directory of the new session.
            session_dir: Folder for the new file.
            fsync: Durability of the new file.
            session_id: The new session's id (``--fork X --session-id Y``); a new UUIDv7 otherwise.

        Returns:
            The new manager, with ``parentSession`` pointing at the source.
        """
        src = Path(source).resolve()
        loaded = storage.read_only(src)
        if loaded.header is None:
            raise storage.NotASessionFileError(f"{src} is empty, there is nothing to fork")
        manager = cls.create(cwd, session_dir, session_id=session_id, parent_session=str(src), fsync=fsync)
        manager._set_entries([dict(e) for e in loaded.entries])
        manager._flush_if_ready()
        return manager

    @staticmethod
    def list(cwd: str, session_dir: str | os.PathLike[str] | None = None) -> builtins.list[listing.SessionInfo]:
        """Sessions of a project, newest first (cheap metadata, see ``listing``)."""
        if session_dir is None:
            return listing.list_sessions(cwd)
        infos = [i for i in map(listing.read_session_info, listing.session_files(Path(session_dir))) if i]
        return sorted(infos, key=lambda i: i.modified, reverse=True)

    @staticmethod
    def list_all(sessions_root: str | os.PathLike[str] | None = None) -> builtins.list[listing.SessionInfo]:
        """Sessions of every project, newest first."""
        return listing.list_all_sessions(sessions_root)

    @classmethod
    def replica(cls, header: Entry, entries: builtins.list[Entry], leaf_id: str | None) -> SessionManager:
        """A read-only copy of a session another process owns (a ``pi serve`` viewer's), kept
        current with :meth:`replicate`; appends raise ``ReadOnlySessionError``.

        Args:
            header: The session header line.
            entries: Every entry in file order (kept, not copied: do not modify them).
            leaf_id: Where the owner's leaf is.
        """
        manager = cls(str(header.get("cwd") or os.getcwd()), None, persist=False)
        manager.header = header
        manager._set_entries(entries)
        manager._leaf_id = leaf_id
        manager.read_only = True
        return manager

    def replicate(self, entries: builtins.list[Entry], leaf_id: str | None) -> None:
        """Take the entries the owner appended since (in file order) and where its leaf is now."""
        for entry in entries:
            self._add(entry)
        self._leaf_id = leaf_id

    @staticmethod
    def find(id_or_prefix: str, cwd: str | None = None, sessions_root: str | os.PathLike[str] | None = None) -> Path | None:
        """A session file by id or id prefix, current project first, then every project."""
        return listing.find_session_file(id_or_prefix, cwd, sessions_root)

    # ------------------------------------------------------------------ state

    def _new_session(self, session_id: str | None = None, parent_session: str | None = None) -> None:
        timestamp = iso_now()
        self.header: Entry = {"type": "session", "version": CURRENT_SESSION_VERSION,
                              "id": session_id or new_session_id(), "timestamp": timestamp, "cwd": self.cwd}
        if parent_session:
            self.header["parentSession"] = parent_session
        self._set_entries([])
        self._flushed = False
        self._unsaved = []
        self._first_save_failed = False
        self.save_error = None
        if self.persist and self.session_dir is not None:
            self.path = self.session_dir / session_file_name(timestamp, self.header["id"])

    def _adopt(self, result: storage.LoadResult, cwd: str | None) -> None:
        self.load_report = result
        self._notices.extend(result.warnings)
        if result.header is None:  # an empty file: a new session written into it
            path = self.path
            self._new_session()
            self.path = path
            if self._writer is not None:
                # As Pi: the empty file gets its header at once (it is a session from now on).
                self._flushed = True
                self._write([self.header])
            return
        self.header = result.header
        if isinstance(self.header.get("cwd"), str) and self.header["cwd"]:
            self.cwd = self.header["cwd"]
        elif cwd:
            self.cwd = cwd
        self._set_entries(result.entries)
        self._flushed = True

    def _set_entries(self, entries: builtins.list[Entry]) -> None:
        self._entries = entries
        self._by_id: dict[str, Entry] = {}
        self._labels: dict[str, str] = {}
        self._kinds: set[str] = set()
        """The entry types present (every message entry's included: the fast path below takes only
        messages, after the first one went through ``_index``)."""
        self._leaf_id: str | None = None
        self._has_conversation = False
        by_id = self._by_id
        index = self._index
        conversation = False
        chained = True
        previous = None
        for entry in entries:
            entry_id = entry.get("id")
            if chained and entry.get("parentId") != previous:
                chained = False
            previous = entry_id
            # Fast path for the bulk of a file: message entries once the conversation began.
            if conversation and type(entry_id) is str and entry.get("type") == "message":
                by_id[entry_id] = entry
            else:
                index(entry)
                conversation = self._has_conversation
        if conversation:  # the fast path did not move the leaf: the last entry with an id
            self._leaf_id = next((e["id"] for e in reversed(entries) if isinstance(e.get("id"), str)), None)
        self._chained = chained and len(by_id) == len(entries)  # and every id a distinct string
        """Whether each entry's parent is the entry before it (a session that never branched): the
        path from the last entry is then the list of entries itself, no walk through 20,000 links."""

    def _add(self, entry: Entry) -> None:
        """Put a new entry at the end of the tree (writing it is the caller's part)."""
        if self._chained:
            entry_id = entry.get("id")
            last = self._entries[-1].get("id") if self._entries else None
            self._chained = type(entry_id) is str and entry_id not in self._by_id and entry.get("parentId") == last
        self._entries.append(entry)
        self._index(entry)

    def _is_whole_file(self, leaf_id: str | None) -> bool:
        """Whether the path to ``leaf_id`` is every entry in file order (see ``_chained``)."""
        return self._chained and bool(self._entries) and leaf_id == self._entries[-1]["id"]

    def _path(self, leaf_id: str | None) -> builtins.list[Entry]:
        """The root-first path to ``leaf_id`` (only read it: it may be the list of entries itself)."""
        return self._entries if self._is_whole_file(leaf_id) else path_to(self._by_id, leaf_id)

    def _index(self, entry: Entry) -> None:
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            self._by_id[entry_id] = entry
            self._leaf_id = entry_id
        kind = entry.get("type")
        if type(kind) is str:
            self._kinds.add(kind)
        if kind == "label" and isinstance(entry.get("targetId"), str):
            if entry.get("label"):
                self._labels[entry["targetId"]] = entry["label"]
            else:
                self._labels.pop(entry["targetId"], None)
        elif kind == "message" and not self._has_conversation:
            message = entry.get("message")
            self._has_conversation = isinstance(message, dict) and message.get("role") in ("user", "assistant")

    @property
    def session_id(self) -> str:
        return self.header["id"]

    @property
    def session_file(self) -> Path | None:
        """Where the session is (or will be) stored; None in memory."""
        return self.path if self.persist else None

    @property
    def unsaved_file(self) -> bool:
        """A session meant for a file that is not written yet (nothing said in it so far)."""
        return self.persist and not self._flushed

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    def get_header(self) -> SessionHeader:
        return parse_header(self.header)

    # ------------------------------------------------------------------ appending

    def _append(self, kind: str, fields: dict[str, Any], *, lead: dict[str, Any] | None = None) -> str:
        """Append an entry: ``type``, then ``lead`` (fields Pi writes before the ids), the ids and
        time, then ``fields``."""
        if self.read_only:
            raise ReadOnlySessionError(f"Session {self.path} is open read-only; nothing can be added to it")
        entry: Entry = {"type": kind, **(lead or {}), "id": new_entry_id(self._by_id), "parentId": self._leaf_id,
                        "timestamp": iso_now()}
        entry.update(fields)
        line = None
        if self.persist:
            # Encoded before the entry joins the tree: one that cannot be written would stay in
            # memory only, and the entries after it would reach the file with a parent it lacks.
            try:
                line = storage.dumps_line(entry)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"A {kind} entry cannot be saved to the session file: {exc}") from None
        self._add(entry)
        if self._flushed:
            self._write([entry], {id(entry): line} if line is not None else None)
        else:
            self._flush_if_ready()
        return entry["id"]

    # ------------------------------------------------------------------ reading the tree

    def raw_entries(self) -> builtins.list[Entry]:
        """Every entry dict in file order (do not modify them)."""
        return self._entries

    def has_entries_of(self, kind: str) -> bool:
        """Whether any entry has type ``kind`` (without a pass over every entry)."""
        return kind in self._kinds

    def get_entries(self) -> builtins.list[SessionEntry]:
        """Every entry, typed, in file order."""
        return [parse_entry(e) for e in self._entries]

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        raw = self._by_id.get(entry_id)
        return parse_entry(raw) if raw is not None else None

    def get_leaf_entry(self) -> SessionEntry | None:
        return self.get_entry(self._leaf_id) if self._leaf_id else None

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_children(self, entry_id: str) -> builtins.list[SessionEntry]:
        return [parse_entry(e) for e in self._entries if e.get("parentId") == entry_id]

    def get_branch(self, from_id: str | None = None) -> builtins.list[SessionEntry]:
        """The path from the root down to ``from_id`` (default: the leaf), typed."""
        return [parse_entry(e) for e in self._path(from_id or self._leaf_id)]

    def raw_branch(self, from_id: str | None = None) -> builtins.list[Entry]:
        """Like ``get_branch`` but the entry dicts themselves (cheap; do not modify them)."""
        return list(self._path(from_id or self._leaf_id))

    def walk_back(self) -> Iterator[Entry]:
        """The entry dicts from the leaf up to the root, lazily (do not modify them)."""
        return walk_up(self._by_id, self._leaf_id)

    def get_tree(self) -> builtins.list[TreeNode]:
        """Every entry as a forest with children lists and labels; orphans become roots."""
        return build_tree(self._entries, self._labels)

    @property
    def session_name(self) -> str | None:
        """The latest ``session_info`` name in the file (None when unset or cleared)."""
        for entry in reversed(self._entries):
            if entry.get("type") == "session_info":
                name = entry.get("name")
                return name.strip() or None if isinstance(name, str) else None
        return None

    def build_session_context(self) -> SessionContext:
        """The model context of the active path (see ``context``)."""
        leaf = self._leaf_id
        # (A leaf that is not in the file, as a replica's may be for a moment, falls back to the last entry.)
        context = (context_of_path(self._entries) if self._is_whole_file(leaf)
                   else build_session_context(self._by_id, leaf))
        fresh = [i for i in context.left_out if i not in self._reported_unreadable]
        if fresh:
            self._reported_unreadable.update(fresh)
            lines = self.load_report if self.load_report and self._entries is self.load_report.entries else None
            self._notices.append(left_out_notice(str(self.path or "session"), fresh, self._by_id, self._entries, lines))
        return context

    def context_at(self, entry_id: str | None) -> SessionContext:
        """The model context of the path ending at ``entry_id`` (a preview; the leaf stays where it is)."""
        return build_session_context(self._by_id, entry_id)

    # ------------------------------------------------------------------ moving in the tree

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an entry; the next append starts a branch there (nothing is written)."""
        if entry_id not in self._by_id:
            raise KeyError(f"Entry {entry_id} not found")
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry; the next append becomes a new root."""
        self._leaf_id = None

    def create_branched_session(self, leaf_id: str) -> Path | None:
        """Copy the root→``leaf_id`` path into a new session and switch to it.

        Labels of entries on the path come along. The new header's ``parentSession`` is this
        session's file. Returns the new file (None in memory).
        """
        copied, labels = self._branch_copy(leaf_id)
        parent = self._parent_reference()
        self.close()
        self.read_only = False
        self._new_session(parent_session=parent)
        self._adopt_branch(copied, labels)
        return self.session_file

    def branched_copy(self, leaf_id: str | None) -> SessionManager:
        """A new session in the same folder holding the root→``leaf_id`` path (empty for None);
        this session, its file and its lock are left as they are.

        What a second session of the same process forks or clones into (``pi_runtime.sibling``);
        ``create_branched_session`` is the same copy made in place.
        """
        copied, labels = self._branch_copy(leaf_id) if leaf_id is not None else ([], {})
        # An empty session is no fork: it names no parent (``/resume`` would show it under this one).
        parent = self._parent_reference() if leaf_id is not None else None
        if self.persist and self.session_dir is not None:
            copy = SessionManager.create(self.cwd, self.session_dir, parent_session=parent, fsync=self.fsync)
        else:
            copy = SessionManager.in_memory(self.cwd)
        copy._adopt_branch(copied, labels)
        return copy

    def _parent_reference(self) -> str | None:
        """This session's file as a copy's ``parentSession`` (None until it is on disk)."""
        return str(self.path) if self.persist and self.path is not None and self._flushed else None

    def _branch_copy(self, leaf_id: str) -> tuple[builtins.list[Entry], dict[str, str]]:
        path = self._path(leaf_id)
        if not path:
            raise KeyError(f"Entry {leaf_id} not found")
        on_path = {e["id"] for e in path}
        labels = {t: lbl for t, lbl in self._labels.items() if t in on_path}
        return [dict(e) for e in path if e.get("type") != "label"], labels

    def _adopt_branch(self, copied: builtins.list[Entry], labels: dict[str, str]) -> None:
        self._set_entries(copied)
        for target, label in labels.items():
            self._add({"type": "label", "id": new_entry_id(self._by_id), "parentId": self._leaf_id,
                       "timestamp": iso_now(), "targetId": target, "label": label})
        self._flush_if_ready()

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Release the file lock; later appends reopen (and relock) the file.

        Entries an earlier save could not write get one more try first (the disk may have room
        again): after this, what is not in the file is gone once the process ends.
        """
        self.save_pending()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

