// Text helpers of the session export: escaping, numbers, dates, a small Markdown, clipped boxes.
(function (ns) {
  "use strict";

  function blocks(content) {
    if (typeof content === "string") return [{ type: "text", text: content }];
    return Array.isArray(content) ? content.filter((b) => b && typeof b === "object") : [];
  }

  function plainText(content) {
    return blocks(content).map((b) => (b.type === "text" ? b.text || "" : b.type === "image" ? "[image]" : "")).join("");
  }

  /** The leaf under `id` that was written last (the branch a click on `id` opens). */

  function esc(value) {
    return String(value == null ? "" : value)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");
  }

  function firstLine(text, limit) {
    const line = String(text || "").trim().split("\n")[0];
    return line.length > limit ? line.slice(0, limit - 1) + "…" : line;
  }

  function count(n) {
    if (n < 1000) return String(n);
    if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + "k";
    return (n / 1e6).toFixed(n < 1e7 ? 1 : 0) + "M";
  }

  function clock(value) {
    const date = typeof value === "number" ? new Date(value) : new Date(String(value || ""));
    return isNaN(date.getTime()) ? "" : date.toLocaleString();
  }

  function safeUrl(url) {
    const plain = url.replace(/&amp;/g, "&");
    return /^(https?:|mailto:|#)/i.test(plain) ? url : null;
  }

  function inline(text) {
    const codes = [];
    let html = esc(text).replace(/`([^`\n]+)`/g, (_, code) => {
      codes.push(code);
      return "\u0000" + (codes.length - 1) + "\u0000";
    });
    html = html.replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (whole, label, url) => {
      const safe = safeUrl(url);
      return safe ? '<a href="' + safe + '" rel="noopener noreferrer">' + label + "</a>" : whole;
    });
    html = html
      .replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>")
      .replace(/(^|[^\w*])\*([^*\s][^*\n]*)\*(?![\w*])/g, "$1<em>$2</em>")
      .replace(/~~([^~\n]+)~~/g, "<del>$1</del>");
    return html.replace(/\u0000(\d+)\u0000/g, (_, i) => "<code>" + codes[Number(i)] + "</code>");
  }

  const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
  const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;

  /** A GFM table row's cells (outer pipes optional, `\|` is a pipe inside a cell). */
  function cells(line) {
    const row = line.trim().replace(/^\|/, "").replace(/(^|[^\\])\|$/, "$1");
    return row.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
  }

  function table(header, rule, rows) {
    const align = cells(rule).map((c) => (/^:-+:$/.test(c) ? "center" : /-:$/.test(c) ? "right" : /^:-/.test(c) ? "left" : ""));
    const cell = (tag, text, i) =>
      "<" + tag + (align[i] ? ' style="text-align:' + align[i] + '"' : "") + ">" + inline(text || "") + "</" + tag + ">";
    const head = cells(header);
    const body = rows.map((r) => "<tr>" + head.map((_, i) => cell("td", cells(r)[i], i)).join("") + "</tr>").join("");
    return '<table class="md-table"><thead><tr>' + head.map((h, i) => cell("th", h, i)).join("") + "</tr></thead>" +
      (body ? "<tbody>" + body + "</tbody>" : "") + "</table>";
  }

  /** A small Markdown subset: fences, headings, lists, tables, quotes, rules, paragraphs, inline marks. */
  function markdown(source) {
    const lines = String(source || "").replace(/\r\n?/g, "\n").split("\n");
    const out = [];
    let paragraph = [];
    let list = null;
    const endParagraph = () => {
      if (paragraph.length) out.push("<p>" + paragraph.map(inline).join("<br>") + "</p>");
      paragraph = [];
    };
    const endList = () => {
      // An ordered list keeps its numbers: one that goes on after a code block starts at 2, not 1.
      const start = list && list.tag === "ol" && list.start !== 1 ? ' start="' + list.start + '"' : "";
      if (list) out.push("<" + list.tag + start + ">" + list.items.map((i) => "<li>" + inline(i) + "</li>").join("") + "</" + list.tag + ">");
      list = null;
    };
    const nextLine = (i) => {
      while (i < lines.length && !lines[i].trim()) i++;
      return i < lines.length ? lines[i] : "";
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/);
      let m;
      if (fence) {
        endParagraph();
        endList();
        const body = [];
        while (++i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i]);
        const lang = fence[2] ? '<span class="lang">' + esc(fence[2]) + "</span>" : "";
        out.push('<pre class="code">' + lang + "<code>" + esc(body.join("\n")) + "</code></pre>");
      } else if (!line.trim()) {
        endParagraph();
        // A blank line between items is a loose list, still one list.
        const next = nextLine(i + 1).match(LIST_ITEM);
        if (!(list && next && (/\d/.test(next[1]) ? "ol" : "ul") === list.tag)) endList();
      } else if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes("-")) {
        endParagraph();
        endList();
        const rows = [];
        let j = i + 2;
        for (; j < lines.length && lines[j].trim() && lines[j].includes("|"); j++) rows.push(lines[j]);
        out.push(table(line, lines[i + 1], rows));
        i = j - 1;
      } else if ((m = line.match(/^(#{1,6})\s+(.*)$/))) {
        endParagraph();
        endList();
        out.push("<h" + m[1].length + ">" + inline(m[2]) + "</h" + m[1].length + ">");
      } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
        endParagraph();
        endList();
        out.push("<hr>");
      } else if (/^\s*>/.test(line)) {
        endParagraph();
        endList();
        const quoted = [];
        for (; i < lines.length && /^\s*>/.test(lines[i]); i++) quoted.push(lines[i].replace(/^\s*>\s?/, ""));
        i--;
        out.push("<blockquote>" + quoted.map(inline).join("<br>") + "</blockquote>");
      } else if ((m = line.match(LIST_ITEM))) {
        endParagraph();
        const tag = /\d/.test(m[1]) ? "ol" : "ul";
        if (!list || list.tag !== tag) {
          endList();
          list = { tag: tag, items: [], start: tag === "ol" ? parseInt(m[1], 10) : 1 };
        }
        list.items.push(m[2]);
      } else if (list && /^\s{2,}\S/.test(line)) {
        list.items[list.items.length - 1] += " " + line.trim();
      } else {
        endList();
        paragraph.push(line);
      }
    }
    endParagraph();
    endList();
    return out.join("");
  }

  /** Text in a box that shows `lines` lines until expanded (O expands every box). */
  function clipped(text, lines, kind) {
    const body = String(text || "").replace(/\s+$/, "");
    const total = body ? body.split("\n").length : 0;
    const extra = total - lines;
    if (extra <= 0) return '<pre class="' + kind + '">' + esc(body) + "</pre>";
    return (
      '<div class="clip" style="--lines:' + lines + '"><pre class="' + kind + '">' + esc(body) + "</pre>" +
      '<button type="button" class="more" data-action="expand">… ' + extra + " more line" + (extra === 1 ? "" : "s") +
      " (click to expand)</button></div>"
    );
  }

  function images(content) {
    return blocks(content)
      .filter((b) => b.type === "image" && b.data)
      .map((b) => '<img class="image" alt="image" src="data:' + esc(b.mimeType || "image/png") + ";base64," + esc(b.data) + '">')
      .join("");
  }

  ns.text = { blocks, plainText, esc, firstLine, count, clock, markdown, clipped, images };
})(window.piExport = window.piExport || {});
