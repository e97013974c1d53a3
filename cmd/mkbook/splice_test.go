package main

import "testing"

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
