"""The ``edit`` tool: targeted text replacements in one file.

All ``edits[].oldText`` are matched against the original content (see ``edit_match``);
the file keeps its BOM and line endings; the result's details carry Pi's display diff, a
unified patch and the first changed line (see ``edit_diff``). Pi's older single ``{oldText, newText}`` form, a lone edit object and a
JSON-string ``edits`` are folded into ``edits`` before validation. Runs inside the per-file
mutation queue so parallel edits of one file never lose each other's changes. Files over
``MAX_EDIT_BYTES`` are refused from their size, before anything is read; the file is read
in chunks and every step checks the abort signal (see ``file_mutation``).
"""

from __future__ import annotations

import json
from typing import Any

from ..agent.tool import PREFER_STRICT_SCHEMA, ToolError, ToolParams, ToolResult
from ..ai.abort import AbortSignal
from ..jsonmodel import ConfigDict, Field, JsonModel
from .file_mutation import FileMutationTool, checkpoint
from .file_write import NotRegularFileError
from .operations import FileOperations
from .truncate import format_size

_BOM = "\ufeff"
_READ_CHUNK = 4 * 1024 * 1024

MAX_EDIT_BYTES = 0x1FFFFFE8
"""Largest file edit will load (512 MiB less 24 bytes). Pi cannot edit past this size either:
its file text becomes one JavaScript string, and V8 refuses a string longer than this."""


def _too_large(shown_path: str, size: int) -> ToolError:
    return ToolError(
        f"Cannot edit {shown_path}: the file is {format_size(size)}, more than edit's limit of "
        f"{format_size(MAX_EDIT_BYTES)}. Change files this large with bash (e.g. sed -i or a script)."
    )


def _read_bounded(ops: FileOperations, path: str, shown_path: str, signal: AbortSignal | None) -> bytes:
    """The whole file, read in chunks so an abort is seen and a file still growing is capped."""
    parts: list[bytes] = []
    total = 0
    with ops.open_read(path) as fh:
        while True:
            checkpoint(signal)
            chunk = fh.read(_READ_CHUNK)
            if not chunk:
                return b"".join(parts)
            total += len(chunk)
            if total > MAX_EDIT_BYTES:
                raise _too_large(shown_path, total)
            parts.append(chunk)


class EditItem(JsonModel):
    # One replacement; extra fields a model invents are ignored rather than rejected. (A comment,
    # not a docstring: a docstring would go to the model as the item's schema description.)

    model_config = ConfigDict(extra="ignore")
    old_text: str = Field(
        alias="oldText",
        description="Exact text for one targeted replacement. It must be unique in the original "
        "file and must not overlap with any other edits[].oldText in the same call.",
    )
    new_text: str = Field(alias="newText", description="Replacement text for this targeted edit.")


class EditParams(ToolParams):
    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[EditItem] = Field(
        description="One or more targeted replacements. Each edit is matched against the "
        "original file, not incrementally. Do not include overlapping or nested edits. If two "
        "changes touch the same block or nearby lines, merge them into one edit instead.",
    )

    @classmethod
    def prepare_input(cls, data: Any) -> Any:
        """Fold the legacy forms (one ``oldText``/``newText`` pair, ``edits`` as a JSON string)."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        edits = data.get("edits")
        if isinstance(edits, str):
            try:
                edits = json.loads(edits)
            except ValueError:
                pass  # validation reports it as not-a-list
        if isinstance(edits, dict):
            edits = [edits]
        if "oldText" in data or "newText" in data:
            legacy = {"oldText": data.pop("oldText", None), "newText": data.pop("newText", None)}
            edits = [*(edits if isinstance(edits, list) else []), legacy]
        if edits is not None:
            data["edits"] = edits
        return data


class EditTool(FileMutationTool):
    name = "edit"
    label = "edit"
    constrained_sampling = PREFER_STRICT_SCHEMA
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a "
        "unique, non-overlapping region of the original file (whitespace and line breaks "
        "included). If two changes affect the same block or nearby lines, merge them into one "
        "edit. Keep oldText as small as possible while still unique; do not pad it with large "
        "unchanged regions."
    )
    Params = EditParams

    def apply(self, path: str, params: EditParams, signal: AbortSignal | None) -> ToolResult:
        if not params.edits:  # checked here, as Pi does, so the model gets these words, not a schema error
            raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
        ops = self.file_ops
        info = ops.stat(path)
        if info is None:
            raise ToolError(f"File not found: {params.path}")
        if info.is_dir:
            raise ToolError(f"Path is a directory, not a file: {params.path}")
        if not info.is_file:
            raise ToolError(f"Not a regular file: {params.path}")
        if info.size > MAX_EDIT_BYTES:
            raise _too_large(params.path, info.size)
        try:
            raw = _read_bounded(ops, path, params.path, signal)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        checkpoint(signal)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"Cannot edit {params.path}: it is not valid UTF-8 text (byte {exc.start}). "
                "Use bash to change binary or differently encoded files."
            ) from exc
        del raw
        checkpoint(signal)
        bom = _BOM if text.startswith(_BOM) else ""
        content = text[len(bom):]
        pairs = [(e.old_text, e.new_text) for e in params.edits]
        # Matching and diffing (difflib, unicodedata) load with the first edit, not with every start-up.
        from .edit_diff import edit_diff
        from .edit_match import apply_edits

        new_content, reps = apply_edits(content, pairs, params.path)
        checkpoint(signal)
        diffs = edit_diff(content, new_content, reps, params.path)
        data = (bom + new_content).encode("utf-8")
        checkpoint(signal)  # the last one: a write that starts is finished
        try:
            ops.write_bytes(path, data)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        except NotRegularFileError as exc:
            raise ToolError(f"Not a regular file: {params.path}") from exc
        except OSError as exc:
            raise ToolError(f"Could not write {params.path}: {exc.strerror or exc}") from exc
        message = f"Successfully replaced {len(reps)} block(s) in {params.path}."  # Pi 1.6's words, one edit or many
        details = {"diff": diffs.diff, "patch": diffs.patch, "firstChangedLine": diffs.first_changed_line}
        if any(r.fuzzy for r in reps):
            details["fuzzyMatch"] = True
        return ToolResult.text(message, details)
