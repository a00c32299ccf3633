/* raisedocs site: search by pasted message or traceback, and the index's filters.
   The same matching as `raisedocs explain`: each card's template as literal runs and holes
   (search-index.js), a traceback frame on a card's lines, the exception class, and
   identifier tokens ("prefetch step" finds offload_prefetch_step). */
(function () {
  "use strict";
  var INDEX = window.RAISEDOCS_INDEX || { entries: [] };
  var root = document.querySelector('link[href$="assets/site.css"]').getAttribute("href").replace("assets/site.css", "");

  function normalize(text) { return text.replace(/\s+/g, " ").trim(); }
  function visible(text) { return text.replace(/\s/g, "").length; }

  // Literal runs in order, each after the previous; holes take what lies between.
  function templateScore(entry, text) {
    // The message, and the forms a framework shows it in (pydantic's or @strict's text, click's "Error: ..." line).
    var patterns = [entry.pattern].concat(entry.shown ? entry.shown.patterns : []), best = 0;
    for (var p = 0; p < patterns.length; p++) best = Math.max(best, patternScore(patterns[p], text));
    return best;
  }

  function patternScore(pattern, text) {
    if (!pattern) return 0;
    for (var i = 0; i < pattern.literals.length; i++) {
      if (text.indexOf(pattern.literals[i]) < 0) return 0;
    }
    var at = 0, pending = null, types = pattern.types || {};
    for (var j = 0; j < pattern.items.length; j++) {
      var item = pattern.items[j];
      if (item[0] === "hole") { pending = item[1]; continue; }
      var found = text.indexOf(item[1], at);
      if (found < 0) return 0;
      if (pending !== null && at > 0 && !fits(types[pending], text.slice(at, found))) return 0;
      pending = null;
      at = found + item[1].length;
    }
    if (pending !== null) {
      var tail = text.indexOf(" [type=", at);
      if (!fits(types[pending], text.slice(at, tail < 0 ? text.length : tail))) return 0;
    }
    return Math.min(1, pattern.literal_chars / Math.max(1, visible(text)));
  }

  // A typed hole (an input declared int, float or bool) shows text of that type.
  var HOLE_TYPES = {
    "int": /^[-+]?\d[\d,_]*$/,
    "number": /^(?:[-+]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan))$/,
    "bool": /^(?:True|False)$/
  };
  function fits(kind, value) { return !kind || HOLE_TYPES[kind].test(value.trim()); }

  function tokens(text) {
    return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter(function (t) { return t.length > 1; });
  }

  function tokenScore(entry, words) {
    if (!words.length) return 0;
    var have = {};
    tokens((entry.message.template || "") + " " + entry.exception.display + " " + (entry.function || "") + " " + entry.path).forEach(function (t) { have[t] = true; });
    var hits = words.filter(function (w) { return have[w]; }).length;
    return hits === words.length ? 0.2 * hits / words.length : 0;
  }

  function frames(text) {
    var out = [], re = /File "([^"]+)", line (\d+)/g, m;
    while ((m = re.exec(text))) out.push([m[1].replace(/\\/g, "/"), parseInt(m[2], 10)]);
    return out;
  }

  function exceptionOf(text) {
    var lines = text.split("\n").map(function (l) { return l.trim(); }).filter(Boolean);
    for (var i = lines.length - 1; i >= 0; i--) {
      var m = /^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Warning|Interrupt))(?::|$)/.exec(lines[i]);
      if (m) return m[1].split(".").pop();
    }
    return null;
  }

  function classFits(entry, name) {
    var names = (entry.exception.classes || []).concat([entry.exception.display], entry.shown ? [entry.shown.exception] : []).map(function (c) { return c.split(".").pop(); });
    return names.indexOf(name) >= 0;
  }

  function search(raw, entries) {
    var text = normalize(raw), words = tokens(raw), cls = exceptionOf(raw), fs = frames(raw);
    var scored = (entries || INDEX.entries).map(function (entry) {
      var score = Math.max(templateScore(entry, text), tokenScore(entry, words));
      for (var k = fs.length - 1; k >= 0; k--) {
        var f = fs[k][0];
        if ((f === entry.path || f.slice(-entry.path.length - 1) === "/" + entry.path) && entry.line <= fs[k][1] && fs[k][1] <= entry.end_line) { score = 1; break; }
      }
      if (cls && score > 0 && score < 1 && !classFits(entry, cls)) score *= 0.5;
      if (cls && score === 0 && !entry.pattern && classFits(entry, cls)) score = 0.3;
      return { entry: entry, score: score };
    }).filter(function (r) { return r.score > 0; });
    scored.sort(function (a, b) {
      // A frame of the pasted traceback first (score 1), then publish.ranking's key, kept in the index: users' errors first
      var frame = (b.score === 1) - (a.score === 1), ranked = (a.entry.rank || 0) - (b.entry.rank || 0);
      return frame || ranked || b.score - a.score || (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : a.entry.line - b.entry.line);
    });
    var families = {};  // a family of identical checks once, at its best match: its card lists the others
    scored = scored.filter(function (r) { var f = r.entry.family; if (!f) return true; if (families[f]) return false; families[f] = true; return true; });
    return scored.slice(0, 10);
  }

  function show(results) {
    var list = document.getElementById("search-results");
    while (list.firstChild) list.removeChild(list.firstChild);
    results.forEach(function (r) {
      var li = document.createElement("li"), a = document.createElement("a"), info = document.createElement("span");
      a.href = root + (r.entry.href || "errors/" + r.entry.id + ".html");  // (a corpus entry: its project's page)
      a.textContent = r.entry.message.template || r.entry.exception.display;  // text, never HTML
      info.className = "where";
      info.textContent = " " + (r.entry.repo ? r.entry.repo + " · " : "") + r.entry.exception.display + " · " + r.entry.path + ":" + r.entry.line +
        " · score " + r.score.toFixed(2);
      li.appendChild(a); li.appendChild(info); list.appendChild(li);
    });
    list.hidden = results.length === 0;
  }

  // A corpus site's search (corpus.js) loads the entries a paste needs and ranks them here.
  window.RAISEDOCS_SEARCH = { search: search, show: show, tokens: tokens };
  var box = document.getElementById("search-box");
  if (box && !window.RAISEDOCS_CORPUS) {
    var pending = null;  // a large catalog: search once typing pauses, not on every key
    box.addEventListener("input", function () {
      clearTimeout(pending);
      pending = setTimeout(function () { show(box.value.trim() ? search(box.value) : []); }, 120);
    });
    document.getElementById("search-form").addEventListener("submit", function (e) { e.preventDefault(); });
  }

  // The standing filter (publish.ranking) opens on the errors users hit, where there are any; "all" shows every card.
  var KEYS = ["standing", "exception", "status", "module"];
  var filters = KEYS.map(function (n) { return document.getElementById("filter-" + n); });
  function applyFilters() {
    var wanted = filters.map(function (f) { return f ? f.value : ""; });
    document.querySelectorAll("ul.cards li").forEach(function (li) {
      var keep = KEYS.every(function (k, i) { return !wanted[i] || li.getAttribute("data-" + k) === wanted[i]; });
      li.hidden = !keep;
    });
    document.querySelectorAll("details.module, section.package").forEach(function (block) {
      block.hidden = block.querySelectorAll("ul.cards li:not([hidden])").length === 0;
    });
  }
  filters.forEach(function (f) { if (f) f.addEventListener("change", applyFilters); });
  if (filters[0] && filters[0].getAttribute("data-default")) { filters[0].value = filters[0].getAttribute("data-default"); applyFilters(); }
  window.raisedocsSearch = search;  // for tests and the console
})();
