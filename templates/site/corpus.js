/* raisedocs corpus site: search every project's errors by a pasted message or traceback,
   loading only the shards the paste needs (corpus/search.py cuts them; corpus-search.js
   says how many). site.js ranks the entries found, as a one-project site ranks its own. */
(function () {
  "use strict";
  var CORPUS = window.RAISEDOCS_CORPUS, RANK = window.RAISEDOCS_SEARCH;
  if (!CORPUS || !RANK) return;
  var root = document.querySelector('link[href$="assets/site.css"]').getAttribute("href").replace("assets/site.css", "");
  var CANDIDATES = 40, loaded = {}, waiting = {};

  // A shard script calls this with its data.
  window.raisedocsShard = function (name, data) {
    loaded[name] = data;
    (waiting[name] || []).forEach(function (done) { done(); });
    delete waiting[name];
  };

  function load(name) {
    return new Promise(function (resolve) {
      if (Object.prototype.hasOwnProperty.call(loaded, name)) { resolve(loaded[name]); return; }
      var first = !waiting[name];
      (waiting[name] = waiting[name] || []).push(function () { resolve(loaded[name]); });
      if (!first) return;
      var script = document.createElement("script");
      script.src = root + "search/" + name + ".js";
      script.onerror = function () { window.raisedocsShard(name, null); };
      document.head.appendChild(script);
    });
  }

  var UTF8 = new TextEncoder();
  function fnv1a(text) {  // corpus/search.py's fnv1a, over the UTF-8 bytes
    var bytes = UTF8.encode(text), h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) { h ^= bytes[i]; h = Math.imul(h, 0x01000193) >>> 0; }
    return h >>> 0;
  }
  var PATH_WEIGHT = 4;  // a frame's file is worth more than any word of the message
  function framePaths(raw) {  // "@a/b.py" and "@b.py" for a frame in .../a/b.py
    var out = [], re = /File "([^"]+)", line \d+/g, m;
    while ((m = re.exec(raw))) {
      var parts = m[1].replace(/\\/g, "/").split("/").filter(Boolean);
      for (var i = 0; i < parts.length; i++) out.push("@" + parts.slice(i).join("/"));
    }
    return out;
  }
  function pad(n) { return ("000" + n).slice(-4); }
  function unique(list) { return list.filter(function (x, i) { return list.indexOf(x) === i; }); }

  function find(raw) {
    var paths = unique(framePaths(raw)), words = unique(RANK.tokens(raw).concat(paths));
    var termShard = function (w) { return "t" + pad(fnv1a(w) % CORPUS.term_shards); };
    return Promise.all(unique(words.map(termShard)).map(load)).then(function () {
      var score = {};  // an entry's score: the rarity (idf) of the paste's tokens it holds
      words.forEach(function (w) {
        var list = (loaded[termShard(w)] || {})[w];
        if (!list) return;
        var idf = Math.log(1 + CORPUS.entries / list.length) * (w.charAt(0) === "@" ? PATH_WEIGHT : 1);
        list.forEach(function (n) { score[n] = (score[n] || 0) + idf; });
      });
      var best = Object.keys(score).map(Number).sort(function (a, b) { return score[b] - score[a] || a - b; }).slice(0, CANDIDATES);
      var entryShard = function (n) { return "e" + pad(Math.floor(n / CORPUS.per_shard)); };
      return Promise.all(unique(best.map(entryShard)).map(load)).then(function () {
        var entries = best.map(function (n) { return (loaded[entryShard(n)] || [])[n % CORPUS.per_shard]; }).filter(Boolean);
        return RANK.search(raw, entries);
      });
    });
  }

  var box = document.getElementById("search-box");
  if (!box) return;
  var asked = 0, pending = null;
  box.addEventListener("input", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      var mine = ++asked, text = box.value;
      if (!text.trim()) { RANK.show([]); return; }
      find(text).then(function (results) { if (mine === asked) RANK.show(results); });
    }, 150);
  });
  document.getElementById("search-form").addEventListener("submit", function (e) { e.preventDefault(); });
  window.raisedocsCorpusSearch = find;  // for tests and the console
})();
