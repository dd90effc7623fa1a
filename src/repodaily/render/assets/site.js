// repodaily pages: filters on a day page, search over the index, keyboard navigation.
// Text from the reports is only ever set with textContent; no markup is built from data.
(function () {
  "use strict";

  var FLAG_BITS = { "breaking": 1, "security": 2, "user-facing": 4 };

  function chosen(form) {
    var importance = {};
    var flags = [];
    Array.prototype.forEach.call(form.querySelectorAll("input[name=importance]"), function (box) {
      importance[box.value] = box.checked;
    });
    Array.prototype.forEach.call(form.querySelectorAll("input[name=flag]:checked"), function (box) {
      flags.push(box.value);
    });
    var select = form.querySelector("select[name=type]");
    return { importance: importance, type: select ? select.value : "", flags: flags };
  }

  function passes(choice, importance, type, hasFlag) {
    if (!choice.importance[importance]) { return false; }
    if (choice.type && choice.type !== type) { return false; }
    return choice.flags.every(hasFlag);
  }

  // -- a day page: hide the commit sections (and their table-of-contents entries) the filters leave out

  function filterSections(form) {
    var choice = chosen(form);
    Array.prototype.forEach.call(document.querySelectorAll("section.commit"), function (section) {
      var shown = passes(choice, section.dataset.importance, section.dataset.type, function (flag) {
        return section.getAttribute("data-" + flag) === "1";
      });
      section.hidden = !shown;
      var entry = document.querySelector('li[data-for="' + section.id + '"]');
      if (entry) { entry.hidden = !shown; }
    });
  }

  // -- the search page

  function typeNames(form) {
    var names = {};
    Array.prototype.forEach.call(form.querySelectorAll("select[name=type] option"), function (option) {
      if (option.value) { names[option.value] = option.textContent; }
    });
    return names;
  }

  var EMOJI = { "high": "🔴", "medium": "🟡", "low": "🟢" };
  var LIMIT = 300;

  function search(index, box, form, list, count) {
    var terms = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    var choice = chosen(form);
    var names = typeNames(form);
    var found = index.commits.filter(function (c) {
      var page = index.pages[c[0]];
      if (!passes(choice, c[5], c[6], function (flag) { return (c[7] & FLAG_BITS[flag]) !== 0; })) { return false; }
      if (!terms.length) { return true; }
      var text = (c[2] + " " + c[3] + " " + c[4] + " " + index.repos[page[0]] + " " + page[1]).toLowerCase();
      return terms.every(function (term) { return text.indexOf(term) !== -1; });
    });
    found.sort(function (a, b) {
      var da = index.pages[a[0]][1], db = index.pages[b[0]][1];
      return da < db ? 1 : da > db ? -1 : 0;
    });
    list.textContent = "";
    found.slice(0, LIMIT).forEach(function (c) {
      var page = index.pages[c[0]];
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = page[2] + "#" + c[1];
      link.textContent = EMOJI[c[5]] + " " + c[3];
      var where = document.createElement("div");
      where.className = "muted";
      where.textContent = index.repos[page[0]] + " · " + page[1] + " · " + c[2] + " · " + (names[c[6]] || c[6]);
      var line = document.createElement("div");
      line.textContent = c[4];
      item.appendChild(link);
      item.appendChild(where);
      item.appendChild(line);
      list.appendChild(item);
    });
    count.textContent = found.length ? count.dataset.template.replace("{n}", String(found.length)) : count.dataset.none;
  }

  function startSearch(form) {
    var index = window.REPODAILY_INDEX;
    var box = document.getElementById("search");
    var list = document.getElementById("results");
    var count = document.getElementById("result-count");
    if (!index || !box || !list || !count) { return; }
    var query = new URLSearchParams(window.location.search).get("q");
    if (query) { box.value = query; }
    var run = function () { search(index, box, form, list, count); };
    box.addEventListener("input", run);
    document.getElementById("search-form").addEventListener("submit", function (event) { event.preventDefault(); run(); });
    form.addEventListener("change", run);
    run();
  }

  // -- keyboard: "/" to search, "j" / "k" to the next / previous shown commit

  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA");
  }

  function step(direction) {
    var sections = Array.prototype.filter.call(document.querySelectorAll("section.commit"), function (s) {
      return !s.hidden;
    });
    if (!sections.length) { return; }
    var current = sections.findIndex(function (s) { return s.id === window.location.hash.slice(1); });
    var next = sections[Math.min(Math.max(current + direction, 0), sections.length - 1)];
    window.location.hash = next.id;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    if (event.key === "/") {
      var box = document.getElementById("search");
      event.preventDefault();
      if (box) { box.focus(); } else { window.location.href = document.querySelector("a.brand").getAttribute("href").replace(/index\.html$/, "search.html"); }
    } else if (event.key === "j") {
      step(1);
    } else if (event.key === "k") {
      step(-1);
    }
  });

  var filters = document.getElementById("filters");
  if (filters && document.getElementById("search")) {
    startSearch(filters);
  } else if (filters) {
    filters.addEventListener("change", function () { filterSections(filters); });
    filterSections(filters);
  }
}());
