package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromium finds Debian's Chromium: $CHROMIUM, or the package's binary.
func chromium() string {
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
// chapter with the word marked, ? shows the help and Esc hides it, and
// every internal link of every page lands on a page and an anchor that
// exist.  Screenshots go to $EV_SCREENSHOTS if set.
func TestSiteInBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Fatal("no Chromium: install Debian's chromium package (.ci/run does), or set $CHROMIUM")
	}
	root := fixture(t, "good")
	if code := run([]string{"-root", root, "-logs-only", "build"}, io.Discard, os.Stderr); code != 0 {
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

	// On a phone's width no page scrolls sideways: the bar's buttons fit,
	// long names wrap, and a wide table scrolls inside itself.
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for _, p := range pages {
		do(chromedp.EmulateViewport(420, 800),
			chromedp.Navigate("file://"+p),
			chromedp.WaitReady(chromedp.CSS("body")))
		w, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](
			`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
		if err != nil {
			t.Fatal(err)
		}
		if w[0] > w[1] {
			t.Errorf("%s is %dpx wide in a %dpx window", filepath.Base(p), w[0], w[1])
		}
	}
	shot("narrow")
	do(chromedp.EmulateViewport(1200, 900))

	// Every internal link of every page lands on a page and anchor that exist.
	logs, _ := filepath.Glob(filepath.Join(site, "logs", "*.html"))
	checked := 0
	for _, p := range append(pages, logs...) {
		do(chromedp.Navigate("file://"+p), chromedp.WaitReady(chromedp.CSS("body")))
		links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('a[href]')].map(a => a.href).filter(h => h.startsWith('file:'))`))
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
