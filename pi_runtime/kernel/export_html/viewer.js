// The reader for a pi session export. Everything it shows comes from the embedded session
// object ({header, entries, leafId, systemPrompt?, tools?}); nothing is fetched.
//
// One branch (root → leaf) is shown at a time. The sidebar lists every entry of the session
// tree; clicking one shows the newest branch through it and scrolls to it. Branch points in
// the transcript offer their other branches too. Tool output, thinking, summaries and the
// system prompt start collapsed or clipped; T, O and H toggle thinking, tool output and
// hidden entries. ?leafId=…&targetId=… in the address opens a given branch and entry.
(function () {
  "use strict";

  const ns = window.piExport;
  const session = ns.loadSession(document.getElementById("session-data"));
  const { data, header, entries, byId, leaves, newestLeaf, pathTo } = session;
  const page = ns.transcript(session);
  const sidebar = ns.tree(session);

  // ------------------------------------------------------------------ view state

  const state = {
    leafId: null,
    targetId: null,
    filter: "default",
    query: "",
  };

  function startingPlace() {
    let params = null;
    try {
      params = new URLSearchParams(window.location.search);
    } catch (_) {
      params = null;
    }
    const askedLeaf = params && params.get("leafId");
    const askedTarget = params && params.get("targetId");
    let leaf = byId.has(askedLeaf) ? askedLeaf : byId.has(data.leafId) ? data.leafId : leaves[leaves.length - 1];
    if (byId.has(askedTarget) && !pathTo(leaf).some((e) => e.id === askedTarget)) leaf = newestLeaf(askedTarget);
    return { leaf: leaf || null, target: byId.has(askedTarget) ? askedTarget : null };
  }

  function remember() {
    try {
      const params = new URLSearchParams(window.location.search);
      params.set("leafId", state.leafId);
      if (state.targetId) params.set("targetId", state.targetId);
      else params.delete("targetId");
      window.history.replaceState(null, "", "?" + params.toString() + window.location.hash);
    } catch (_) {
      // Some browsers refuse history changes on file:// pages; the view works without it.
    }
  }

  // ------------------------------------------------------------------ moving around

  function show(leafId, targetId, scroll) {
    if (!byId.has(leafId)) return;
    state.leafId = leafId;
    state.targetId = targetId || null;
    page.renderInfo(state);
    page.renderMessages(state);
    sidebar.renderTree(state);
    remember();
    const main = document.getElementById("main");
    if (scroll === "bottom") main.scrollTop = main.scrollHeight;
    else if (state.targetId) {
      const element = document.getElementById("entry-" + state.targetId);
      if (element) {
        element.scrollIntoView({ block: "start" });
        element.classList.add("flash");
      }
    }
    const row = document.querySelector('#tree .row[data-id="' + CSS.escape(state.targetId || state.leafId) + '"]');
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  /** Open the newest branch through `id` and go to `id` in it. */
  function open(id) {
    if (byId.has(id)) show(newestLeaf(id), id);
  }

  function stepLeaf(step) {
    const i = leaves.indexOf(state.leafId);
    const next = leaves[(i + step + leaves.length) % leaves.length];
    if (next) show(next, null, "bottom");
  }

  function downloadJsonl() {
    const lines = [header, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n";
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([lines], { type: "application/x-ndjson" }));
    link.download = (header.id || "session") + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function toggle(action) {
    const body = document.body.classList;
    if (action === "thinking") body.toggle("hide-thinking");
    else if (action === "tools") body.toggle("tools-open");
    else if (action === "hidden") body.toggle("show-hidden");
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest("[data-action], [data-open], [data-goto], #tree .row, [data-filter], #tree-toggle");
    if (!target) return;
    if (target.id === "tree-toggle") document.body.classList.toggle("tree-shown");
    else if (target.matches("#tree .row")) open(target.dataset.id);
    else if (target.dataset.open) open(target.dataset.open);
    else if (target.dataset.goto) open(target.dataset.goto);
    else if (target.dataset.filter) {
      state.filter = target.dataset.filter;
      document.querySelectorAll("[data-filter]").forEach((b) => b.classList.toggle("active", b === target));
      sidebar.renderTree(state);
    } else if (target.dataset.action === "expand") target.parentElement.classList.add("open");
    else if (target.dataset.action === "leaf") stepLeaf(Number(target.dataset.step));
    else if (target.dataset.action === "jsonl") downloadJsonl();
    else toggle(target.dataset.action);
  });

  const search = document.getElementById("tree-search");
  search.addEventListener("input", () => {
    state.query = search.value;
    sidebar.renderTree(state);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea")) {
      if (event.key === "Escape") {
        search.value = "";
        state.query = "";
        search.blur();
        sidebar.renderTree(state);
      }
      return;
    }
    const key = event.key.toLowerCase();
    if (key === "t") toggle("thinking");
    else if (key === "o") toggle("tools");
    else if (key === "h") toggle("hidden");
    else if (key === "/") {
      event.preventDefault();
      search.focus();
    }
  });

  const start = startingPlace();
  // As Pi's export: the page opens at the top of the branch (a reader starts at the beginning);
  // an address naming an entry opens there.
  if (start.leaf) show(start.leaf, start.target, null);
  else {
    page.renderInfo(state);
    page.renderMessages(state);
    sidebar.renderTree(state);
  }
})();

