"""A standalone, readable HTML transcript of a session (no scripts, no external assets)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

_CSS = """
body{font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif;max-width:920px;margin:2rem auto;padding:0 1rem;
background:#1b1d23;color:#d7dae0}
h1{font-size:1.2rem;color:#9ecbff}.meta{color:#8b93a1;font-size:.85rem;margin-bottom:2rem}
.msg{margin:1rem 0;padding:.7rem 1rem;border-radius:6px;background:#23262e}
.user{background:#2b3140;border-left:3px solid #7aa2f7}.assistant{border-left:3px solid #9ece6a}
.tool{border-left:3px solid #e0af68;font-size:.9rem}.error{border-left:3px solid #f7768e}
.summary{border-left:3px solid #bb9af7;font-style:italic}
.role{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:#8b93a1;margin-bottom:.3rem}
pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:13px/1.45 ui-monospace,Menlo,monospace}
.thinking{color:#8b93a1;font-style:italic}details summary{cursor:pointer;color:#8b93a1}
"""


def _text_blocks(content: Any) -> list[tuple[str, str]]:
    if isinstance(content, str):
        return [("text", content)]
    out = []
    for block in content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            out.append(("text", block.text))
        elif kind == "thinking":
            out.append(("thinking", block.thinking))
        elif kind == "toolCall":
            out.append(("toolCall", f"{block.name}({json.dumps(block.arguments, ensure_ascii=False, indent=2)})"))
        elif kind == "image":
            out.append(("text", f"[image {block.mime_type}]"))
    return out


def _render(message: Any) -> str:
    role = getattr(message, "role", "")
    esc = html.escape
    if role == "user":
        body = "".join(f"<pre>{esc(t)}</pre>" for _, t in _text_blocks(message.content))
        return f'<div class="msg user"><div class="role">You</div>{body}</div>'
    if role == "assistant":
        parts = []
        for kind, text in _text_blocks(message.content):
            if kind == "thinking":
                parts.append(f'<details><summary>thinking</summary><pre class="thinking">{esc(text)}</pre></details>')
            elif kind == "toolCall":
                parts.append(f'<pre class="call">→ {esc(text)}</pre>')
            else:
                parts.append(f"<pre>{esc(text)}</pre>")
        if message.error_message:
            parts.append(f'<pre class="err">Error: {esc(message.error_message)}</pre>')
        cls = "assistant error" if message.stop_reason == "error" else "assistant"
        return f'<div class="msg {cls}"><div class="role">{esc(message.model)}</div>{"".join(parts)}</div>'
    if role == "toolResult":
        text = "\n".join(t for _, t in _text_blocks(message.content))
        cls = "tool error" if message.is_error else "tool"
        return (f'<div class="msg {cls}"><details><summary>{esc(message.tool_name)} result</summary>'
                f"<pre>{esc(text)}</pre></details></div>")
    if role == "bashExecution":
        return (f'<div class="msg tool"><div class="role">$ {esc(message.command)}</div>'
                f"<pre>{esc(message.output)}</pre></div>")
    if role in ("compactionSummary", "branchSummary"):
        label = "Compaction summary" if role == "compactionSummary" else "Branch summary"
        return f'<div class="msg summary"><div class="role">{label}</div><pre>{esc(message.summary)}</pre></div>'
    if role == "custom" and message.display:
        body = "".join(f"<pre>{esc(t)}</pre>" for _, t in _text_blocks(message.content))
        return f'<div class="msg"><div class="role">{esc(message.custom_type)}</div>{body}</div>'
    return ""


def render_html(title: str, meta: str, messages: list[Any]) -> str:
    body = "\n".join(filter(None, (_render(m) for m in messages)))
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><div class='meta'>{html.escape(meta)}</div>{body}</body></html>"
    )


def export_session_html(session: Any, path: str | None = None) -> str:
    sm = session.session_manager
    ctx_messages = [m for m in session.agent.state.messages if getattr(m, "role", "") != "system"]
    title = sm.session_name or f"pi session {sm.session_id}"
    meta = f"{sm.cwd} · {session.model.ref if session.model else ''}"
    if path is None:
        base = Path(sm.session_file).with_suffix(".html").name if sm.session_file else f"pi-session-{sm.session_id}.html"
        path = str(Path(session.cwd) / base)
    Path(path).write_text(render_html(title, meta, ctx_messages), encoding="utf-8")
    return path
