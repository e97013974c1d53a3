package main

import (
	"fmt"
	"html"
	"regexp"
	"strings"
)

// What a placeholder prints reaches the page only after Markdown has
// rendered the chapter.  Markdown sees a marker in its place, made of
// private-use characters that mean nothing to it, so that nothing read
// from a log (a unit, a CPU model, a quoted line) is ever taken as
// Markdown or HTML; the marker is then replaced by the placeholder's HTML,
// built and escaped by mkbook alone.  In inline code the placeholder's
// plain text goes in, escaped; in a code block, where Markdown reads
// nothing, the text itself.
const (
	markerFirst = '\uE000' // opens a marker; U+E010 to U+E019 are its digits
	markerEnd   = '\uE001'
	markerLast  = '\uE01F'
)

var (
	markerRE = regexp.MustCompile("(<p>)?\uE000([\uE010-\uE019]+)\uE001(</p>)?")
	// A marker in a URL, percent-encoded: U+E000, its digits, U+E001.
	markerURL = regexp.MustCompile(`(?i)%EE%80%80((?:%EE%80%9[0-9])+)%EE%80%81`)
)

func marker(i int) string {
	return string(markerFirst) + strings.Map(func(r rune) rune { return r - '0' + 0xE010 }, fmt.Sprint(i)) + string(markerEnd)
}

// spliced is one placeholder's HTML, waiting for its marker.
type spliced struct {
	at, ph string // where the chapter has it, for errors
	html   string
	text   string // the plain text, escaped: what goes inside a link
	block  bool   // a table or a quote: it replaces the paragraph it stands in
}

// splice puts a resolved placeholder into the chapter's Markdown: what it
// returns stands where the placeholder was.
func (ch *chapter) splice(where string, u use, block bool) (string, error) {
	switch where {
	case "prose", "span":
		out := u.out
		if where == "span" {
			if block {
				return "", fmt.Errorf("a %s cannot stand in inline code", strings.Fields(u.ph[2:])[0])
			}
			out = html.EscapeString(u.text)
		}
		ch.spliced = append(ch.spliced, spliced{at: u.at, ph: u.ph, html: out,
			text: html.EscapeString(u.text), block: block})
		return marker(len(ch.spliced) - 1), nil
	case "block":
		// A code block ends only at a fence, and the text has no newline;
		// nor may it bring markers of its own.
		if block || strings.Contains(u.text, "```") || strings.Contains(u.text, "~~~") ||
			strings.ContainsFunc(u.text, func(r rune) bool { return r >= markerFirst && r <= markerLast }) {
			return "", fmt.Errorf("cannot be shown in a code block")
		}
		return u.text, nil
	case "html":
		return "", fmt.Errorf("a placeholder cannot stand in raw HTML, which the book does not render")
	}
	return "", fmt.Errorf("the placeholder straddles code and prose")
}

// fill replaces every marker in a chapter's rendered HTML with its
// placeholder's HTML, in one pass, so that nothing spliced is read again.
func (ch *chapter) fill(body string) (string, error) {
	if m := markerURL.FindStringSubmatch(body); m != nil {
		n := 0
		for i := 8; i < len(m[1]); i += 9 { // each digit is %EE%80%9d
			n = n*10 + int(m[1][i]-'0')
		}
		if n < len(ch.spliced) {
			s := ch.spliced[n]
			return "", fmt.Errorf("%s: %s: a placeholder cannot stand in a link's target", s.at, s.ph)
		}
		return "", fmt.Errorf("%s: a marker mkbook did not make, in a link", ch.src)
	}
	seen := make([]bool, len(ch.spliced))
	var out strings.Builder
	last := 0
	at := newHTMLReader(body)
	for _, m := range markerRE.FindAllStringSubmatchIndex(body, -1) {
		n := 0
		for _, r := range body[m[4]:m[5]] {
			n = n*10 + int(r-0xE010)
		}
		if n >= len(seen) || seen[n] {
			return "", fmt.Errorf("%s: a marker mkbook did not make", ch.src)
		}
		seen[n] = true
		s := ch.spliced[n]
		start, end := m[0], m[1]
		wrapped := m[2] >= 0 && m[6] >= 0
		if !wrapped || !s.block {
			// Keep a <p> or </p> that is not the whole paragraph's.
			if m[2] >= 0 {
				start = m[3]
			}
			if m[6] >= 0 {
				end = m[6]
			}
		}
		at.readTo(start)
		if at.inTag() {
			return "", fmt.Errorf("%s: %s: a placeholder cannot stand in a link's target, an image's text or an attribute", s.at, s.ph)
		}
		out.WriteString(body[last:start])
		if at.inLink() {
			out.WriteString(s.text) // a link in a link's text would split it
		} else {
			out.WriteString(s.html)
		}
		last = end
	}
	out.WriteString(body[last:])
	for n, ok := range seen {
		if !ok {
			s := ch.spliced[n]
			return "", fmt.Errorf("%s: %s: the placeholder is not on the page: it cannot stand in a link's target or in raw HTML", s.at, s.ph)
		}
	}
	return out.String(), nil
}

// htmlReader reads rendered HTML forward to each marker, once, keeping
// where the last tag and the last link opened and closed: a chapter's
// markers are many (two for each code name), and searching back from
// each was quadratic in the chapter's length.
type htmlReader struct {
	body      string
	at        int // read up to here
	lt, gt    int // the offset of the last < and of the last >, or -1
	open, end int // the offset of the last "<a " and of the last "</a>", or -1
}

func newHTMLReader(body string) *htmlReader {
	return &htmlReader{body: body, lt: -1, gt: -1, open: -1, end: -1}
}

// readTo reads on to offset i, which is no less than the last.
func (h *htmlReader) readTo(i int) {
	last := func(prev int, s string) int {
		from := max(0, h.at-len(s)+1) // a match may straddle h.at
		if k := strings.LastIndex(h.body[from:i], s); k >= 0 {
			return max(prev, from+k)
		}
		return prev
	}
	h.lt, h.gt = last(h.lt, "<"), last(h.gt, ">")
	h.open, h.end = last(h.open, "<a "), last(h.end, "</a>")
	h.at = i
}

// inTag: is the offset read to inside a tag, where text would become an
// attribute?  Text outside tags has its < escaped.
func (h *htmlReader) inTag() bool { return h.lt > h.gt }

// inLink: is the offset read to in the text of a link?
func (h *htmlReader) inLink() bool { return h.open > h.end }
