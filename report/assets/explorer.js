/* The issue explorer of issues.html (local, no library). The explorer stage writes every
   labelled issue with its columns dictionary-encoded (report/tables/explorer/explorer.json,
   served as _generated/explorer/issues.js); this script decodes it, filters by the URL's
   query (project, year, type, theme, agreement, text), sorts, pages, and keeps the address
   in step with the filters so a view can be shared. The text filter's key is `text`:
   Quarto's search owns `q` (on DOMContentLoaded it reads `q`, highlights it and deletes
   it from the address), so an older link's `q` is read as `text` when this script is
   evaluated, before Quarto's listener runs. It computes nothing about the issues:
   how many annotators agreed, whether a report is contested and which URL may be a link
   all come from the stage. The functions above `mount` are pure, and tested with node. */
(function (root) {
  "use strict";

  var FILTERS = ["project", "year", "type", "theme", "agreement", "text"];
  var OLD_KEYS = {text: "q"};  // a filter's earlier key, still read
  var SORTS = ["project", "year", "type", "theme", "agreed", "issue"];
  var PAGE_SIZE = 50;
  var FORMAT = 1;

  /* The data file, ready to filter: its columns as they are (one list per column, item i
     of each is issue i) and what the dictionaries hold decoded once per entry. An issue
     becomes an object (`row`) only when it is shown or searched, so the page opens at
     once however many issues there are. */
  function decode(data) {
    if (!data || data.format !== FORMAT) {
      throw new Error("issue explorer: unknown data format " + (data && data.format));
    }
    var sets = data.label_sets.map(function (set) {
      return set.map(function (v) { return v === null ? null : data.labels[v]; });
    });
    return {
      n: data.n, data: data, cols: data.rows, sets: sets, cache: new Array(data.n),
      setText: sets.map(function (set) {
        return set.filter(function (v) { return v !== null; }).join(" ");
      }),
      paths: data.url_prefixes.map(function (p) {
        return p.replace(/^https:\/\/[^/]+\//, "");
      }),
      types: data.types.map(function (t) { return t.toLowerCase(); })
    };
  }

  /* Issue i as an object (made once). */
  function row(table, i) {
    if (table.cache[i]) return table.cache[i];
    var data = table.data, c = table.cols;
    var theme = c.theme[i], t = data.theme_types[theme], p = c.project[i];
    var prefix = c.url_prefix[i], tail = String(c.url_tail[i]);
    var r = {
      index: i,
      project: data.projects[p],
      projectName: data.project_names[p],
      year: data.years[c.year[i]],
      type: t < 0 ? "" : data.types[t],
      theme: data.themes[theme],
      themeName: data.theme_names[theme],
      labels: table.sets[c.labels[i]],
      agreed: c.agreed[i],
      ratings: c.ratings[i],
      contested: c.agreed[i] < c.ratings[i],
      url: prefix < 0 ? null : data.url_prefixes[prefix] + "/" + tail,
      issue: prefix < 0 ? tail : table.paths[prefix] + "/" + tail
    };
    r.text = [r.project, r.projectName, r.issue, r.theme, r.themeName,
              table.setText[c.labels[i]]].join(" ").toLowerCase();
    table.cache[i] = r;
    return r;
  }

  /* The view a query string asks for: the filters (text, "" when unset; a filter's
     earlier key when its own is absent), sort and page. */
  function parseQuery(search) {
    var params = new URLSearchParams(search || "");
    var view = {};
    FILTERS.forEach(function (k) {
      var value = params.has(k) || !OLD_KEYS[k] ? params.get(k) : params.get(OLD_KEYS[k]);
      view[k] = (value || "").trim();
    });
    var sort = params.get("sort") || "";
    var desc = sort.charAt(0) === "-";
    sort = desc ? sort.slice(1) : sort;
    view.sort = SORTS.indexOf(sort) >= 0 ? sort : "";
    view.desc = view.sort !== "" && desc;
    var page = parseInt(params.get("page") || "1", 10);
    view.page = isFinite(page) && page > 0 ? page : 1;
    return view;
  }

  /* The query string of a view ("" for the full list): unset filters, the default sort
     and the first page are left out. */
  function toQuery(view) {
    var params = new URLSearchParams();
    FILTERS.forEach(function (k) { if (view[k]) params.set(k, view[k]); });
    if (view.sort) params.set("sort", (view.desc ? "-" : "") + view.sort);
    if (view.page > 1) params.set("page", String(view.page));
    var s = params.toString();
    return s ? "?" + s : "";
  }

  /* A filter's value as the code its column holds, ignoring case (`?project=deepspeed`
     is DeepSpeed's folder): -1 for no filter, -2 for a value the data do not have (nothing
     matches). */
  function code(values, wanted) {
    if (!wanted) return -1;
    wanted = String(wanted).toLowerCase();
    for (var i = 0; i < values.length; i++) {
      if (String(values[i]).toLowerCase() === wanted) return i;
    }
    return -2;
  }

  /* The data's own spelling of a filter's value (`c.5` -> `C.5`), or the value as given
     when the data do not have it. */
  function spelled(values, wanted) {
    var i = code(values, wanted);
    return i >= 0 ? String(values[i]) : wanted;
  }

  /* The view with its project, theme and type written as the data write them, so that the
     form shows the value chosen and a shared address reads the same. */
  function canonical(data, view) {
    var out = {};
    Object.keys(view).forEach(function (k) { out[k] = view[k]; });
    out.project = spelled(data.projects, view.project);
    out.theme = spelled(data.themes, view.theme);
    out.type = spelled(data.types, view.type).toLowerCase();
    out.agreement = view.agreement.toLowerCase();
    return out;
  }

  /* The indices of the issues in the view: every filter set must hold (all ignore case;
     text matches project, issue, theme and labels, or an address). */
  function filterRows(table, view) {
    var data = table.data, c = table.cols;
    var project = code(data.projects, view.project);
    var year = code(data.years.map(String), view.year);
    var type = code(table.types, view.type);
    var theme = code(data.themes, view.theme);
    var agreement = view.agreement.toLowerCase();
    var q = view.text.toLowerCase();
    var out = [];
    if (project === -2 || year === -2 || type === -2 || theme === -2) return out;
    for (var i = 0; i < table.n; i++) {
      if (project >= 0 && c.project[i] !== project) continue;
      if (year >= 0 && c.year[i] !== year) continue;
      if (type >= 0 && data.theme_types[c.theme[i]] !== type) continue;
      if (theme >= 0 && c.theme[i] !== theme) continue;
      if (agreement === "contested" && !(c.agreed[i] < c.ratings[i])) continue;
      if (agreement === "unanimous" && c.agreed[i] < c.ratings[i]) continue;
      if (agreement && agreement !== "contested" && agreement !== "unanimous") continue;
      if (q && !textMatches(row(table, i), q)) continue;
      out.push(i);
    }
    return out;
  }

  /* A text filter that is an address (https://...) matches the issues under it whole
     path segments at a time (".../issues/12" is not ".../issues/123"); any other text is
     a piece of text. */
  function textMatches(r, q) {
    if (/^https?:\/\//.test(q)) {
      var url = (r.url || "").toLowerCase().replace(/^http:/, "https:");
      q = q.replace(/^http:/, "https:").replace(/\/+$/, "");
      return url === q || url.indexOf(q + "/") === 0;
    }
    return r.text.indexOf(q) >= 0;
  }

  var SORT_KEYS = {
    project: function (t, i) { return t.cols.project[i]; },
    year: function (t, i) { return t.cols.year[i]; },
    type: function (t, i) { return t.data.theme_types[t.cols.theme[i]]; },
    theme: function (t, i) { return t.cols.theme[i]; },
    agreed: function (t, i) {
      return t.cols.ratings[i] ? t.cols.agreed[i] / t.cols.ratings[i] : 0;
    },
    issue: function (t, i) { return row(t, i).issue; }
  };

  /* The indices sorted (stable: ties keep the file's order); no sort: as they are. */
  function sortRows(table, indices, sort, desc) {
    var key = SORT_KEYS[sort];
    var out = indices.slice();
    if (!key) return out;
    var keys = {};
    out.forEach(function (i) { keys[i] = key(table, i); });
    out.sort(function (a, b) {
      var x = keys[a], y = keys[b];
      var c = x < y ? -1 : (x > y ? 1 : 0);
      return (desc ? -c : c) || a - b;
    });
    return out;
  }

  /* The items of page `page` (1-based, clamped) and the number of pages. */
  function pageOf(items, page, size) {
    size = size || PAGE_SIZE;
    var pages = Math.max(1, Math.ceil(items.length / size));
    var p = Math.min(Math.max(1, page), pages);
    return {page: p, pages: pages, rows: items.slice((p - 1) * size, p * size)};
  }

  /* Everything a view shows: the matching count and the page's issues (objects). */
  function select(table, view, size) {
    var hits = filterRows(table, view);
    var paged = pageOf(sortRows(table, hits, view.sort, view.desc), view.page, size);
    return {count: hits.length, page: paged.page, pages: paged.pages,
            rows: paged.rows.map(function (i) { return row(table, i); })};
  }

  /* Data text as it is, with every character that would change the display instead of
     adding to it (controls, bidirectional overrides, zero-width and separator characters)
     shown as a marker, as analysis.core.textsafe.visible does for the rest of the site. */
  var HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
  function visible(text) {
    return String(text).replace(HIDDEN, function (c) {
      return "\u27e8U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) +
        "\u27e9";
    });
  }

  /* What an empty view says: that nothing matches, and when text was searched, what the
     text box searches (the release has no titles, so a word of a title finds nothing). */
  var TEXT_SEARCHES = "the text box searches each report's address, project, theme and " +
    "annotators' labels only: the release has no titles";
  function emptyMessage(view) {
    return view.text ? "No issue matches these filters: " + TEXT_SEARCHES +
      " (try a theme code such as C.5, a label, or part of an address)." :
      "No issue matches these filters.";
  }

  var api = {FILTERS: FILTERS, emptyMessage: emptyMessage, SORTS: SORTS, PAGE_SIZE: PAGE_SIZE, decode: decode, row: row,
             parseQuery: parseQuery, toQuery: toQuery, canonical: canonical,
             filterRows: filterRows,
             sortRows: sortRows, pageOf: pageOf, select: select, visible: visible};
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }
  root.IssueExplorer = api;

  /* ---- the page ------------------------------------------------------------------- */

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = visible(text);
    return e;
  }

  function fillSelect(select, values, labels, current) {
    select.appendChild(el("option", {value: ""}, "all"));
    var known = false;
    values.forEach(function (v, i) {
      var o = el("option", {value: String(v)}, labels ? labels[i] : v);
      if (String(v) === current) { o.selected = true; known = true; }
      select.appendChild(o);
    });
    if (current && !known) {  // a value from the address that the data does not have
      var o = el("option", {value: current}, current + " (not in the data)");
      o.selected = true;
      select.appendChild(o);
    }
  }

  /* Puts `url` on the clipboard; where the browser refuses, shows it selected in `field`
     for the reader to copy. */
  function copyLink(url, field, said) {
    function fallback() {
      field.hidden = false;
      field.value = url;
      field.select();
      said.textContent = "Copy the address from the box.";
    }
    said.textContent = "";
    if (root.navigator && root.navigator.clipboard && root.navigator.clipboard.writeText) {
      root.navigator.clipboard.writeText(url).then(function () {
        field.hidden = true;
        said.textContent = "Link copied.";
      }, fallback);
    } else { fallback(); }
  }

  function mount(box, data, search) {
    var rows = decode(data);
    var view = canonical(data, parseQuery(search));
    var form = box.querySelector("form");
    var controls = {};
    FILTERS.forEach(function (k) { controls[k] = form.elements.namedItem(k); });
    fillSelect(controls.project, data.projects, data.projects.map(function (p, i) {
      return data.project_names[i] === p ? p : data.project_names[i] + " (" + p + ")";
    }), view.project);
    fillSelect(controls.year, data.years, null, view.year);
    fillSelect(controls.type, data.types.map(function (t) { return t.toLowerCase(); }),
               data.types, view.type);
    fillSelect(controls.theme, data.themes, data.themes.map(function (c, i) {
      return c + " " + data.theme_names[i];
    }), view.theme);
    fillSelect(controls.agreement, ["unanimous", "contested"],
               ["unanimous (every annotator chose the final label)",
                "contested (some annotator chose another)"], view.agreement);
    controls.text.value = view.text;

    var count = box.querySelector("#issue-count");
    var body = box.querySelector("tbody");
    var pagers = box.querySelectorAll(".explorer-pager");
    var headers = box.querySelectorAll("th[data-sort]");
    var top = box.querySelector(".explorer-status");

    function showPager(pager, result) {
      pager.querySelector(".explorer-page").textContent =
        "page " + result.page + " of " + result.pages;
      pager.querySelector("[data-step='-1']").disabled = result.page <= 1;
      pager.querySelector("[data-step='1']").disabled = result.page >= result.pages;
    }

    function show(push) {
      var result = select(rows, view);
      view.page = result.page;
      count.textContent = result.count.toLocaleString("en-US");
      box.querySelector(".explorer-count-word").textContent =
        result.count === 1 ? " issue matches." : (result.count || !view.text ?
          " issues match." : " issues match: " + TEXT_SEARCHES + ".");
      body.textContent = "";
      result.rows.forEach(function (r) { body.appendChild(rowElement(r, data)); });
      if (!result.rows.length) {
        var tr = el("tr"), td = el("td", {colspan: "7", "class": "explorer-empty"},
                                   emptyMessage(view));
        tr.appendChild(td); body.appendChild(tr);
      }
      Array.prototype.forEach.call(pagers, function (p) { showPager(p, result); });
      Array.prototype.forEach.call(headers, function (th) {
        var k = th.getAttribute("data-sort");
        th.setAttribute("aria-sort", view.sort === k ?
          (view.desc ? "descending" : "ascending") : "none");
      });
      if (push && root.history && root.history.replaceState) {
        root.history.replaceState(null, "", root.location.pathname + toQuery(view) +
                                  root.location.hash);
      }
    }

    function fromForm() {
      FILTERS.forEach(function (k) { view[k] = (controls[k].value || "").trim(); });
      view.page = 1;
      show(true);
    }
    var typing = null;  // text search waits for a pause in typing
    FILTERS.forEach(function (k) {
      controls[k].addEventListener(k === "text" ? "input" : "change", k !== "text" ?
        fromForm : function () { clearTimeout(typing); typing = setTimeout(fromForm, 200); });
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); fromForm(); });
    form.addEventListener("reset", function () { setTimeout(fromForm, 0); });
    Array.prototype.forEach.call(headers, function (th) {
      th.querySelector("button").addEventListener("click", function () {
        var k = th.getAttribute("data-sort");
        view.desc = view.sort === k ? !view.desc : false;
        view.sort = k;
        view.page = 1;
        show(true);
      });
    });
    // A page step from the bottom pager brings the start of the list into view.
    Array.prototype.forEach.call(box.querySelectorAll(".explorer-pager button[data-step]"),
      function (b) {
        b.addEventListener("click", function () {
          view.page += Number(b.getAttribute("data-step"));
          show(true);
          if (top.getBoundingClientRect().top < 0) top.scrollIntoView();
        });
      });
    var copy = box.querySelector(".explorer-copy");
    if (copy) {
      copy.addEventListener("click", function () {
        copyLink(root.location.href, box.querySelector(".explorer-link-field"),
                 box.querySelector(".explorer-copy-said"));
      });
    }
    box.classList.add("ready");
    show(false);
    if (root.performance && root.performance.mark) {  // read by benchmarks/bench_explorer.py
      root.performance.mark("issue-explorer-ready");
    }
  }

  function rowElement(r, data) {
    var tr = el("tr");
    function cell(label, text, cls) {
      var td = el("td", {"data-label": label}, text);
      if (cls) td.className = cls;
      tr.appendChild(td);
      return td;
    }
    var link = cell("issue", null, "issue");
    var target = r.url ? el("a", {href: r.url, rel: "noopener"}) : link;
    r.issue.split("/").forEach(function (part, i) {  // may break after a slash only
      if (i) { target.appendChild(document.createTextNode("/")); target.appendChild(el("wbr")); }
      target.appendChild(document.createTextNode(visible(part)));
    });
    if (r.url) link.appendChild(target);
    cell("project", r.projectName);
    cell("year", r.year, "num");
    cell("type", r.type);
    var theme = cell("final theme", null, "theme");
    theme.appendChild(el("code", {}, r.theme));
    theme.appendChild(document.createTextNode(" " + visible(r.themeName)));
    cell("annotators' labels", r.labels.map(function (v) { return v === null ? "–" : v; })
      .join(" "), "labels");
    cell("agreed", r.agreed + " of " + r.ratings + (r.contested ? " (contested)" : ""),
         "num agreed");
    return tr;
  }

  if (typeof document !== "undefined") {
    var search = root.location.search;  // as the reader opened it, before Quarto's search
    var start = function () {
      var box = document.getElementById("issue-explorer");
      if (!box) return;
      if (!root.ISSUE_EXPLORER_DATA) {
        box.querySelector("#issue-count").textContent = "0";
        box.querySelector(".explorer-count-word").textContent =
          " issues: the explorer's data was not found in this build.";
        return;
      }
      mount(box, root.ISSUE_EXPLORER_DATA, search);
    };
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else { start(); }
  }
})(typeof window !== "undefined" ? window : globalThis);
