"""Codemode: the model writes JavaScript that calls pi's tools, run in a QuickJS sandbox (Pi's ``codemode``).

- :mod:`.source`: the ``// @options:`` line;
- :mod:`.worker` and ``prelude.js``: the child process that runs a script in a fresh QuickJS context
  (``quickjs-ng``) with no file system, network, timers or host objects;
- :mod:`.pool`: at most two workers alive, handed out in arrival order, a 60 s wait;
- :mod:`.sandbox`: one run, from the host side (tool calls, output, deadline, abort);
- :mod:`.declarations`, :mod:`.search`: tools as TypeScript declarations, and BM25 search;
- :mod:`.tool`, :mod:`.extension`: the ``codemode`` tool and ``builtin:codemode``;
  :mod:`.tool_search`: the ``tool_search`` tool and ``builtin:tool-search``.

Nothing here is imported at start-up; the worker's ``quickjs`` only in the worker process.
"""
