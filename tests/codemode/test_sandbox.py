"""The sandbox on its own: what a script can reach, and how it ends (real worker processes)."""

from __future__ import annotations

import asyncio
import json

import pytest

from pi_runtime.ai.abort import AbortController
from pi_runtime.codemode.pool import WorkerPool
from pi_runtime.codemode.sandbox import RunResult, ScriptFunction, run_script
from pi_runtime.codemode.source import CodemodeSourceError, parse_source


@pytest.fixture
async def pool():
    pool = WorkerPool()
    yield pool
    await pool.close()


def echo_tool(name: str = "echo", calls: list | None = None) -> ScriptFunction:
    async def execute(args, signal):
        if calls is not None:
            calls.append(args)
        return {"echo": args}

    return ScriptFunction(name, execute, description=f"{name} tool", js_name=name)


async def run(pool, code: str, **kwargs) -> RunResult:
    result = await run_script(code, pool=pool, **kwargs)
    assert isinstance(result, RunResult), result
    return result


def texts(result: RunResult) -> list[str]:
    return [item.text for item in result.output if item.type == "text"]


async def test_no_file_system_network_timers_or_host_objects(pool):
    result = await run(pool, """
        const names = ["require", "process", "setTimeout", "setInterval", "fetch", "XMLHttpRequest", "WebAssembly",
                       "std", "os", "Deno", "Bun", "importScripts"];
        text(names.filter((name) => typeof globalThis[name] !== "undefined").join(","));
        let imported = "no";
        try { await import("os"); imported = "yes"; } catch (e) { imported = e.name; }
        text(imported);
        text(typeof globalThis.__pi_control + typeof globalThis.bridge);
    """)
    assert result.ok, result.error
    assert texts(result) == ["", texts(result)[1], "undefinedundefined"]
    assert texts(result)[1] != "yes"


async def test_tool_calls_run_in_parallel_and_resolve_to_json(pool):
    calls: list = []
    result = await run(pool, """
        const [a, b] = await Promise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })]);
        return [a.echo.n, b.echo.n];
    """, tools=[echo_tool(calls=calls)])
    assert result.ok and result.value == [1, 2]
    assert calls == [{"n": 1}, {"n": 2}]
    assert [c.status for c in result.calls] == ["ok", "ok"]


async def test_failed_tool_call_rejects_with_its_message(pool):
    async def boom(args, signal):
        raise RuntimeError("disk on fire")

    result = await run(pool, 'try { await tools.boom({}) } catch (e) { return e.message }',
                       tools=[ScriptFunction("boom", boom, js_name="boom")])
    assert result.value == "disk on fire"
    assert result.calls[0].status == "error"


async def test_endless_loop_ends_at_its_timeout_and_the_slot_is_freed(pool):
    result = await run(pool, "while (true) {}", timeout_ms=300)
    assert result.error is not None and result.error.kind == "timeout"
    assert result.error.message == "Execution timed out after 300 ms"
    again = await run(pool, "return 1")
    assert again.value == 1


async def test_memory_bomb_fails_with_out_of_memory(pool):
    result = await run(pool, "const a = []; while (true) a.push('x'.repeat(1000) + a.length);")
    assert result.error is not None
    assert result.error.kind == "script" and result.error.message == "out of memory"
    assert (result.error.name, (await run(pool, "return 2")).value) == ("InternalError", 2)


async def test_deep_recursion_is_a_catchable_range_error(pool):
    result = await run(pool, "function f() { return f() + 1 } try { f() } catch (e) { return e.name }")
    assert result.value == "RangeError"


async def test_output_flood_fails_even_when_caught(pool):
    result = await run(pool, "for (let i = 0; i < 200000; i++) { try { text('') } catch {} }")
    assert result.error is not None and result.error.name == "RangeError"
    assert "100000" in result.error.message
    assert len(result.output) == 100_000


async def test_call_flood_is_bounded_by_the_output_limit_and_reports_calls(pool):
    calls: list = []
    result = await run(pool, "const all = []; for (let i = 0; i < 2000; i++) all.push(tools.echo({ i })); "
                             "await Promise.all(all); return all.length", tools=[echo_tool(calls=calls)])
    assert result.value == 2000 and len(calls) == 2000


async def test_abort_stops_a_running_script_and_reports_the_calls(pool):
    controller = AbortController()
    started = asyncio.Event()

    async def slow(args, signal):
        started.set()
        await signal.wait()
        raise RuntimeError("aborted")

    async def quick(args, signal):
        return "done"

    task = asyncio.ensure_future(run(pool, "await tools.quick({}); await tools.slow({})", signal=controller.signal,
                                     tools=[ScriptFunction("slow", slow), ScriptFunction("quick", quick)]))
    await started.wait()
    controller.abort("Esc")
    result = await task
    assert result.error is not None and result.error.kind == "aborted"
    assert [(c.name, c.status) for c in result.calls] == [("quick", "ok"), ("slow", "cancelled")]


async def test_abort_stops_a_busy_loop(pool):
    controller = AbortController()
    started = asyncio.Event()

    async def mark(args, signal):
        started.set()
        return 1

    task = asyncio.ensure_future(run(pool, "await tools.mark({}); while (true) {}", signal=controller.signal,
                                     tools=[ScriptFunction("mark", mark)]))
    await started.wait()
    controller.abort()
    result = await task
    assert result.error is not None and result.error.kind == "aborted"


async def test_store_writes_are_reported_only_on_success(pool):
    ok = await run(pool, 'store("n", (load("n") ?? 0) + 1); store("gone", undefined)', store={"n": 4, "gone": 1})
    assert (ok.store_set, ok.store_delete) == ({"n": 5}, ["gone"])
    failed = await run(pool, 'store("n", 1); throw new Error("no")', store={})
    assert failed.store_set == {}


async def test_exit_ends_successfully_even_inside_try(pool):
    result = await run(pool, 'text("a"); try { exit() } catch {} text("b")')
    assert result.ok and texts(result) == ["a"]


async def test_stalled_script_fails_at_once(pool):
    result = await run(pool, "await new Promise(() => {})")
    assert result.error is not None and "can never settle" in result.error.message


async def test_syntax_error_and_stack_lines_match_the_script(pool):
    result = await run(pool, "const x = 1;\nnull.y")
    assert result.error is not None
    assert result.error.stack is not None and "codemode.js:2" in result.error.stack
    assert "<input>" not in result.error.stack and "__pi_" not in result.error.stack


async def test_patched_builtins_cannot_garble_the_bridge(pool):
    result = await run(pool, 'Array.prototype.toJSON = () => "x"; return 1')
    assert result.error is not None or result.value == 1
    class_result = await run(pool, 'class E extends Error { constructor() { super("m"); this.name = "E" } } '
                                   'return new E().name')
    assert class_result.value == "E"


async def test_workers_are_limited_and_wait_in_order(pool, monkeypatch):
    monkeypatch.setenv("PI_CODEMODE_MAX_WORKERS", "1")
    gate = asyncio.Event()

    async def hold(args, signal):
        await gate.wait()
        return 1

    first = asyncio.ensure_future(run(pool, "return await tools.hold({})", tools=[ScriptFunction("hold", hold)]))
    while pool._busy == 0:  # the first script holds the only worker
        await asyncio.sleep(0)
    waited = await run_script("return 2", pool=pool, worker_wait=0.05)
    assert waited == "no-worker"
    timed = await run_script("return 2", pool=pool, timeout_ms=50)
    assert timed == "timeout"
    gate.set()
    assert (await first).value == 1


@pytest.mark.parametrize(("source", "message"), [
    ("", "Expected JavaScript source text"),
    ('// @options: {"max_output_tokens": 1}', "must be followed by JavaScript source"),
    ('// @options: {"colour": 1}\nreturn 1', "only supports `max_output_tokens` and `timeout_ms`; got `colour`"),
    ('// @options: {"timeout_ms": 0}\nreturn 1', "`timeout_ms` must be a positive integer"),
    ('// @options: [1]\nreturn 1', "must be a JSON object"),
    ('// @options: {bad\nreturn 1', "must be valid JSON"),
    ('return 1\n// @options: {}', "must be the first line of the input; found one on line 2"),
])
def test_malformed_options_fail_before_running(source, message):
    with pytest.raises(CodemodeSourceError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_source(source)


def test_options_line_becomes_an_empty_line():
    parsed = parse_source('// @options: {"max_output_tokens": 20, "timeout_ms": 5}\nreturn 1')
    assert (parsed.code, parsed.max_output_tokens, parsed.timeout_ms) == ("\nreturn 1", 20, 5)
    assert json.loads('{"a": 1}')
