"""``ctx.model_registry.complete`` with hostile arguments: an error result each time, no hang,
and the session goes on."""

from __future__ import annotations

from pi_runtime.ai.providers.scripted import scripted_text

from .conftest import module_of

CASES = {
    "no model": ("None", '{"messages": []}', "None"),
    "wrong role": ("ctx.model", '{"messages": [{"role": "wizard", "content": "hi"}]}', "None"),
    "content not text": ("ctx.model", '{"messages": [{"role": "user", "content": 5}]}', "None"),
    "maxTokens a word": ("ctx.model", '{"messages": [{"role": "user", "content": "hi", "timestamp": 0}]}',
                         '{"maxTokens": "x"}'),
    "headers a string": ("ctx.model", '{"messages": [{"role": "user", "content": "hi", "timestamp": 0}]}',
                         '{"headers": "x"}'),
    "signal a string": ("ctx.model", '{"messages": [{"role": "user", "content": "hi", "timestamp": 0}]}',
                        '{"signal": "x"}'),
    "extra a list": ("ctx.model", '{"messages": [{"role": "user", "content": "hi", "timestamp": 0}]}',
                     '{"extra": [1]}'),
    "options a list": ("ctx.model", '{"messages": []}', "[1]"),
}


async def test_hostile_arguments_give_error_results(make_session, write_ext):
    calls = "\n".join(
        f"""            try:
                r = await asyncio.wait_for(ctx.model_registry.complete({m}, {c}, {o}), 10)
                seen[{name!r}] = (r.stop_reason, r.error_message)
            except Exception as exc:
                seen[{name!r}] = ("raised", f"{{type(exc).__name__}}: {{exc}}")"""
        for name, (m, c, o) in CASES.items())
    path = write_ext("hostile_calls", f"""
import asyncio
seen = {{}}
def extension(pi):
    async def ask(args, ctx):
{calls}
    pi.register_command("ask", ask)
""")
    session = make_session(extensions=[path])
    assert await session.prompt("/ask") == "handled"
    seen = module_of(path).seen
    for name in CASES:
        kind, message = seen[name]
        assert kind == "error" and message and "\n" not in message.strip(), (name, seen[name])
    session.provider.push(scripted_text("still fine"))
    await session.prompt("go on")
    assert session.messages[-1].content[0].text == "still fine"
