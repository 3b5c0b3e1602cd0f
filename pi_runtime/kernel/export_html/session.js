// The embedded session, indexed: entries by id, children, labels, tool calls and their results;
// paths, newest leaves, and the one-line previews the tree and the branch buttons show.
(function (ns) {
  "use strict";
  const { blocks, plainText, firstLine, count } = ns.text;

  function decodeData(text) {
    const binary = atob(String(text || "").trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return JSON.parse(new TextDecoder("utf-8").decode(bytes));
  }

  function loadSession(element) {
    const data = decodeData(element.textContent);
    const header = data.header || {};
    const entries = Array.isArray(data.entries) ? data.entries.filter((e) => e && e.id) : [];
    const byId = new Map();
    const position = new Map();
    const children = new Map();
    const labels = new Map();
    const callsById = new Map();
    const resultsByCall = new Map();
    let sessionName = null;

    entries.forEach((entry, index) => {
      byId.set(entry.id, entry);
      position.set(entry.id, index);
    });
    for (const entry of entries) {
      const parent = parentOf(entry);
      if (parent) {
        if (!children.has(parent.id)) children.set(parent.id, []);
        children.get(parent.id).push(entry);
      }
      if (entry.type === "label" && entry.targetId) {
        if (entry.label) labels.set(entry.targetId, entry.label);
        else labels.delete(entry.targetId);
      }
      if (entry.type === "session_info") sessionName = entry.name || null;
      const message = entry.type === "message" ? entry.message || {} : null;
      if (message && message.role === "assistant") {
        for (const block of blocks(message.content)) {
          if (block.type === "toolCall" && block.id) callsById.set(block.id, block);
        }
      }
      if (message && message.role === "toolResult" && message.toolCallId) {
        resultsByCall.set(message.toolCallId, entry);
      }
    }


    function parentOf(entry) {
      return entry.parentId && entry.parentId !== entry.id ? byId.get(entry.parentId) || null : null;
    }


    function newestLeaf(id) {
      let best = id;
      let bestPosition = -1;
      const stack = [id];
      while (stack.length) {
        const current = stack.pop();
        const kids = children.get(current) || [];
        if (!kids.length && position.get(current) > bestPosition) {
          best = current;
          bestPosition = position.get(current);
        }
        for (const kid of kids) stack.push(kid.id);
      }
      return best;
    }

    /** Entries from the root down to `leafId`. */
    function pathTo(leafId) {
      const path = [];
      const seen = new Set();
      let current = byId.get(leafId);
      while (current && !seen.has(current.id)) {
        seen.add(current.id);
        path.push(current);
        current = parentOf(current);
      }
      return path.reverse();
    }

    const leaves = entries.filter((e) => !(children.get(e.id) || []).length).map((e) => e.id);

    function callSummary(name, args) {
      const a = args && typeof args === "object" ? args : {};
      switch (name) {
        case "bash":
          return "$ " + (a.command || "");
        case "read": {
          let range = "";
          const offset = Number(a.offset) || 0;
          const limit = Number(a.limit) || 0;
          if (offset || limit) range = ":" + (offset || 1) + (limit ? "-" + ((offset || 1) + limit - 1) : "");
          return "read " + (a.path || "") + range;
        }
        case "write":
        case "edit":
        case "ls":
          return name + " " + (a.path || ".");
        case "grep":
          return "grep /" + (a.pattern || "") + "/ in " + (a.path || ".");
        case "find":
          return "find " + (a.pattern || "") + " in " + (a.path || ".");
        default: {
          const json = JSON.stringify(a);
          return name + " " + (json.length > 120 ? json.slice(0, 119) + "…" : json);
        }
      }
    }


    function preview(entry) {
      const message = entry.type === "message" ? entry.message || {} : null;
      if (message) {
        switch (message.role) {
          case "user":
            return { kind: "user", text: firstLine(plainText(message.content), 90) };
          case "assistant": {
            const text = firstLine(blocks(message.content).filter((b) => b.type === "text").map((b) => b.text).join(" "), 90);
            if (text) return { kind: "assistant", text: text };
            const calls = blocks(message.content).filter((b) => b.type === "toolCall").map((b) => callSummary(b.name, b.arguments));
            if (calls.length) return { kind: "assistant", text: "→ " + firstLine(calls.join("; "), 88) };
            return { kind: "assistant", text: message.errorMessage ? "error: " + firstLine(message.errorMessage, 80) : "(no text)" };
          }
          case "toolResult": {
            const call = callsById.get(message.toolCallId);
            return { kind: "tool", text: "[" + firstLine(call ? callSummary(call.name, call.arguments) : message.toolName || "tool", 88) + "]" };
          }
          case "bashExecution":
            return { kind: "tool", text: "$ " + firstLine(message.command, 88) };
          case "system":
            return { kind: "meta", text: "[system prompt]" };
          default:
            return { kind: "meta", text: "[" + (message.customType || message.role) + "] " + firstLine(plainText(message.content), 80) };
        }
      }
      switch (entry.type) {
        case "compaction":
          return { kind: "meta", text: "[compaction: " + count(entry.tokensBefore || 0) + " tokens]" };
        case "branch_summary":
          return { kind: "meta", text: "[branch summary]" };
        case "custom_message":
          return { kind: "meta", text: "[" + (entry.customType || "extension") + "] " + firstLine(plainText(entry.content), 80) };
        case "model_change":
          return { kind: "meta", text: "[model: " + [entry.provider, entry.modelId].filter(Boolean).join("/") + "]" };
        case "thinking_level_change":
          return { kind: "meta", text: "[thinking: " + entry.thinkingLevel + "]" };
        case "label":
          return { kind: "meta", text: "[label: " + (entry.label || "cleared") + "]" };
        case "session_info":
          return { kind: "meta", text: "[name: " + (entry.name || "") + "]" };
        case "context_edit":
          return { kind: "meta", text: "[context edit: " + (entry.replacement === null ? "omit " : "replace ") + entry.targetId + "]" };
        default:
          return { kind: "meta", text: "[" + entry.type + "]" };
      }
    }


    return {
      data, header, entries, byId, position, children, labels, callsById, resultsByCall, sessionName, leaves,
      parentOf, newestLeaf, pathTo, callSummary, preview,
    };
  }

  /**
   * Ids of the model and thinking-level changes another one of the same kind replaced before the
   * conversation went on (Ctrl+P pressed five times is one change, to the model kept): only the
   * last of such a run is drawn.
   */
  function supersededSettings(path) {
    const superseded = new Set();
    const pending = new Map();
    for (const entry of path) {
      if (entry.type === "model_change" || entry.type === "thinking_level_change") {
        if (pending.has(entry.type)) superseded.add(pending.get(entry.type));
        pending.set(entry.type, entry.id);
      } else if (entry.type !== "label" && entry.type !== "session_info") {
        pending.clear();
      }
    }
    return superseded;
  }

  ns.loadSession = loadSession;
  ns.supersededSettings = supersededSettings;
})(window.piExport = window.piExport || {});
