"""The ``edit`` tool: targeted text replacements in one file.

All ``edits[].oldText`` are matched against the original content (see ``edit_match``);
the file keeps its BOM and line endings; the result's details carry a unified diff and the
first changed line. Pi's older single ``{oldText, newText}`` form, a lone edit object and a
JSON-string ``edits`` are folded into ``edits`` before validation. Runs inside the per-file
mutation queue so parallel edits of one file never lose each other's changes.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..agent.tool import ToolError, ToolParams, ToolResult
from .edit_diff import unified_edit_diff
from .edit_match import apply_edits
from .file_mutation import FileMutationTool

_BOM = "\ufeff"


class EditItem(BaseModel):
    """One replacement. Extra fields a model invents are ignored rather than rejected."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    old_text: str = Field(
        alias="oldText",
        description="Exact text for one targeted replacement. It must be unique in the original "
        "file and must not overlap with any other edits[].oldText in the same call.",
    )
    new_text: str = Field(alias="newText", description="Replacement text for this targeted edit.")


class EditParams(ToolParams):
    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[EditItem] = Field(
        min_length=1,
        description="One or more targeted replacements. Each edit is matched against the "
        "original file, not incrementally. Do not include overlapping or nested edits. If two "
        "changes touch the same block or nearby lines, merge them into one edit instead.",
    )

    @model_validator(mode="before")
    @classmethod
    def _fold_legacy(cls, data: Any) -> Any:
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
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a "
        "unique, non-overlapping region of the original file (whitespace and line breaks "
        "included). If two changes affect the same block or nearby lines, merge them into one "
        "edit. Keep oldText as small as possible while still unique; do not pad it with large "
        "unchanged regions."
    )
    Params = EditParams

    def apply(self, path: str, params: EditParams) -> ToolResult:
        ops = self.file_ops
        info = ops.stat(path)
        if info is None:
            raise ToolError(f"File not found: {params.path}")
        if info.is_dir:
            raise ToolError(f"Path is a directory, not a file: {params.path}")
        if not info.is_file:
            raise ToolError(f"Not a regular file: {params.path}")
        try:
            raw = ops.read_bytes(path)
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"Cannot edit {params.path}: it is not valid UTF-8 text (byte {exc.start}). "
                "Use bash to change binary or differently encoded files."
            ) from exc
        bom = _BOM if text.startswith(_BOM) else ""
        content = text[len(bom):]
        pairs = [(e.old_text, e.new_text) for e in params.edits]
        new_content, reps = apply_edits(content, pairs, params.path)
        diff, first_line = unified_edit_diff(content, new_content, reps, params.path)
        try:
            ops.write_bytes(path, (bom + new_content).encode("utf-8"))
        except PermissionError as exc:
            raise ToolError(f"Permission denied: {params.path}") from exc
        if len(reps) == 1:
            message = f"Successfully replaced text in {params.path}."
        else:
            message = f"Successfully replaced {len(reps)} blocks in {params.path}."
        details = {"diff": diff, "firstChangedLine": first_line}
        if any(r.fuzzy for r in reps):
            details["fuzzyMatch"] = True
        return ToolResult.text(message, details)
