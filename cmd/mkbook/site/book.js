// The book's pages: keyboard navigation, search, the help overlay, the
// theme and the sidebar.  No server and no library: everything works from
// file://, and the search index is loaded as a script the first time the
// search opens.
(function () {
  'use strict';
  var root = document.documentElement;
  var $ = function (id) { return document.getElementById(id); };
  var search = $('search'), input = $('search-input'), results = $('search-results');
  var help = $('help'), status = $('search-status');
  var selected = -1, lastFocus = null;

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  function open(el) {
    if (!el) return;
    lastFocus = document.activeElement;
    el.hidden = false;
  }
  function close(el) {
    if (!el || el.hidden) return false;
    el.hidden = true;
    if (lastFocus && lastFocus.focus) lastFocus.focus();
    return true;
  }
  function follow(rel) {
    var a = document.querySelector('a[rel="' + rel + '"]');
    if (a) window.location.href = a.href;
  }

  // Theme: remembered, defaulting to the system's.
  var theme = $('theme-toggle');
  if (theme) theme.addEventListener('click', function () {
    var t = root.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
    root.setAttribute('data-theme', t);
    try { localStorage.setItem('book-theme', t); } catch (e) {}
  });

  // The sidebar: hidden and shown by its button, which says which it is.
  var toggle = $('sidebar-toggle');
  if (toggle) toggle.addEventListener('click', function () {
    var narrow = window.matchMedia('(max-width: 50rem)').matches;
    var cls = narrow ? 'sidebar-open' : 'sidebar-hidden';
    var on = document.body.classList.toggle(cls);
    toggle.setAttribute('aria-expanded', String(narrow ? on : !on));
  });

  // Search.
  var index = null;
  function loadIndex(then) {
    if (index || window.BOOK_SEARCH) { index = window.BOOK_SEARCH; then(); return; }
    var s = document.createElement('script');
    s.src = (document.body.classList.contains('log') ? '../' : '') + 'searchindex.js';
    s.onload = function () { index = window.BOOK_SEARCH; then(); };
    s.onerror = function () { status.textContent = 'The search index could not be loaded.'; };
    document.head.appendChild(s);
  }
  function words(s) { return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []; }
  function query(q) {
    var terms = words(q), hits = null;
    if (!terms.length || !index) return [];
    terms.forEach(function (t, i) {
      var docs = {};
      Object.keys(index.words).forEach(function (w) {
        // every term whole, the one being typed as a prefix
        if (w === t || (i === terms.length - 1 && t.length > 1 && w.indexOf(t) === 0)) {
          index.words[w].forEach(function (d) { docs[d] = (docs[d] || 0) + 1; });
        }
      });
      if (hits === null) hits = docs;
      else Object.keys(hits).forEach(function (d) { if (!docs[d]) delete hits[d]; else hits[d] += docs[d]; });
    });
    return Object.keys(hits || {}).map(Number).sort(function (a, b) {
      return (hits[b] - hits[a]) || (a - b);
    }).slice(0, 20).map(function (d) { return { doc: index.docs[d], terms: terms }; });
  }
  function href(h) {
    return h.doc.p + '?highlight=' + encodeURIComponent(h.terms.join(' ')) + '#' + h.doc.a;
  }
  function show() {
    var hits = query(input.value);
    results.innerHTML = '';
    selected = hits.length ? 0 : -1;
    hits.forEach(function (h, i) {
      var li = document.createElement('li'), a = document.createElement('a'), lead = document.createElement('span');
      a.href = href(h);
      a.textContent = h.doc.t;
      lead.className = 'lead';
      lead.textContent = h.doc.b;
      li.appendChild(a); li.appendChild(lead);
      if (i === 0) li.className = 'selected';
      results.appendChild(li);
    });
    status.textContent = !input.value.trim() ? '' : hits.length === 1 ? '1 section' :
      hits.length ? hits.length + ' sections' : 'Nothing found.';
  }
  function move(d) {
    var items = results.children;
    if (!items.length) return;
    if (selected >= 0) items[selected].className = '';
    selected = (selected + d + items.length) % items.length;
    items[selected].className = 'selected';
    items[selected].scrollIntoView({ block: 'nearest' });
  }
  function openSearch() {
    close(help);
    open(search);
    // Focus after the key that opened the search is done, so it is not typed.
    setTimeout(function () { input.focus(); input.select(); }, 0);
    loadIndex(show);
  }
  if (input) {
    input.addEventListener('input', function () { loadIndex(show); });
    input.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowDown') { move(1); e.preventDefault(); }
      else if (e.key === 'ArrowUp') { move(-1); e.preventDefault(); }
      else if (e.key === 'Enter' && selected >= 0) {
        window.location.href = results.children[selected].querySelector('a').href;
        e.preventDefault();
      }
    });
  }
  var sb = $('search-button');
  if (sb) sb.addEventListener('click', openSearch);
  var hb = $('help-button');
  if (hb) hb.addEventListener('click', function () { if (!close(help)) { close(search); open(help); } });

  // A click outside an open overlay closes it.
  document.addEventListener('click', function (e) {
    [search, help].forEach(function (o) {
      if (o && !o.hidden && !o.contains(e.target) && e.target !== sb && e.target !== hb) close(o);
    });
  });

  // Keys, ignored while a modifier is held or a field has focus.
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape') {
      if (close(search) | close(help)) e.preventDefault();
      return;
    }
    if (typing(e.target)) return;
    switch (e.key) {
    case 'ArrowLeft': follow('prev'); break;
    case 'ArrowRight': follow('next'); break;
    case 's': case 'S': case '/':
      if (!search) return;
      openSearch();
      break;
    case '?':
      if (!close(help)) { close(search); open(help); }
      break;
    default:
      return;
    }
    e.preventDefault();
  });

  // Hits land highlighted: page.html?highlight=terms marks them.
  var params = new URLSearchParams(window.location.search);
  var hl = params.get('highlight');
  var article = document.querySelector('article');
  if (hl && article) {
    var terms = words(hl).filter(function (t) { return t.length > 1; });
    if (terms.length) {
      var re = new RegExp('(' + terms.map(function (t) {
        return t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }).join('|') + ')', 'giu');
      var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT), nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      nodes.forEach(function (n) {
        if (!re.test(n.nodeValue) || n.parentNode.closest('svg')) return;
        re.lastIndex = 0;
        // Built as nodes, never as HTML: the page's text stays text.
        var marked = document.createDocumentFragment();
        n.nodeValue.split(re).forEach(function (part, i) {
          if (!part) return;
          var node = i % 2 ? document.createElement('mark') : document.createTextNode(part);
          if (i % 2) node.textContent = part;
          marked.appendChild(node);
        });
        n.parentNode.replaceChild(marked, n);
      });
      var first = article.querySelector('mark');
      if (first && !window.location.hash) first.scrollIntoView({ block: 'center' });
    }
  }
})();
