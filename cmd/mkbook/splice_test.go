package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHTMLReader: reading forward says what searching back from each
// offset says, a pattern straddling two reads included.
func TestHTMLReader(t *testing.T) {
	body := `<p>a <a href="x">b <code>c</code></a> d <img alt="e"> <a title="f">g</a></p>`
	for step := 1; step <= 5; step++ {
		h := newHTMLReader(body)
		for i := 0; i <= len(body); i += step {
			h.readTo(i)
			before := body[:i]
			inTag := lastIndex(before, "<") > lastIndex(before, ">")
			inLink := lastIndex(before, "<a ") > lastIndex(before, "</a>")
			if h.inTag() != inTag || h.inLink() != inLink {
				t.Fatalf("step %d, offset %d (%q): inTag %v inLink %v, want %v %v", step, i, before, h.inTag(), h.inLink(), inTag, inLink)
			}
		}
	}
}

func lastIndex(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestSourceLine: the line of an offset, from the lines' offsets.
func TestSourceLine(t *testing.T) {
	s := parseSource("a\nbc\n\nd")
	for i, want := range []int{1, 1, 2, 2, 2, 3, 4, 4} {
		if got := s.line(i); got != want {
			t.Errorf("line(%d) = %d, want %d", i, got, want)
		}
	}
}

// TestWhere: where's searches say what a scan of every segment says, for
// every placeholder and every byte of the book's chapters.
func TestWhere(t *testing.T) {
	names, err := filepath.Glob("../../book/src/*.md")
	if err != nil || len(names) == 0 {
		t.Fatalf("no chapters: %v", err)
	}
	names = append(names, "testdata/golden/good/book/src/crossing.md")
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		s := parseSource(string(data))
		check := func(i, j int) {
			if got, want := s.where(i, j), whereByScan(s, i, j); got != want {
				t.Fatalf("%s: where(%d, %d) = %q, a scan says %q", name, i, j, got, want)
			}
		}
		for _, m := range s.marks {
			check(m.start, m.stop)
		}
		for i := 0; i+3 <= len(s.text); i++ {
			check(i, i+3)
		}
	}
}

func whereByScan(s *source, i, j int) string {
	in := func(segs []segment) bool {
		for _, g := range segs {
			if i >= g.start && j <= g.stop {
				return true
			}
		}
		return false
	}
	overlaps := func(segs []segment) bool {
		for _, g := range segs {
			if i < g.stop && j > g.start {
				return true
			}
		}
		return false
	}
	var all []segment
	for _, cs := range s.spans {
		if in(cs.segs) {
			return "span"
		}
		all = append(all, cs.segs...)
	}
	switch {
	case in(s.blocks):
		return "block"
	case in(s.html):
		return "html"
	case overlaps(all) || overlaps(s.blocks) || overlaps(s.html):
		return ""
	}
	return "prose"
}
