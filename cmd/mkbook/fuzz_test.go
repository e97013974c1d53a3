package main

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzExpand resolves and renders an arbitrary chapter against the good
// fixture book's logs.  Plain go test runs the seeds; go test -fuzz
// FuzzExpand ./cmd/mkbook runs it for as long as asked (make fuzz).
// Whatever the chapter, mkbook must not panic, must name the chapter in
// any error, and a page it renders must
// carry no script, event handler or javascript: link, and no marker of
// its own left unreplaced.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"# T\n\n{{fig hello:crossing.stub}} and `{{run hello cpu}}`, {{ratio hello:crossing.stub hello:crossing.direct}}\n",
		"```\n{{run hello host}}\n```\n\n{{table bench kl.yield_rt kl.wake_local}}\n",
		"{{quote hello EVFIG}}\n\n- {{quote hello EVFIG}}\n",
		"[x]({{run hello cpu}}) ![{{run hello cpu}}](a.png) <b title=\"{{run hello cpu}}\">x</b>\n",
		"\\{{fig hello:x}} `\\{{fig}}` {{fig hello:crossing.stub\n",
		"<script>alert(1)</script>\n\n[a](javascript:alert(1)) <img src=x onerror=alert(1)>\n",
		"# {{fig bench:kl.yield_rt}} {#x onclick=alert(1)}\n\n| a | `{{run hello cpu}}` |\n| - | - |\n| {{fig bench:kl.yield_rt p99}} | b |\n",
		"```not a fence``` `{{log hello:crossing.stub}}` {{logfile prototype/.build/hello.log:1}}\n",
		"{{diff bench:kl.yield_rt bench:kl.wake_local}} {{fig bench:kl.yield_rt ratio}}\n",
		"Fast.{{claim bench:kl.yield_rt > 1000 every}} [x](a){{claim 2 * bench:kl.yield_rt < diff bench:kl.yield_rt bench:kl.wake_local}}\n\n- {{claim ratio bench:kl.yield_rt hello:crossing.stub < 1}}\n",
		"| {{claim bench:mem.first_touch_faults == 0 every}} | `{{claim bench:kl.yield_rt < 1}}` |\n| - | - |\n",
		"# `ev_stub_cross`\n\n`ev_stub_cross` in `prototype/stub/cross.S`, [`make hello`](x.html), chapter {{chapter crossing}}\n\n{{code prototype/stub/cross.S ev_stub_cross /cmpq/ /ret/}}\n",
		"![`ev_stub_cross`](a.png) `struct x` `a.b` `cross.S` `prototype/` {{code prototype/stub/cross.S /\\/ x/ omit /a/ /b/}}\n",
		"{{diagram stacks The <b>two</b> stacks & \"a\" crossing.}}\n\n- {{diagram stacks again}}\n\n`{{diagram x y}}` {{diagram ../x y}}\n",
		"{{services prototype/stub/cross.S}}\n\n{{services ../../etc/passwd}}\n",
		"{{code ../go.mod /m/ /m/}}\n\n{{code /etc/passwd /r/ /r/}}\n\n{{code prototype/stub/cross.S /[a-z]{1,250}Z/ /x/}}\n\n{{code prototype/stub/cross.S // //}}\n",
		"`prototype/../go.mod` `prototype/./stub/` `prototype/stub/` `ev_stub_cross()` in `cross.S` `value` {{diagram stacks Step: one}}\n",
	} {
		f.Add(s)
	}
	root := fixture(f, "good")
	handler := regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
	// The fixture's sources, read once: the chapter is the input.
	c := config{root: root, logs: "prototype/.build", src: "book/src"}
	sources, err := load(c)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b := newBook(c)
		b.index, b.srcGroups = sources.index, sources.srcGroups
		ch := &chapter{src: "book/src/fuzz.md", Page: "fuzz.html", Number: 1}
		ch.source = parseSource(text)
		named := func(err error) {
			if !strings.HasPrefix(err.Error(), ch.src+":") {
				t.Fatalf("an error that does not name the chapter: %v", err)
			}
		}
		body, err := b.expand(ch)
		if err != nil {
			named(err)
			return
		}
		ch.body = body
		page, _, err := chapterHTML(ch, "")
		if err != nil {
			named(err)
			return
		}
		low := strings.ToLower(page)
		switch {
		case strings.Contains(low, "<script"):
			t.Fatalf("a script on the page: %s", page)
		case handler.MatchString(page):
			t.Fatalf("an event handler on the page: %s", page)
		case strings.Contains(low, `href="javascript`) || strings.Contains(low, `src="javascript`):
			t.Fatalf("a javascript: link on the page: %s", page)
		case strings.ContainsAny(page, "\uE000\uE001"):
			t.Fatalf("a marker left on the page: %q", page)
		}
	})
}
