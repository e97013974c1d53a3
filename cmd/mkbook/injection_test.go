package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/tools/txtar"
)

// TestInjectionInBrowser builds the hostile book of
// testdata/scripts/mkbook_injection.txtar (logs whose fields are script,
// HTML and Markdown links, a chapter with raw HTML and a javascript: link)
// and loads every page of its site in headless Chromium, and searches it.
// It fails if any script of theirs runs (each sets window.__evil), if any
// element carries an event handler, or if any link leads anywhere but to
// a file of the site or the web.
func TestInjectionInBrowser(t *testing.T) {
	bin := chromium(t)
	ar, err := txtar.ParseFile("testdata/scripts/mkbook_injection.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		name := filepath.Join(root, f.Name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code := run([]string{"-root", root, "build"}, io.Discard, os.Stderr); code != 0 {
		t.Fatalf("mkbook build: exit %d", code)
	}
	site := filepath.Join(root, "book", "site")
	pages, _ := filepath.Glob(filepath.Join(site, "*.html"))
	logs, _ := filepath.Glob(filepath.Join(site, "logs", "*.html"))
	if len(logs) == 0 {
		t.Fatal("the site has no log pages")
	}
	ctx := browser(t, bin)

	const probe = `JSON.stringify({
		evil: window.__evil !== undefined,
		links: [...document.querySelectorAll('[href],[src],[action],[formaction]')]
			.map(e => e.href || e.src || e.action || '')
			.filter(h => h && !/^(file|https?|mailto):/.test(h)),
		handlers: [...document.querySelectorAll('*')].flatMap(e =>
			[...e.attributes].filter(a => /^on/i.test(a.name)).map(a => e.tagName + ' ' + a.name)),
	})`
	type found struct {
		Evil     bool
		Links    []string
		Handlers []string
	}
	check := func(where string) {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](probe))
		if err != nil {
			t.Fatal(err)
		}
		var f found
		if err := json.Unmarshal([]byte(s), &f); err != nil {
			t.Fatal(err)
		}
		if f.Evil {
			t.Errorf("%s: a script from the logs or the chapter ran", where)
		}
		for _, l := range f.Links {
			t.Errorf("%s: a link to %s", where, l)
		}
		for _, h := range f.Handlers {
			t.Errorf("%s: an event handler: %s", where, h)
		}
	}
	for _, p := range append(pages, logs...) {
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+p),
			chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		check(filepath.Base(p))
	}

	// The search shows what it finds as text: search for the payloads.
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(site, "ch.html")),
		chromedp.WaitReady(chromedp.CSS("body")),
		chromedp.KeyEvent("s"), chromedp.Sleep(150*time.Millisecond),
		chromedp.SendKeys(chromedp.ID("search-input"), "script evil"),
		chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	check("the search")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("search-input"), kb.Enter),
		chromedp.WaitReady(chromedp.CSS("body")), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	check("a search hit")
}
