// Keyboard navigation: left and right arrows follow the previous and next
// chapter links, unless a modifier is held or an input has focus.
document.addEventListener('keydown', function (e) {
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  var t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  var rel = e.key === 'ArrowLeft' ? 'prev' : e.key === 'ArrowRight' ? 'next' : null;
  if (!rel) return;
  var a = document.querySelector('a[rel="' + rel + '"]');
  if (a) { e.preventDefault(); window.location.href = a.href; }
});
