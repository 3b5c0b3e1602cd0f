// The sidebar: every entry of the session tree, filtered and searched, the shown branch marked.
(function (ns) {
  "use strict";
  const { plainText, esc } = ns.text;

  function tree(session) {
    const { entries, labels, parentOf, pathTo, preview } = session;

    const SETTINGS = new Set(["model_change", "thinking_level_change", "label", "usage", "custom", "context_edit"]);

    function passesFilter(entry, state) {
      const role = entry.type === "message" ? (entry.message || {}).role : null;
      switch (state.filter) {
        case "all":
          return true;
        case "user":
          return role === "user";
        case "labeled":
          return labels.has(entry.id);
        case "no-tools":
          return !SETTINGS.has(entry.type) && role !== "toolResult";
        default:
          return !SETTINGS.has(entry.type);
      }
    }

    function searchable(entry) {
      const message = entry.message || {};
      return [preview(entry).text, plainText(message.content), entry.summary, labels.get(entry.id)].join("\n").toLowerCase();
    }

    function renderTree(state) {
      const query = state.query.trim().toLowerCase();
      const shown = entries.filter((e) => passesFilter(e, state) && (!query || searchable(e).includes(query)));
      const visible = new Set(shown.map((e) => e.id));
      const visibleParent = (entry) => {
        let current = parentOf(entry);
        while (current && !visible.has(current.id)) current = parentOf(current);
        return current;
      };
      const kids = new Map();
      const roots = [];
      for (const entry of shown) {
        const parent = query ? null : visibleParent(entry);
        if (!parent) roots.push(entry);
        else {
          if (!kids.has(parent.id)) kids.set(parent.id, []);
          kids.get(parent.id).push(entry);
        }
      }
      const onPath = new Set(pathTo(state.leafId).map((e) => e.id));
      const rows = [];
      const markRoots = !query && roots.length > 1;
      const stack = roots.slice().reverse().map((e, i) => ({ entry: e, depth: 0, mark: markRoots ? (i === 0 ? "└ " : "├ ") : "" }));
      while (stack.length) {
        const { entry, depth, mark } = stack.pop();
        const p = preview(entry);
        const label = labels.get(entry.id);
        const cls = ["row", onPath.has(entry.id) ? "on-path" : "off-path", entry.id === state.targetId ? "target" : "", entry.id === state.leafId ? "leaf" : ""].join(" ");
        rows.push(
          '<div class="' + cls + '" role="treeitem" data-id="' + esc(entry.id) + '" style="--depth:' + depth + '" title="' + esc(entry.id) + '">' +
          '<span class="mark">' + mark + "</span>" + (label ? '<span class="label">' + esc(label) + "</span>" : "") +
          '<span class="kind kind-' + p.kind + '">' + (p.kind === "user" || p.kind === "assistant" ? p.kind + ":" : "") + "</span> " + esc(p.text) + "</div>"
        );
        const next = kids.get(entry.id) || [];
        const branching = next.length > 1;
        for (let i = next.length - 1; i >= 0; i--) {
          stack.push({ entry: next[i], depth: depth + (branching ? 1 : 0), mark: branching ? (i === next.length - 1 ? "└ " : "├ ") : "" });
        }
      }
      document.getElementById("tree").innerHTML = rows.join("");
      document.getElementById("tree-status").textContent = shown.length + " / " + entries.length + " entries";
    }


    return { renderTree };
  }

  ns.tree = tree;
})(window.piExport = window.piExport || {});
