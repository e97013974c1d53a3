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
  var up = document.body.getAttribute('data-root') || '';
  var selected = -1, lastFocus = null;
  var store = function (k, v) { try { if (v === undefined) return localStorage.getItem(k); localStorage.setItem(k, v); } catch (e) {} return null; };

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }
  function isOpen(el) { return el && !el.hidden; }
  // An overlay takes the focus when it opens, keeps Tab inside it, and
  // gives the focus back to where it was when it closes.
  function open(el, focus) {
    if (!el) return;
    if (!isOpen(search) && !isOpen(help)) lastFocus = document.activeElement;
    el.hidden = false;
    // After the key that opened it is done, so that it is not typed.
    setTimeout(function () { (focus || el).focus(); }, 0);
  }
  function close(el) {
    if (!isOpen(el)) return false;
    el.hidden = true;
    if (!isOpen(search) && !isOpen(help) && lastFocus && lastFocus.focus) lastFocus.focus();
    return true;
  }
  function trap(e) {
    var o = isOpen(search) ? search : isOpen(help) ? help : null;
    if (!o || e.key !== 'Tab') return false;
    var f = [].filter.call(o.querySelectorAll('a[href], button, input'), function (x) { return x.offsetParent; });
    if (!f.length) { e.preventDefault(); return true; }
    var i = f.indexOf(document.activeElement), n = f.length;
    f[i < 0 ? (e.shiftKey ? n - 1 : 0) : (i + (e.shiftKey ? n - 1 : 1)) % n].focus();
    e.preventDefault();
    return true;
  }
  function follow(rel) {
    var a = document.querySelector('a[rel="' + rel + '"]');
    if (a) window.location.href = a.href;
  }

  // Theme: remembered, defaulting to the system's; the button says which is on.
  var theme = $('theme-toggle');
  function showTheme() {
    if (!theme) return;
    var dark = root.getAttribute('data-theme') === 'dark';
    theme.textContent = dark ? 'Dark' : 'Light';
    theme.title = 'The ' + (dark ? 'dark' : 'light') + ' theme is on: switch to the ' + (dark ? 'light' : 'dark') + ' one';
    theme.setAttribute('aria-label', theme.title);
  }
  showTheme();
  if (theme) theme.addEventListener('click', function () {
    var t = root.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
    root.setAttribute('data-theme', t);
    store('book-theme', t);
    showTheme();
  });

  // The bar's real height, which the sidebar and the anchors keep clear of.
  var bar = document.querySelector('.bar');
  function barHeight() { if (bar) root.style.setProperty('--bar', bar.offsetHeight + 'px'); }
  barHeight();
  window.addEventListener('resize', barHeight);

  // The sidebar: on a desk hidden and shown, and remembered across pages;
  // on a phone a drawer that closes on a tap outside it, on Esc and on
  // choosing a chapter.  Its button says whether it is open.
  var toggle = $('sidebar-toggle'), sidebar = $('sidebar');
  var narrow = function () { return window.matchMedia('(max-width: 50rem)').matches; };
  function sidebarShown() {
    return narrow() ? root.classList.contains('sidebar-open') : !root.classList.contains('sidebar-hidden');
  }
  function showSidebar() { if (toggle) toggle.setAttribute('aria-expanded', String(sidebarShown())); }
  function closeDrawer() {
    if (!narrow() || !root.classList.contains('sidebar-open')) return false;
    root.classList.remove('sidebar-open');
    showSidebar();
    return true;
  }
  showSidebar();
  window.addEventListener('resize', showSidebar);
  if (toggle) toggle.addEventListener('click', function () {
    if (narrow()) root.classList.toggle('sidebar-open');
    else store('book-sidebar', root.classList.toggle('sidebar-hidden') ? 'hidden' : 'shown');
    showSidebar();
  });
  if (sidebar) sidebar.addEventListener('click', function (e) { if (e.target.closest('a')) closeDrawer(); });

  // Search.  Words are runs of letters, digits and underscores of any
  // script; a code name is a word whole, and its parts are words too, of
  // less weight; a number is a word without its separators, so "2,000"
  // and "2000" are one.
  var index = null, docs = [], avg = 1, waiting = [];
  var WORD = /\p{N}+(?:[,.]\p{N}+)+|[\p{L}\p{N}_]+/gu;
  function norm(w) { w = w.toLowerCase(); return /^\p{N}+(?:[,.]\p{N}+)+$/u.test(w) ? w.replace(/,/g, '') : w; }
  function words(s) { return (s.match(WORD) || []).map(norm); }
  function count(s) {
    var tf = {}, n = 0;
    words(s).forEach(function (w) {
      tf[w] = (tf[w] || 0) + 1; n++;
      if (w.indexOf('_') >= 0) w.split('_').forEach(function (p) { if (p) tf['\u0001' + p] = (tf['\u0001' + p] || 0) + 1; });
    });
    return { tf: tf, n: n };
  }
  function loadIndex(then) {
    if (index) { then(); return; }
    var ready = function () {
      if (index) return;
      index = window.BOOK_SEARCH;
      var total = 0;
      docs = index.d.map(function (d) {
        var ch = index.c[d[0]], body = count(d[3]);
        total += body.n;
        return { page: ch[0], anchor: d[1], title: d[2] ? ch[1] + ' › ' + d[2] : ch[1],
          text: d[3], body: body, head: count(d[2] || ch[1]).tf, boost: d[2] ? 3 : 5 };
      });
      avg = Math.max(1, total / docs.length);
      if (waiting.length) waiting.forEach(function (f) { f(); }); else then();
    };
    if (window.BOOK_SEARCH) { ready(); return; }
    if (waiting.push(then) > 1) return;
    var s = document.createElement('script');
    s.src = up + 'searchindex.js';
    s.onload = ready;
    s.onerror = function () { status.textContent = 'The search index could not be loaded.'; };
    document.head.appendChild(s);
  }
  // The words of the index a term stands for: itself, and, for the term
  // being typed, the words it begins.
  var vocabulary = null, dfs = {};
  function forms(t, last) {
    if (!vocabulary) {
      vocabulary = {};
      docs.forEach(function (d) { Object.keys(d.body.tf).forEach(function (w) { if (w[0] !== '\u0001') vocabulary[w] = 1; }); });
    }
    var f = [t];
    if (last && t.length > 1) Object.keys(vocabulary).forEach(function (w) { if (w !== t && w.indexOf(t) === 0) f.push(w); });
    return f;
  }
  // BM25 over the text, plus the heading: a word of a section's heading,
  // or of its chapter's title, counts as much as a text full of it.
  function query(q) {
    var terms = words(q);
    if (!terms.length || !index) return { hits: [], total: 0, terms: [] };
    var k1 = 1.2, b = 0.75, N = docs.length, marked = {};
    var scores = docs.map(function (d) {
      var score = 0;
      for (var i = 0; i < terms.length; i++) {
        var best = 0;
        forms(terms[i], i === terms.length - 1).forEach(function (w, j) {
          var weight = j ? 0.5 : 1;
          var tf = d.body.tf[w] || 0, part = d.body.tf['\u0001' + w] || 0, head = d.head[w] || d.head['\u0001' + w] || 0;
          if (!tf && !part && !head) return;
          var df = dfs[w];
          if (df === undefined) {
            df = dfs[w] = 0;
            docs.forEach(function (e) { if (e.body.tf[w] || e.body.tf['\u0001' + w] || e.head[w]) dfs[w] = ++df; });
          }
          var idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
          var f = tf + 0.3 * part;
          var s = idf * weight * (f * (k1 + 1) / (f + k1 * (1 - b + b * d.body.n / avg)) + (head ? d.boost : 0));
          if (s > best) best = s;
          if (tf) marked[w] = 1;
        });
        if (!best) return 0; // every term, or no hit
        score += best;
      }
      return score;
    });
    var order = [];
    scores.forEach(function (s, i) { if (s > 0) order.push(i); });
    order.sort(function (x, y) { return (scores[y] - scores[x]) || (x - y); });
    return { hits: order.slice(0, 20).map(function (i) { return docs[i]; }), total: order.length,
      terms: Object.keys(marked).length ? Object.keys(marked) : terms };
  }
  // The text around the first hit, with every hit marked: built as nodes,
  // never as HTML, so the book's text stays text.
  function snippet(text, terms) {
    var span = document.createElement('span'), hits = [], m;
    span.className = 'lead';
    WORD.lastIndex = 0;
    while ((m = WORD.exec(text))) if (terms.indexOf(norm(m[0])) >= 0) hits.push([m.index, m.index + m[0].length]);
    var from = hits.length ? Math.max(0, hits[0][0] - 60) : 0, to = Math.min(text.length, from + 180);
    if (from > 0) from = text.indexOf(' ', from) + 1 || from;
    var at = from;
    if (from > 0) span.appendChild(document.createTextNode('…'));
    hits.forEach(function (h) {
      if (h[0] < at || h[1] > to) return;
      span.appendChild(document.createTextNode(text.slice(at, h[0])));
      var mk = document.createElement('mark'); mk.textContent = text.slice(h[0], h[1]); span.appendChild(mk);
      at = h[1];
    });
    span.appendChild(document.createTextNode(text.slice(at, to) + (to < text.length ? '…' : '')));
    return span;
  }
  var found = { terms: [] };
  function show() {
    found = query(input.value);
    results.innerHTML = '';
    found.hits.forEach(function (d, i) {
      var li = document.createElement('li'), a = document.createElement('a');
      li.id = 'result-' + i;
      li.setAttribute('role', 'option');
      a.href = up + d.page + '?highlight=' + encodeURIComponent(found.terms.join(' ')) + '#' + d.anchor;
      a.textContent = d.title;
      a.tabIndex = -1;
      li.appendChild(a); li.appendChild(snippet(d.text, found.terms));
      results.appendChild(li);
    });
    select(found.hits.length ? 0 : -1);
    var n = found.hits.length, t = found.total;
    status.textContent = !input.value.trim() ? '' : !t ? 'Nothing found.' :
      n < t ? n + ' of ' + t + ' sections' : t === 1 ? '1 section' : t + ' sections';
  }
  function select(i) {
    var items = results.children;
    if (selected >= 0 && items[selected]) { items[selected].className = ''; items[selected].setAttribute('aria-selected', 'false'); }
    selected = i;
    if (i < 0 || !items[i]) { input.removeAttribute('aria-activedescendant'); return; }
    items[i].className = 'selected';
    items[i].setAttribute('aria-selected', 'true');
    input.setAttribute('aria-activedescendant', items[i].id);
    items[i].scrollIntoView({ block: 'nearest' });
  }
  function move(d) {
    var n = results.children.length;
    if (n) select((selected + d + n) % n);
  }
  function openSearch() {
    close(help);
    closeDrawer();
    unmark();
    open(search, input);
    setTimeout(function () { input.select(); }, 0);
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
  function toggleHelp() { if (!close(help)) { close(search); closeDrawer(); open(help); } }
  if (hb) hb.addEventListener('click', toggleHelp);

  // A click outside an open overlay, or the open drawer, closes it.
  document.addEventListener('click', function (e) {
    [search, help].forEach(function (o) {
      if (isOpen(o) && !o.contains(e.target) && e.target !== sb && e.target !== hb) close(o);
    });
    if (sidebar && !sidebar.contains(e.target) && toggle && !toggle.contains(e.target)) closeDrawer();
  });

  // A block that scrolls sideways and has the focus keeps the arrows.
  function scrolls(el) {
    for (; el && el !== document.body; el = el.parentElement) {
      if (el.scrollWidth > el.clientWidth && /auto|scroll/.test(getComputedStyle(el).overflowX)) return true;
    }
    return false;
  }
  // Wide blocks can be reached and scrolled from the keyboard.
  [].forEach.call(document.querySelectorAll('article pre, article table'), function (el) {
    if (el.scrollWidth > el.clientWidth && !el.hasAttribute('tabindex')) el.tabIndex = 0;
  });

  // Keys, ignored while a modifier is held or a field has focus.
  document.addEventListener('keydown', function (e) {
    if (trap(e)) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape') {
      if (close(search) | close(help) | closeDrawer() | unmark()) e.preventDefault();
      return;
    }
    if (typing(e.target)) return;
    switch (e.key) {
    case 'ArrowLeft': case 'ArrowRight':
      if (e.shiftKey || scrolls(e.target)) return;
      follow(e.key === 'ArrowLeft' ? 'prev' : 'next');
      break;
    case 's': case 'S': case '/':
      if (!search) return;
      // The key's own character, should it come after the focus moved, is not typed.
      var k = e.key, eat = function (ev) { if (ev.key === k) ev.preventDefault(); };
      document.addEventListener('keypress', eat, true);
      document.addEventListener('keyup', function done(ev) {
        if (ev.key !== k) return;
        document.removeEventListener('keypress', eat, true);
        document.removeEventListener('keyup', done, true);
      }, true);
      openSearch();
      break;
    case '?':
      toggleHelp();
      break;
    default:
      return;
    }
    e.preventDefault();
  });

  // A listing's link lands on its lines: src/FILE.html?lines=40-71#L40
  // marks lines 40 to 71 of the file.
  var lines = /^(\d+)-(\d+)$/.exec(new URLSearchParams(window.location.search).get('lines') || '');
  if (lines) {
    for (var n = +lines[1]; n <= +lines[2] && n - lines[1] < 5000; n++) {
      var line = $('L' + n);
      if (line) line.classList.add('target');
    }
  }

  // Hits land highlighted: page.html?highlight=terms marks the words and
  // code names that are the terms, whole, until Esc or the next search.
  var article = document.querySelector('article');
  function unmark() {
    var marks = article ? article.querySelectorAll('mark.hit') : [];
    [].forEach.call(marks, function (m) { m.replaceWith(document.createTextNode(m.textContent)); });
    if (article && marks.length) article.normalize();
    return marks.length > 0;
  }
  var hl = new URLSearchParams(window.location.search).get('highlight');
  if (hl && article) {
    var terms = words(hl);
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT), nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    nodes.forEach(function (n) {
      if (n.parentNode.closest('svg')) return;
      var text = n.nodeValue, m, at = 0, frag = null;
      WORD.lastIndex = 0;
      while ((m = WORD.exec(text))) {
        if (terms.indexOf(norm(m[0])) < 0) continue;
        frag = frag || document.createDocumentFragment();
        frag.appendChild(document.createTextNode(text.slice(at, m.index)));
        var mk = document.createElement('mark');
        mk.className = 'hit';
        mk.textContent = m[0];
        frag.appendChild(mk);
        at = m.index + m[0].length;
      }
      if (!frag) return;
      frag.appendChild(document.createTextNode(text.slice(at)));
      n.parentNode.replaceChild(frag, n);
    });
    var first = article.querySelector('mark.hit');
    if (first && !window.location.hash) first.scrollIntoView({ block: 'center' });
  }
})();
