package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"endovisor/internal/testenv"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium finds Debian's Chromium: $CHROMIUM, or the package's binary.
// With none, the test is skipped, naming the package, or fails in CI.
// With -short it is skipped: a browser test takes longer than all of
// mkbook's other tests together.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("drives Chromium; run without -short")
	}
	bin := findChromium()
	testenv.Need(t, bin != "", "Chromium (or set $CHROMIUM)", "chromium")
	return bin
}

func findChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// browser starts headless Chromium for the test, bounded to two minutes;
// it stops when the test ends.
func browser(t *testing.T, bin string) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestSiteInBrowser builds the good fixture book and drives its site in
// headless Chromium from file://, as a reader would: the arrow keys change
// chapter, S and / open the search, a search finds a word and opens its
// chapter with the word marked, whole, until Esc; the search ranks a
// chapter's own title first, finds code names and numbers and shows the
// hit in its snippet; ? shows the help and Esc hides it; Tab stays inside
// an open overlay; the arrows leave a scrolling block alone and ignore
// Shift; no page, log pages too, is wider than a 320px window; the drawer
// closes on a tap outside and on Esc; a log page has the bar and follows
// the theme; print.html has contents and links only within itself; a
// diagram is inlined with its numbered caption, its text legible on the
// page and on its boxes in both themes; a ratio's link lands on its entry,
// which links to both its figures; print.html has no id twice; and every
// internal link of every page lands on a page and an anchor that exist.  Screenshots go to $EV_SCREENSHOTS if set.
func TestSiteInBrowser(t *testing.T) {
	bin := chromium(t)
	root := fixture(t, "good")
	if code := run([]string{"-root", root, "build"}, io.Discard, os.Stderr); code != 0 {
		t.Fatalf("mkbook build: exit %d", code)
	}
	site := filepath.Join(root, "book", "site")
	shots := os.Getenv("EV_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	ctx := browser(t, bin)

	url := func(page string) string { return "file://" + filepath.Join(site, page) }
	// A step that fails or hangs past the test's bound is reported at its line.
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	var loc string
	page := func() string {
		var err error
		if loc, err = chromedp.Run(ctx, chromedp.Location()); err != nil {
			t.Fatal(err)
		}
		return filepath.Base(strings.SplitN(strings.SplitN(loc, "#", 2)[0], "?", 2)[0])
	}
	hidden := func(id string) bool {
		h, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.getElementById(%q).hidden`, id)))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	shot := func(name string) {
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func(k string) {
		t.Helper()
		do(chromedp.KeyEvent(k), chromedp.Sleep(150*time.Millisecond))
	}
	wait := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("waiting for %s: %v", sel, err)
		}
	}

	// Arrow keys move between chapters.
	do(chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
	shot("chapter")
	key(kb.ArrowRight)
	wait("article")
	if p := page(); p != "tasks.html" {
		t.Fatalf("right arrow from chapter 1 went to %s, want tasks.html", p)
	}
	key(kb.ArrowLeft)
	wait("article")
	if p := page(); p != "crossing.html" {
		t.Fatalf("left arrow from chapter 2 went to %s, want crossing.html", p)
	}

	// ? shows the help, Esc hides it, and so does a click outside it.
	key("?")
	if hidden("help") {
		t.Fatal("? did not show the help")
	}
	shot("help")
	key(kb.Escape)
	if !hidden("help") {
		t.Fatal("Esc did not hide the help")
	}
	key("?")
	do(chromedp.MouseClickXY(1150, 880))
	if !hidden("help") {
		t.Fatal("a click outside did not hide the help")
	}

	// / and S open the search; a word finds its chapter and opens it marked.
	key("/")
	if hidden("search") {
		t.Fatal("/ did not open the search")
	}
	key(kb.Escape)
	if !hidden("search") {
		t.Fatal("Esc did not close the search")
	}
	key("s")
	if hidden("search") {
		t.Fatal("S did not open the search")
	}
	do(chromedp.SendKeys(chromedp.ID("search-input"), "switch"))
	wait("#search-results li")
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#search-results li').length`))
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("a search for 'switch' found nothing")
	}
	shot("search")
	do(chromedp.SendKeys(chromedp.ID("search-input"), kb.Enter))
	wait("article mark")
	if p := page(); p != "tasks.html" || !strings.Contains(loc, "highlight=switch") {
		t.Fatalf("the search hit opened %s, want tasks.html?highlight=switch", loc)
	}
	marked, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("article mark")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(marked, "switch") {
		t.Fatalf("the hit is marked %q, want 'switch'", marked)
	}
	shot("hit")

	// The marks are whole words, and Esc clears them.
	if n := evalInt(t, ctx, `[...document.querySelectorAll('article mark')].filter(m => !/^switch$/i.test(m.textContent)).length`); n != 0 {
		t.Fatalf("%d marks are not the word 'switch' whole", n)
	}
	key(kb.Escape)
	if n := evalInt(t, ctx, `document.querySelectorAll('article mark').length`); n != 0 {
		t.Fatalf("Esc left %d marks", n)
	}

	// The search ranks a chapter's own title first, finds code names and
	// numbers as the prose writes them, and shows the text around the hit.
	find := func(q string) []string {
		t.Helper()
		do(chromedp.Navigate(url("tasks.html")), chromedp.WaitReady(chromedp.CSS("body")))
		key("s")
		if v := evalString(t, ctx, `document.getElementById('search-input').value`); v != "" {
			t.Fatalf("S opened the search with %q typed", v)
		}
		do(chromedp.SendKeys(chromedp.ID("search-input"), q))
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#search-results li"))); err != nil {
			t.Fatalf("a search for %q found nothing: %v", q, err)
		}
		return evalStrings(t, ctx, `[...document.querySelectorAll('#search-results li')].map(li => li.querySelector('a').textContent + '|' + [...li.querySelectorAll('.lead mark')].map(m => m.textContent).join(','))`)
	}
	if r := find("crossing"); !strings.HasPrefix(r[0], "The crossing|") {
		t.Errorf("'crossing' ranks %q first, want the chapter The crossing", r)
	}
	if r := find("kernelet_switch_mm"); !strings.HasPrefix(r[0], "Tasks › The address space: kernelet_switch_mm|") {
		t.Errorf("'kernelet_switch_mm' ranks %q first, want the section titled with it", r)
	}
	// A name the sources define is found where it is defined, first.
	if r := find("ev_stub_cross"); r[0] != "ev_stub_cross|" {
		t.Errorf("'ev_stub_cross' ranks %q first, want its definition", r)
	}
	if h := evalString(t, ctx, `document.querySelector('#search-results li a').getAttribute('href')`); h != "src/prototype/stub/cross.S.html#L8" {
		t.Errorf("the definition of ev_stub_cross links to %q", h)
	}
	for _, q := range []string{"2,000", "2000"} {
		if r := find(q); !strings.HasSuffix(r[0], "|2,000") {
			t.Errorf("%q finds %q, want the section with 2,000 marked in its snippet", q, r)
		}
	}
	if r := find("16 KiB"); !strings.Contains(r[0], "16") || !strings.Contains(r[0], "KiB") {
		t.Errorf("'16 KiB' finds %q, want 16 and KiB marked", r)
	}
	if id := evalString(t, ctx, `document.getElementById('search-input').getAttribute('aria-activedescendant') || ''`); id == "" {
		t.Error("the search input does not name the selected result (aria-activedescendant)")
	}
	shot("snippet")

	// Tab stays inside an open overlay, and Esc gives the focus back.
	for i := 0; i < 4; i++ {
		key(kb.Tab)
		if !evalBool(t, ctx, `document.getElementById('search').contains(document.activeElement)`) {
			t.Fatalf("Tab %d left the open search for %s", i+1, evalString(t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))
		}
	}
	key(kb.Escape)
	do(chromedp.Navigate(url("tasks.html")), chromedp.WaitReady(chromedp.CSS("body")))
	key("?")
	for i := 0; i < 3; i++ {
		key(kb.Tab)
		if !evalBool(t, ctx, `document.getElementById('help').contains(document.activeElement)`) {
			t.Fatalf("Tab %d left the open help", i+1)
		}
	}
	key(kb.Escape)

	// The arrows are left to a block that scrolls and has the focus, and
	// Shift with an arrow changes no chapter.
	do(chromedp.Focus(chromedp.CSS("article pre")))
	key(kb.ArrowRight)
	if p := page(); p != "tasks.html" {
		t.Fatalf("the right arrow in a scrolling listing went to %s", p)
	}
	do(chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
	do(chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift)), chromedp.Sleep(150*time.Millisecond))
	if p := page(); p != "crossing.html" {
		t.Fatalf("Shift+right arrow went to %s", p)
	}

	// Only a page with code loads the code's colours.
	if evalBool(t, ctx, `!!document.querySelector('link[href$="code.css"]')`) {
		t.Error("crossing.html, which has no highlighted code, loads code.css")
	}

	// A heading's link to itself can be reached from the keyboard, and shows.
	do(chromedp.Focus(chromedp.CSS("h2 .anchor")))
	if op := evalString(t, ctx, `getComputedStyle(document.activeElement).opacity`); !strings.HasPrefix(op, "1") {
		t.Errorf("a focused heading link has opacity %s", op)
	}

	// Text in another script is found too.
	key("s")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('search-input').value = ''`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("search-input"), "кроссинг"),
		chromedp.WaitVisible(chromedp.CSS("#search-results li"))); err != nil {
		t.Fatalf("a search in Cyrillic found nothing: %v", err)
	}
	key(kb.Escape)

	// A link to a figure, on a page taller than the window, scrolls it
	// into view below the sticky bar rather than under it.
	const fig = "f-hello:crossing.stub"
	do(chromedp.EmulateViewport(1200, 320),
		chromedp.Navigate(url("provenance.html#"+fig)),
		chromedp.WaitReady(chromedp.CSS("body")),
		chromedp.Sleep(200*time.Millisecond))
	pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(
		`[window.scrollY, document.getElementById(%q).getBoundingClientRect().top, document.querySelector('.bar').getBoundingClientRect().bottom]`, fig)))
	if err != nil {
		t.Fatal(err)
	}
	if pos[0] == 0 {
		t.Fatalf("provenance.html#%s did not scroll: the check proves nothing", fig)
	}
	if pos[1] < pos[2] {
		t.Fatalf("provenance.html#%s puts the figure at %.0fpx, under the bar, which ends at %.0fpx", fig, pos[1], pos[2])
	}
	shot("anchor")

	// A listing's caption and a code name each link to their lines of the
	// source's page, which land below the sticky bar, in the window, with
	// the listing's lines marked.
	for _, c := range []struct {
		page, link, line string
		marked           int
	}{
		{"tasks.html", `figure.listing figcaption a`, "L8", 9},
		{"crossing.html", `article a.code[title^="asm symbol ev_stub_cross"]`, "L8", 0},
	} {
		do(chromedp.EmulateViewport(1200, 320), chromedp.Navigate(url(c.page)), chromedp.WaitReady(chromedp.CSS("body")))
		do(chromedp.Click(chromedp.CSS(c.link)), chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady(chromedp.CSS("pre.source")))
		if p := page(); p != "cross.S.html" || !strings.HasSuffix(loc, "#"+c.line) {
			t.Fatalf("%s: %s went to %s, want src/prototype/stub/cross.S.html#%s", c.page, c.link, loc, c.line)
		}
		pos, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(
			`[window.scrollY, document.getElementById(%q).getBoundingClientRect().top, document.getElementById(%q).getBoundingClientRect().bottom, document.querySelector('.bar').getBoundingClientRect().bottom, window.innerHeight, document.querySelectorAll('.line.target').length]`, c.line, c.line)))
		if err != nil {
			t.Fatal(err)
		}
		if pos[0] == 0 {
			t.Fatalf("%s: the source page did not scroll to %s: the check proves nothing", c.page, c.line)
		}
		if pos[1] < pos[3] || pos[2] > pos[4] {
			t.Fatalf("%s: line %s lands at %.0f-%.0fpx, not between the bar's bottom (%.0fpx) and the window's (%.0fpx)", c.page, c.line, pos[1], pos[2], pos[3], pos[4])
		}
		if int(pos[5]) != c.marked {
			t.Errorf("%s: %d lines marked on the source page, want %d", c.page, int(pos[5]), c.marked)
		}
		if txt := evalString(t, ctx, fmt.Sprintf(`document.getElementById(%q).textContent`, c.line)); !strings.Contains(txt, "ev_stub_cross:") {
			t.Errorf("%s: line %s of the source page is %q, not the label ev_stub_cross", c.page, c.line, txt)
		}
		shot("source-" + strings.TrimSuffix(c.page, ".html"))
	}

	// On a phone's width no page, the log pages too, scrolls sideways: the
	// bar's buttons fit on one line, long names wrap, and a wide table
	// scrolls inside itself.
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	logs, _ := filepath.Glob(filepath.Join(site, "logs", "*.html"))
	srcs, _ := filepath.Glob(filepath.Join(site, "src", "*.html"))
	more, _ := filepath.Glob(filepath.Join(site, "src", "*", "*", "*.html"))
	logs = append(logs, append(srcs, more...)...)
	for _, p := range append(pages, logs...) {
		do(chromedp.EmulateViewport(320, 700),
			chromedp.Navigate("file://"+p),
			chromedp.WaitReady(chromedp.CSS("body")))
		w := evalInts(t, ctx, `[document.documentElement.scrollWidth, document.documentElement.clientWidth, document.querySelector('.bar').offsetHeight, Math.ceil(document.querySelector('#help-button').getBoundingClientRect().right)]`)
		if w[0] > w[1] {
			t.Errorf("%s is %dpx wide in a %dpx window", filepath.Base(p), w[0], w[1])
		}
		if w[2] > 50 || w[3] > w[1] {
			t.Errorf("%s: at 320px the bar is %dpx high and its ? ends at %dpx", filepath.Base(p), w[2], w[3])
		}
	}
	shot("narrow")

	// On a phone the chapters are a drawer: it opens, and a tap outside
	// closes it; Esc and choosing a chapter do too.
	do(chromedp.EmulateViewport(400, 850), chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
	drawer := func() string {
		return evalString(t, ctx, `document.getElementById('sidebar-toggle').getAttribute('aria-expanded') + ' ' + getComputedStyle(document.getElementById('sidebar')).display`)
	}
	if d := drawer(); d != "false none" {
		t.Fatalf("on a phone the drawer starts %q, want closed", d)
	}
	if name := evalString(t, ctx, `document.getElementById('sidebar-toggle').getAttribute('aria-label')`); name != "Chapters" {
		t.Errorf("the drawer's toggle is named %q", name)
	}
	do(chromedp.Click(chromedp.ID("sidebar-toggle")), chromedp.Sleep(100*time.Millisecond))
	if d := drawer(); d != "true block" {
		t.Fatalf("the toggle left the drawer %q, want open", d)
	}
	shot("drawer")
	do(chromedp.MouseClickXY(390, 600), chromedp.Sleep(100*time.Millisecond))
	if d := drawer(); d != "false none" {
		t.Fatalf("a tap outside left the drawer %q, want closed", d)
	}
	do(chromedp.Click(chromedp.ID("sidebar-toggle")), chromedp.Sleep(100*time.Millisecond))
	key(kb.Escape)
	if d := drawer(); d != "false none" {
		t.Fatalf("Esc left the drawer %q, want closed", d)
	}

	// A log page has the bar and follows the theme.
	do(chromedp.EmulateViewport(1200, 900), chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
	evalString(t, ctx, `localStorage.setItem('book-theme', 'dark'), ''`)
	do(chromedp.Navigate("file://"+logs[0]), chromedp.WaitReady(chromedp.CSS("body")))
	if lp := evalString(t, ctx, `!!document.querySelector('.bar #search-button') + ' ' + getComputedStyle(document.body).backgroundColor + ' ' + !!document.querySelector('meta[name=viewport]')`); lp != "true rgb(23, 24, 26) true" {
		t.Errorf("in the dark theme a log page has (bar, background, viewport) %q", lp)
	}
	if theme := evalString(t, ctx, `document.getElementById('theme-toggle').textContent`); theme != "Dark" {
		t.Errorf("the theme button says %q in the dark theme", theme)
	}
	shot("log-dark")
	key("s")
	if hidden("search") {
		t.Error("S opens no search on a log page")
	}
	evalString(t, ctx, `localStorage.setItem('book-theme', 'light'), ''`)

	// The print page has a contents list, its chapters numbered, and no
	// link to another page, a log's either: a PDF's links stay in the PDF.
	do(chromedp.Navigate(url("print.html")), chromedp.WaitReady(chromedp.CSS("body")))
	if n := evalInt(t, ctx, `document.querySelectorAll('nav.contents li a[href^="#"]').length`); n != 3 {
		t.Errorf("print.html lists %d entries in its contents, want 2 chapters and the provenance", n)
	}
	if out := evalStrings(t, ctx, `[...document.querySelectorAll('article a[href]')].map(a => a.getAttribute('href')).filter(h => !h.startsWith('#'))`); len(out) > 0 {
		t.Errorf("print.html links out of itself: %q", out)
	}
	if h := evalString(t, ctx, `document.querySelector('section.chapter h1').textContent`); !strings.HasPrefix(h, "Chapter 1. The crossing") {
		t.Errorf("print.html's first chapter is headed %q", h)
	}

	// A diagram is inlined in its chapter as a numbered figure, and its
	// text stands out from the page and from its boxes in both themes.
	var textColour [2]string
	for i, theme := range []string{"light", "dark"} {
		evalString(t, ctx, `localStorage.setItem('book-theme', '`+theme+`'), ''`)
		do(chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
		d := evalStrings(t, ctx, `(() => { const f = document.querySelector('figure.diagram'); if (!f || !f.querySelector('svg.diagram-svg text')) return [];
			const c = e => getComputedStyle(e); return [f.querySelector('figcaption').textContent, c(f.querySelector('svg text')).fill,
			c(document.body).backgroundColor, c(f.querySelector('svg .d-fill')).fill, c(f.querySelector('svg .d-trust')).fill,
			c(f.querySelector('svg text.d-muted')).fill, c(f.querySelector('svg .d-head.d-accent')).fill] })()`)
		if len(d) == 0 {
			t.Fatalf("crossing.html has no inlined diagram with text")
		}
		if !strings.HasPrefix(d[0], "Figure 1.1. The two stacks") {
			t.Errorf("the diagram's caption is %q", d[0])
		}
		for _, c := range [][2]string{{d[1], d[2]}, {d[1], d[3]}, {d[1], d[4]}, {d[5], d[2]}, {d[6], d[2]}} {
			if r := contrast(t, c[0], c[1]); r < 4.5 {
				t.Errorf("%s theme: a diagram's %s on %s has a contrast of %.1f:1", theme, c[0], c[1], r)
			}
		}
		textColour[i] = d[1]
		if i == 0 {
			shot("diagram-light")
		} else {
			shot("diagram-dark")
		}
	}
	if textColour[0] == textColour[1] {
		t.Errorf("a diagram's text is %s in both themes", textColour[0])
	}
	evalString(t, ctx, `localStorage.setItem('book-theme', 'light'), ''`)

	// A ratio links to its own provenance entry, which links to both of its
	// figures; its title names both.
	do(chromedp.Navigate(url("crossing.html")), chromedp.WaitReady(chromedp.CSS("body")))
	if title := evalString(t, ctx, `document.querySelector('a.fig[href*="#ratio-"]').title`); !strings.Contains(title, "hello:crossing.stub, 98.6 cycles") || !strings.Contains(title, "hello:crossing.direct, 40.5 cycles") {
		t.Errorf("a ratio's title is %q, want both figures named with their values", title)
	}
	do(chromedp.Click(chromedp.CSS(`a.fig[href*="#ratio-"]`)), chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(100*time.Millisecond))
	if p := page(); p != "provenance.html" {
		t.Fatalf("a ratio's link went to %s", p)
	}
	both := evalStrings(t, ctx, `[...document.getElementById(decodeURIComponent(location.hash.slice(1))).querySelectorAll('p:not(.cited) a')].map(a => a.getAttribute('href') + (document.getElementById(decodeURIComponent(a.hash.slice(1))) ? '' : ' (missing)'))`)
	if strings.Join(both, " ") != "#f-hello:crossing.stub #f-hello:crossing.direct" {
		t.Errorf("a ratio's entry links to %q, want both of its figures", both)
	}

	// The print view has every diagram, numbered, and no id twice.
	do(chromedp.Navigate(url("print.html")), chromedp.WaitReady(chromedp.CSS("body")))
	if c := evalString(t, ctx, `(document.querySelector('#crossing--figure-stacks figcaption') || {}).textContent || ''`); !strings.HasPrefix(c, "Figure 1.1.") {
		t.Errorf("print.html's diagram is captioned %q", c)
	}
	if dup := evalStrings(t, ctx, `(() => { const seen = new Set(), dup = []; for (const e of document.querySelectorAll('[id]')) { if (seen.has(e.id)) dup.push(e.id); seen.add(e.id) } return dup })()`); len(dup) > 0 {
		t.Errorf("print.html has these ids twice: %q", dup)
	}

	// Printed to PDF, print.html gives an outline: the chapters numbered,
	// their sections, the appendix; a heading that wraps keeps its spaces.
	yes := true
	pdf, err := chromedp.Call(ctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{GenerateDocumentOutline: &yes})
	if err != nil {
		t.Fatal(err)
	}
	outline := pdfTitles(pdf.Data)
	for _, want := range []string{"Chapter 1. The crossing", "Where it was measured", "Chapter 2. Tasks",
		"Kicks, upcalls and the reschedule window, a heading long enough to wrap where it is printed",
		"Appendix. Where every figure comes from"} {
		if !outline[want] {
			t.Errorf("the PDF's outline has no %q: %v", want, outline)
		}
	}
	if err := os.WriteFile(filepath.Join(shots, "print.pdf"), pdf.Data, 0o644); err != nil {
		t.Fatal(err)
	}

	// Every internal link of every page lands on a page and anchor that
	// exist, a diagram's too (an SVG <a>, whose href is not a string).
	checked := 0
	for _, p := range append(pages, logs...) {
		do(chromedp.Navigate("file://"+p), chromedp.WaitReady(chromedp.CSS("body")))
		links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('a[href]')].map(a => new URL(a.getAttribute('href'), document.baseURI).href).filter(h => h.startsWith('file:'))`))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			target, anchor, _ := strings.Cut(strings.TrimPrefix(l, "file://"), "#")
			target, _, _ = strings.Cut(target, "?")
			data, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", filepath.Base(p), l)
				continue
			}
			if anchor != "" && !strings.Contains(string(data), `id="`+anchor+`"`) {
				t.Errorf("%s links to %s, but the page has no anchor %s", filepath.Base(p), l, anchor)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no internal links were checked")
	}
	t.Logf("%d internal links checked; screenshots in %s", checked, shots)
}

// pdfTitles is every /Title string of a PDF, the outline's entries among
// them, as Chromium writes them: (text), or <FEFF...> in UTF-16.
func pdfTitles(pdf []byte) map[string]bool {
	titles := map[string]bool{}
	for _, m := range regexp.MustCompile(`/Title (?:\(((?:[^\\)]|\\.)*)\)|<FEFF([0-9A-Fa-f]*)>)`).FindAllSubmatch(pdf, -1) {
		if m[2] == nil {
			titles[regexp.MustCompile(`\\(.)`).ReplaceAllString(string(m[1]), "$1")] = true
			continue
		}
		var u []uint16
		for i := 0; i+4 <= len(m[2]); i += 4 {
			v, _ := strconv.ParseUint(string(m[2][i:i+4]), 16, 16)
			u = append(u, uint16(v))
		}
		titles[string(utf16.Decode(u))] = true
	}
	return titles
}

// contrast is the WCAG contrast ratio of two CSS colours, rgb(r, g, b).
func contrast(t *testing.T, a, b string) float64 {
	t.Helper()
	lum := func(c string) float64 {
		var r, g, bl float64
		if _, err := fmt.Sscanf(c, "rgb(%g, %g, %g)", &r, &g, &bl); err != nil {
			t.Fatalf("colour %q: %v", c, err)
		}
		f := func(v float64) float64 {
			v /= 255
			if v <= 0.03928 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		return 0.2126*f(r) + 0.7152*f(g) + 0.0722*f(bl)
	}
	x, y := lum(a), lum(b)
	return (math.Max(x, y) + 0.05) / (math.Min(x, y) + 0.05)
}

// evaluate runs a script in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func evalInt(t *testing.T, ctx context.Context, js string) int {
	t.Helper()
	return evaluate[int](t, ctx, js)
}
func evalBool(t *testing.T, ctx context.Context, js string) bool {
	t.Helper()
	return evaluate[bool](t, ctx, js)
}
func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	return evaluate[string](t, ctx, js)
}
func evalInts(t *testing.T, ctx context.Context, js string) []int {
	t.Helper()
	return evaluate[[]int](t, ctx, js)
}
func evalStrings(t *testing.T, ctx context.Context, js string) []string {
	t.Helper()
	return evaluate[[]string](t, ctx, js)
}
