"""Plan mode's pure helpers: the read-only bash allowlist and the plan-step tracking."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_DESTRUCTIVE = [re.compile(p, re.I) for p in (
    r"\brm\b", r"\brmdir\b", r"\bmv\b", r"\bcp\b", r"\bmkdir\b", r"\btouch\b", r"\bchmod\b", r"\bchown\b",
    r"\bchgrp\b", r"\bln\b", r"\btee\b", r"\btruncate\b", r"\bdd\b", r"\bshred\b", r"(^|[^<])>(?!>)", r">>",
    r"\bnpm\s+(install|uninstall|update|ci|link|publish)", r"\byarn\s+(add|remove|install|publish)",
    r"\bpnpm\s+(add|remove|install|publish)", r"\bpip\s+(install|uninstall)",
    r"\bapt(-get)?\s+(install|remove|purge|update|upgrade)", r"\bbrew\s+(install|uninstall|upgrade)",
    r"\bgit\s+(add|commit|push|pull|merge|rebase|reset|checkout|branch\s+-[dD]|stash|cherry-pick|revert|tag|init|clone)",
    r"\bsudo\b", r"\bsu\b", r"\bkill\b", r"\bpkill\b", r"\bkillall\b", r"\breboot\b", r"\bshutdown\b",
    r"\bsystemctl\s+(start|stop|restart|enable|disable)", r"\bservice\s+\S+\s+(start|stop|restart)",
    r"\b(vim?|nano|emacs|code|subl)\b",
)]

_SAFE_WORDS = ("cat", "head", "tail", "less", "more", "grep", "find", "ls", "pwd", "echo", "printf", "wc", "sort",
               "uniq", "diff", "file", "stat", "du", "df", "tree", "which", "whereis", "type", "env", "printenv",
               "uname", "whoami", "id", "date", "cal", "uptime", "ps", "top", "htop", "free", "jq", "awk", "rg", "fd",
               "bat", "eza")
_SAFE = [re.compile(rf"^\s*{w}\b") for w in _SAFE_WORDS] + [re.compile(p, re.I) for p in (
    r"^\s*git\s+(status|log|diff|show|branch|remote|config\s+--get)", r"^\s*git\s+ls-",
    r"^\s*npm\s+(list|ls|view|info|search|outdated|audit)", r"^\s*yarn\s+(list|info|why|audit)",
    r"^\s*node\s+--version", r"^\s*python\s+--version", r"^\s*curl\s", r"^\s*wget\s+-O\s*-", r"^\s*sed\s+-n",
)]


def is_safe_command(command: str) -> bool:
    """Allowlisted and not destructive (the same lists as Pi's plan mode)."""
    return not any(p.search(command) for p in _DESTRUCTIVE) and any(p.search(command) for p in _SAFE)


@dataclass
class TodoItem:
    step: int
    text: str
    completed: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def clean_step_text(text: str) -> str:
    cleaned = re.sub(r"\*{1,2}([^*]+)\*{1,2}", r"\1", text)
    cleaned = re.sub(r"`([^`]+)`", r"\1", cleaned)
    cleaned = re.sub(r"^(Use|Run|Execute|Create|Write|Read|Check|Verify|Update|Modify|Add|Remove|Delete|Install)"
                     r"\s+(the\s+)?", "", cleaned, flags=re.I)
    cleaned = re.sub(r"\s+", " ", cleaned).strip()
    return cleaned[:1].upper() + cleaned[1:] if cleaned else cleaned


def extract_todo_items(message: str) -> list[TodoItem]:
    """Numbered steps under the last ``Plan:`` header."""
    headers = list(re.finditer(r"\*{0,2}Plan:\*{0,2}\s*\n", message, re.I))
    if not headers:
        return []
    section = message[headers[-1].end():]
    items: list[TodoItem] = []
    for match in re.finditer(r"^\s*(\d+)[.)]\s+(.+)$", section, re.M):
        text = re.sub(r"\*{1,2}$", "", match.group(2).strip()).strip()
        if len(text) > 5 and not text.startswith(("/", "-")):
            cleaned = clean_step_text(text)
            if len(cleaned) > 3:
                items.append(TodoItem(len(items) + 1, cleaned))
    return items


def extract_done_steps(message: str) -> list[int]:
    steps = [int(m.group(1)) for m in re.finditer(r"\[DONE\s*:?\s*(\d+)\]", message, re.I)]
    steps += [int(m.group(1)) for m in re.finditer(r"\bDone\s*:\s*(\d+)\b", message, re.I)]
    steps += [int(m.group(1)) for m in re.finditer(
        r"\bStep\s*(\d+)\s+(?:is\s+)?(?:done|complete|completed|finished)\b", message, re.I)]
    return list(dict.fromkeys(steps))


def mark_completed_steps(text: str, items: list[TodoItem]) -> int:
    marked = 0
    for step in extract_done_steps(text):
        item = next((t for t in items if t.step == step and not t.completed), None)
        if item is not None:
            item.completed = True
            marked += 1
    return marked


def all_steps_complete(message: str) -> bool:
    return bool(re.search(r"(?:all|every)\s+steps?\s+(?:are|is\s+)?(?:done|complete|completed|finished)", message, re.I)
                or re.search(r"\b(?:the\s+)?plan\s+(?:is\s+)?(?:complete|completed|done)\b", message, re.I))
