// The transcript of one branch, and the page header: every entry type as the reader sees it.
(function (ns) {
  "use strict";
  const { blocks, plainText, esc, firstLine, count, clock, markdown, clipped, images } = ns.text;

  function transcript(session) {
    const { data, header, entries, byId, children, labels, callsById, resultsByCall, leaves, pathTo, callSummary, preview } = session;
    const sessionName = session.sessionName;

    function toolArguments(name, args) {
      const a = args && typeof args === "object" ? args : {};
      if (name === "write") return clipped(a.content, 10, "tool-input");
      if (name === "edit" && Array.isArray(a.edits)) {
        return a.edits
          .map((e) => clipped("- " + String(e.oldText || "").split("\n").join("\n- ") + "\n+ " + String(e.newText || "").split("\n").join("\n+ "), 12, "diff"))
          .join("");
      }
      if (["bash", "read", "ls", "grep", "find"].includes(name)) return "";
      return '<details class="args"><summary>arguments</summary><pre>' + esc(JSON.stringify(a, null, 2)) + "</pre></details>";
    }

    // The calls a tool made to other tools (a codemode script's), as its result records them: what
    // ran, with what, how it ended; never their results.
    function nestedCalls(result) {
      const nested = result && result.nestedCalls;
      if (!nested || !Array.isArray(nested.calls) || !nested.calls.length) return "";
      const marks = { ok: "✓", error: "✗", unfinished: "…" };
      const lines = nested.calls.map((c) => {
        const args = c.arguments ? JSON.stringify(c.arguments) : "(arguments left out: " + c.argumentsBytes + " bytes)";
        const took = typeof c.durationMs === "number" ? " " + c.durationMs + " ms" : "";
        const error = c.error ? "\n    " + String(c.error).split("\n").join("\n    ") : "";
        return (marks[c.status] || "?") + " " + c.name + " " + args + took + error;
      });
      const title = nested.calls.length + " nested call" + (nested.calls.length === 1 ? "" : "s") +
        (nested.complete === false ? " (the record lost some)" : "");
      return clipped([title, ...lines].join("\n"), 6, "tool-output nested");
    }

    function toolBlock(call) {
      const resultEntry = resultsByCall.get(call.id);
      const result = resultEntry ? resultEntry.message : null;
      const status = !result ? "pending" : result.isError ? "error" : "ok";
      let output = "";
      if (result) {
        const diff = result.details && typeof result.details.diff === "string" ? result.details.diff : "";
        output = (diff ? clipped(diff, 16, "diff") : clipped(plainText(result.content), 10, "tool-output")) + images(result.content) +
          nestedCalls(result);
      } else {
        output = '<div class="muted">no result recorded</div>';
      }
      const anchor = resultEntry ? ' id="entry-' + esc(resultEntry.id) + '"' : "";
      return (
        '<div class="tool ' + status + '"' + anchor + '><div class="tool-head">' + esc(callSummary(call.name, call.arguments)) + "</div>" +
        toolArguments(call.name, call.arguments) + output + "</div>"
      );
    }

    // ------------------------------------------------------------------ one entry in the transcript

    function meta(entry, extra) {
      const message = entry.message || {};
      const when = clock(message.timestamp || entry.timestamp);
      const label = labels.get(entry.id);
      return (
        '<div class="meta">' + (label ? '<span class="label">' + esc(label) + "</span>" : "") + esc(when) +
        (extra ? " · " + extra : "") + "</div>"
      );
    }

    function systemBlock(message, first) {
      const sections = message.sections && typeof message.sections === "object" ? message.sections : {};
      const named = Object.keys(sections);
      const text = [message.content ? plainText(message.content) : "", ...named.map((k) => sections[k] || "")].filter(Boolean).join("\n\n");
      const added = Array.isArray(message.toolsAdded) ? message.toolsAdded : [];
      const removed = Array.isArray(message.toolsRemoved) ? message.toolsRemoved : [];
      if (first) return promptBlock(text, added);
      const changes = [];
      if (named.length) changes.push("sections " + named.map((k) => k + (sections[k] == null ? " (removed)" : "")).join(", "));
      if (added.length) changes.push("tools added: " + added.map((t) => t.name).join(", "));
      if (removed.length) changes.push("tools removed: " + removed.map((t) => t.name).join(", "));
      return '<div class="notice">System prompt changed: ' + esc(changes.join("; ") || "no change") + "</div>" + (text ? clipped(text, 3, "prompt") : "");
    }

    function promptBlock(text, tools) {
      const list = (tools || [])
        .map((t) => '<li><details><summary><b>' + esc(t.name) + "</b> — " + esc(firstLine(t.description, 160)) + "</summary><pre>" +
          esc(JSON.stringify(t.parameters || {}, null, 2)) + "</pre></details></li>")
        .join("");
      return (
        '<section class="system"><h2>System prompt</h2>' + clipped(text, 8, "prompt") +
        (list ? '<h3>Tools</h3><ul class="tools">' + list + "</ul>" : "") + "</section>"
      );
    }

    function assistantBody(message) {
      const parts = [];
      for (const block of blocks(message.content)) {
        if (block.type === "thinking" && block.thinking) parts.push('<div class="thinking">' + markdown(block.thinking) + "</div>");
        else if (block.type === "text" && block.text) parts.push('<div class="md">' + markdown(block.text) + "</div>");
        else if (block.type === "toolCall") parts.push(toolBlock(block));
        else if (block.type === "image") parts.push(images([block]));
      }
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        parts.push('<div class="error-line">' + esc(message.stopReason === "aborted" ? "Aborted" : "Error") +
          (message.errorMessage ? ": " + esc(message.errorMessage) : "") + "</div>");
      }
      return parts.join("");
    }

    function usageNote(usage) {
      if (!usage || typeof usage !== "object") return "";
      const parts = ["↑" + count(usage.input || 0), "↓" + count(usage.output || 0)];
      if (usage.cacheRead) parts.push("R" + count(usage.cacheRead));
      return parts.join(" ");
    }

    function renderEntry(entry, ctx) {
      const classes = ["entry", "entry-" + entry.type];
      let body = "";
      if (ctx.summarised.has(entry.id)) classes.push("summarised");
      if (ctx.omitted.has(entry.id)) classes.push("omitted");
      switch (entry.type) {
        case "message": {
          const message = entry.message || {};
          classes.push("role-" + message.role);
          switch (message.role) {
            case "system":
              body = systemBlock(message, !ctx.promptShown);
              ctx.promptShown = true;
              break;
            case "user":
              body = meta(entry) + '<div class="user-text">' + esc(plainText(message.content)) + "</div>" + images(message.content);
              break;
            case "assistant":
              body = meta(entry, esc([message.provider, message.model].filter(Boolean).join("/")) +
                (message.usage ? " · " + usageNote(message.usage) : "")) + assistantBody(message);
              break;
            case "toolResult":
              if (callsById.has(message.toolCallId)) return ""; // shown inside its call
              body = meta(entry, esc(message.toolName || "tool")) + clipped(plainText(message.content), 10, "tool-output");
              break;
            case "bashExecution":
              body = meta(entry, message.excludeFromContext ? "not sent to the model" : "") +
                '<div class="tool ' + (message.exitCode ? "error" : "ok") + '"><div class="tool-head">$ ' + esc(message.command) + "</div>" +
                clipped(message.output, 10, "tool-output") +
                (message.exitCode ? '<div class="muted">exit code ' + esc(message.exitCode) + "</div>" : "") + "</div>";
              break;
            case "custom":
              if (message.display === false) classes.push("hidden-entry");
              body = meta(entry, esc(message.customType || "custom")) + '<div class="md">' + markdown(plainText(message.content)) + "</div>";
              break;
            default:
              body = meta(entry, esc(message.role || "message")) + '<div class="md">' + markdown(plainText(message.content)) + "</div>";
          }
          break;
        }
        case "compaction":
          body = '<div class="summary-head">Compaction — ' + esc(count(entry.tokensBefore || 0)) + " tokens summarised" +
            (ctx.summarised.size ? " (the entries marked “summarised” above)" : "") + "</div>" +
            '<details class="summary"><summary>Summary the model continued from</summary><div class="md">' + markdown(entry.summary) + "</div></details>";
          break;
        case "branch_summary": {
          const from = byId.has(entry.fromId) ? ' <button type="button" class="link" data-open="' + esc(entry.fromId) + '">open that branch</button>' : "";
          body = '<div class="summary-head">Branch summary of the branch left here' + from + "</div>" +
            '<details class="summary"><summary>Summary (click to expand)</summary><div class="md">' + markdown(entry.summary) + "</div></details>";
          break;
        }
        case "custom_message":
          if (entry.display === false) classes.push("hidden-entry");
          body = meta(entry, esc(entry.customType || "extension")) + '<div class="md">' + markdown(plainText(entry.content)) + "</div>";
          break;
        case "model_change":
          body = '<div class="notice">Model: ' + esc([entry.provider, entry.modelId].filter(Boolean).join("/")) + "</div>";
          break;
        case "thinking_level_change":
          body = '<div class="notice">Thinking level: ' + esc(entry.thinkingLevel) + "</div>";
          break;
        case "session_info":
          body = '<div class="notice">Session named “' + esc(entry.name || "") + "”</div>";
          break;
        case "context_edit":
          body = '<div class="notice">Context edit: ' + (entry.replacement === null ? "omitted " : "replaced ") +
            '<button type="button" class="link" data-goto="' + esc(entry.targetId) + '">' + esc(entry.targetId) + "</button> for the model</div>";
          break;
        case "label":
          return "";
        default:
          classes.push("hidden-entry");
          body = '<div class="notice">' + esc(entry.type) + (entry.customType ? " · " + esc(entry.customType) : "") + "</div>" +
            '<details class="args"><summary>data</summary><pre>' + esc(JSON.stringify(entry, null, 2)) + "</pre></details>";
      }
      return '<div class="' + classes.join(" ") + '" id="entry-' + esc(entry.id) + '">' + body + forks(entry, ctx) + "</div>";
    }

    /** Buttons for every branch leaving `entry` (the one on screen marked). */
    function forks(entry, ctx) {
      const kids = children.get(entry.id) || [];
      if (kids.length < 2) return "";
      const buttons = kids.map((kid, i) => {
        const current = ctx.onPath.has(kid.id) ? " current" : "";
        return '<button type="button" class="fork' + current + '" data-open="' + esc(kid.id) + '">' + (i + 1) + " · " +
          esc(preview(kid).text || kid.type) + "</button>";
      });
      return '<div class="forks"><span>' + kids.length + " branches from here:</span> " + buttons.join(" ") + "</div>";
    }

    /** Which entries of the path a compaction summarised, and which a context edit took away. */
    function pathContext(path) {
      const index = new Map(path.map((e, i) => [e.id, i]));
      const summarised = new Set();
      const omitted = new Set();
      let cut = 0;
      path.forEach((entry, i) => {
        if (entry.type === "compaction") {
          const kept = index.has(entry.firstKeptEntryId) ? index.get(entry.firstKeptEntryId) : i;
          cut = Math.max(cut, Math.min(kept, i));
        }
        if (entry.type === "context_edit" && entry.replacement === null && index.has(entry.targetId)) omitted.add(entry.targetId);
      });
      for (let i = 0; i < cut; i++) {
        const kind = path[i].type;
        if (kind === "message" || kind === "custom_message" || kind === "branch_summary") summarised.add(path[i].id);
      }
      return { summarised: summarised, omitted: omitted, onPath: new Set(index.keys()), promptShown: false };
    }

    // ------------------------------------------------------------------ the page header

    function totals() {
      const t = { user: 0, assistant: 0, toolResult: 0, compaction: 0, branchSummary: 0, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
      const models = new Set();
      const add = (usage) => {
        if (!usage || typeof usage !== "object") return;
        t.input += usage.input || 0;
        t.output += usage.output || 0;
        t.cacheRead += usage.cacheRead || 0;
        t.cacheWrite += usage.cacheWrite || 0;
        t.cost += (usage.cost && usage.cost.total) || 0;
      };
      for (const entry of entries) {
        if (entry.type === "message") {
          const message = entry.message || {};
          if (message.role === "user") t.user++;
          if (message.role === "toolResult") t.toolResult++;
          if (message.role === "assistant") {
            t.assistant++;
            t.calls += blocks(message.content).filter((b) => b.type === "toolCall").length;
            if (message.model) models.add([message.provider, message.model].filter(Boolean).join("/"));
          }
          if (message.role === "assistant" || message.role === "toolResult") add(message.usage);
        } else if (entry.type === "compaction" || entry.type === "branch_summary" || entry.type === "usage") {
          if (entry.type === "compaction") t.compaction++;
          if (entry.type === "branch_summary") t.branchSummary++;
          add(entry.usage);
        }
      }
      t.models = Array.from(models);
      return t;
    }

    function renderInfo(state) {
      const t = totals();
      const title = sessionName || "Session " + (header.id || "");
      const leafNumber = leaves.indexOf(state.leafId) + 1;
      const rows = [
        ["Started", clock(header.timestamp)],
        ["Folder", header.cwd || ""],
        ["Models", t.models.join(", ") || "—"],
        ["Messages", t.user + " user, " + t.assistant + " assistant, " + t.toolResult + " tool results" +
          (t.compaction ? ", " + t.compaction + " compactions" : "") + (t.branchSummary ? ", " + t.branchSummary + " branch summaries" : "")],
        ["Tool calls", String(t.calls)],
        ["Tokens", "↑" + count(t.input) + " ↓" + count(t.output) + (t.cacheRead ? " R" + count(t.cacheRead) : "") + (t.cacheWrite ? " W" + count(t.cacheWrite) : "")],
      ];
      if (t.cost > 0) rows.push(["Cost", "$" + t.cost.toFixed(3)]);
      if (header.parentSession) rows.push(["Forked from", header.parentSession]);
      const branchNav = leaves.length > 1
        ? '<div class="branch-nav">Branch ' + leafNumber + " of " + leaves.length +
          ' <button type="button" data-action="leaf" data-step="-1" title="Previous branch">◀</button>' +
          '<button type="button" data-action="leaf" data-step="1" title="Next branch">▶</button></div>'
        : "";
      document.getElementById("info").innerHTML =
        "<h1>" + esc(title) + "</h1>" +
        '<table class="facts">' + rows.map((r) => "<tr><th>" + esc(r[0]) + "</th><td>" + esc(r[1]) + "</td></tr>").join("") + "</table>" +
        branchNav +
        '<div class="toggles">' +
        '<button type="button" data-action="thinking" title="T">Thinking (T)</button>' +
        '<button type="button" data-action="tools" title="O">Tool output (O)</button>' +
        '<button type="button" data-action="hidden" title="H">Hidden entries (H)</button>' +
        '<button type="button" data-action="jsonl" title="The session file, as embedded">Download JSONL</button>' +
        "</div>";
    }

    // ------------------------------------------------------------------ the transcript

    function renderMessages(state) {
      const path = pathTo(state.leafId);
      const ctx = pathContext(path);
      const parts = [];
      if (!path.some((e) => e.type === "message" && e.message && e.message.role === "system") && data.systemPrompt) {
        parts.push(promptBlock(data.systemPrompt, data.tools));
        ctx.promptShown = true;
      }
      const superseded = ns.supersededSettings(path);
      for (const entry of path) {
        if (!superseded.has(entry.id)) parts.push(renderEntry(entry, ctx));
      }
      document.getElementById("messages").innerHTML = parts.join("") || '<p class="muted">This session has no entries yet.</p>';
    }

    return { renderInfo, renderMessages };
  }

  ns.transcript = transcript;
})(window.piExport = window.piExport || {});
