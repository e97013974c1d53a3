package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"endovisor/internal/srcindex"
)

// maxSource bounds a chapter or the table of contents: a book's chapter is
// tens of kilobytes.
const maxSource = 4 << 20

// readSource reads a chapter or the table of contents as UTF-8 text,
// without the byte-order mark an editor may have put first (it would hide
// the chapter's title from the Markdown parser).
func readSource(name string) (string, error) {
	st, err := os.Stat(name)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > maxSource {
		return "", fmt.Errorf("%s: want a regular file of at most %d MiB", name, maxSource>>20)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return "", fmt.Errorf("%s:%d: not UTF-8", name, bytes.Count(data[:i], []byte("\n"))+1)
		}
		if r >= markerFirst && r <= markerLast {
			return "", fmt.Errorf("%s:%d: holds U+%04X, a character mkbook keeps for its own use", name, bytes.Count(data[:i], []byte("\n"))+1, r)
		}
		i += n
	}
	return string(data), nil
}

// A chapter as the Markdown parser sees it: which of its bytes are code
// (shown as written, never checked as prose) and which are raw HTML
// (never rendered).  The checks and the placeholders go by this, not by
// their own guess at where a fence starts, so they cannot fall out of
// step with the page.
type source struct {
	text    string
	neutral string       // text with the placeholders' words blanked
	marks   []mark       // the placeholders, in order
	spans   []inlineCode // inline code, in order
	blocks  []segment    // the lines of fenced and indented code
	html    []segment    // raw HTML, inline and in blocks
	inSpans []segment    // the spans' segments, all of them
	lines   []int        // the offset each line starts at
}

type segment struct{ start, stop int }

// mark is a placeholder: {{ to }} on one line; or \{{, which writes {{.
type mark struct {
	start, stop int
	literal     bool // \{{
	unclosed    bool // {{ without }} on its line: stop is the line's end
	alone       bool // nothing else on its line
}

// findMarks finds the placeholders of a chapter.
func findMarks(src string) []mark {
	var marks []mark
	off := 0
	for _, line := range strings.SplitAfter(src, "\n") {
		for i := 0; ; {
			k := strings.Index(line[i:], "{{")
			if k < 0 {
				break
			}
			k += i
			if k > 0 && line[k-1] == '\\' {
				marks = append(marks, mark{start: off + k - 1, stop: off + k + 2, literal: true})
				i = k + 2
				continue
			}
			e := strings.Index(line[k:], "}}")
			if e < 0 {
				marks = append(marks, mark{start: off + k, stop: off + len(line), unclosed: true})
				break
			}
			e += k + 2
			marks = append(marks, mark{start: off + k, stop: off + e,
				alone: strings.TrimSpace(line[:k]) == "" && strings.TrimSpace(line[e:]) == ""})
			i = e
		}
		off += len(line)
	}
	return marks
}

type inlineCode struct {
	segs        []segment
	text        string // the span's content as the page shows it
	start, stop int    // the span with its backticks
	image       bool   // in an image's text, which is an attribute
}

// parseSource parses a chapter.  The parser sees each placeholder's words
// blanked out, so that what a placeholder names (a quoted <tag>, a
// backtick) cannot open code or HTML around it.
func parseSource(src string) *source {
	s := &source{text: src, marks: findMarks(src)}
	neutral := []byte(src)
	for _, m := range s.marks {
		if !m.literal && !m.unclosed {
			for k := m.start + 2; k < m.stop-2; k++ {
				neutral[k] = 'x'
			}
		}
	}
	s.neutral = string(neutral)
	doc := md.Parser().Parse(text.NewReader(neutral))
	lines := func(l *text.Segments) []segment {
		var segs []segment
		for i := 0; i < l.Len(); i++ {
			segs = append(segs, segment{l.At(i).Start, l.At(i).Stop})
		}
		return segs
	}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.CodeSpan:
			var cs inlineCode
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					cs.segs = append(cs.segs, segment{t.Segment.Start, t.Segment.Stop})
					cs.text += src[t.Segment.Start:t.Segment.Stop]
				}
			}
			if len(cs.segs) > 0 {
				cs.start, cs.stop = backticks(src, cs.segs[0].start, cs.segs[len(cs.segs)-1].stop)
			}
			for p := n.Parent(); p != nil; p = p.Parent() {
				if _, ok := p.(*ast.Image); ok {
					cs.image = true
				}
			}
			s.spans = append(s.spans, cs)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			s.blocks = append(s.blocks, lines(n.Lines())...)
		case *ast.HTMLBlock:
			s.html = append(s.html, lines(n.Lines())...)
			if n.HasClosure() {
				s.html = append(s.html, segment{n.ClosureLine.Start, n.ClosureLine.Stop})
			}
		case *ast.RawHTML:
			s.html = append(s.html, lines(n.Segments)...)
		}
		return ast.WalkContinue, nil
	})
	// In order, for where's searches.
	for _, cs := range s.spans {
		s.inSpans = append(s.inSpans, cs.segs...)
	}
	for _, segs := range [][]segment{s.inSpans, s.blocks, s.html} {
		slices.SortFunc(segs, func(a, b segment) int { return cmp.Or(a.start-b.start, a.stop-b.stop) })
	}
	return s
}

// backticks widens a code span's content, [i, j), to its backticks: only
// a space of padding lies between the two.
func backticks(src string, i, j int) (int, int) {
	for i > 0 && src[i-1] != '`' {
		i--
	}
	for i > 0 && src[i-1] == '`' {
		i--
	}
	for j < len(src) && src[j] != '`' {
		j++
	}
	for j < len(src) && src[j] == '`' {
		j++
	}
	return i, j
}

// where says what the bytes [i, j) of the chapter are: "prose", "span"
// (inline code), "block" (a code block) or "html"; "" if they straddle two.
//
// Each kind's segments are in order and apart, so a search finds the one
// that could hold or meet [i, j): a chapter asks this of every
// placeholder.
func (s *source) where(i, j int) string {
	in := func(segs []segment) bool {
		k := sort.Search(len(segs), func(k int) bool { return segs[k].start > i }) - 1
		return k >= 0 && j <= segs[k].stop
	}
	overlaps := func(segs []segment) bool {
		k := sort.Search(len(segs), func(k int) bool { return segs[k].stop > i })
		return k < len(segs) && segs[k].start < j
	}
	switch {
	case in(s.inSpans):
		return "span"
	case in(s.blocks):
		return "block"
	case in(s.html):
		return "html"
	case overlaps(s.inSpans) || overlaps(s.blocks) || overlaps(s.html):
		return ""
	}
	return "prose"
}

// prose is the chapter with every byte of code, raw HTML and placeholder
// words blanked out, lines kept, for the checks that read prose.
func (s *source) prose() string {
	return s.blanked(s.inSpans, s.blocks, s.html)
}

// blanked is the chapter with its placeholders' words and the bytes of
// the given segments blanked out, lines kept.
func (s *source) blanked(segs ...[]segment) string {
	b := []byte(s.neutral)
	for _, ss := range segs {
		for _, g := range ss {
			for k := g.start; k < g.stop; k++ {
				if b[k] != '\n' {
					b[k] = ' '
				}
			}
		}
	}
	return string(b)
}

// line is the line number of byte offset i: a search of the lines'
// offsets, counted once, as every code name asks it.
func (s *source) line(i int) int {
	if s.lines == nil {
		s.lines = []int{0}
		for k := 0; k < len(s.text); k++ {
			if s.text[k] == '\n' {
				s.lines = append(s.lines, k+1)
			}
		}
	}
	n, _ := slices.BinarySearch(s.lines, i+1)
	return n
}

// sourceFile finds a file of the index, or says what became of it.
func (b *book) sourceFile(p string) (*srcindex.File, error) {
	ix := b.index
	if f, ok := ix.Files[p]; ok {
		return f, nil
	}
	if why, ok := ix.Skipped[p]; ok {
		return nil, fmt.Errorf("%s is not among the sources: %s", p, why)
	}
	var same []string
	for _, q := range ix.Paths {
		if path.Base(q) == path.Base(p) {
			same = append(same, q)
		}
	}
	hint := ""
	if len(same) > 0 && len(same) <= 3 {
		hint = " (the sources have " + strings.Join(same, ", ") + ")"
	}
	return nil, fmt.Errorf("no such file %s among the sources%s", p, hint)
}
