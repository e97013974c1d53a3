package main

import (
	"html"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"endovisor/internal/srcindex"
)

// Highlighting of the sources, a line at a time, so that a listing can
// show any of a file's lines, and the file's page all of them, each with
// its number.  The classes are chroma's, those of code.css (render.go).

// tabWidth is the width of a tab in the sources: Linux's and gofmt's 8.
const tabWidth = 8

// expandTabs replaces a line's tabs with spaces, to the next multiple of
// tabWidth.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	for _, r := range line {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// tokenClass is chroma's class for a token type, or its parent's; ""
// for one code.css gives no colour of its own, which a span would only
// make the pages bigger by (whitespace, punctuation and names in the
// text's colour), and for what a lexer calls an error: the assembler's
// lexer so calls a numbered local label (1:), which is no error.
func tokenClass(t chroma.TokenType) string {
	styledOnce.Do(func() {
		styled = map[string]bool{}
		css, err := chromaCSS()
		if err != nil {
			return
		}
		for _, m := range cssClassRE.FindAllStringSubmatch(css, -1) {
			styled[m[1]] = true
		}
		for _, plain := range []string{"w", "p", "nx", "n", "err"} {
			delete(styled, plain)
		}
	})
	for ; t != 0; t = t.Parent() {
		if cls, ok := chroma.StandardTypes[t]; ok {
			if !styled[cls] {
				return ""
			}
			return cls
		}
	}
	return ""
}

var (
	styledOnce sync.Once
	styled     map[string]bool
	cssClassRE = regexp.MustCompile(`\.chroma \.([a-z0-9]+) \{`)
)

// highlighted is a source file's lines, highlighted once.
func (b *book) highlighted(file string) []string {
	if b.hl == nil {
		b.hl = map[string][]string{}
	}
	if h, ok := b.hl[file]; ok {
		return h
	}
	h := highlightLines(b.index.Files[file])
	b.hl[file] = h
	return h
}

// highlightLines renders each line of a file as HTML, highlighted by its
// language (plain, escaped, if chroma has no lexer for it).
func highlightLines(f *srcindex.File) []string {
	lines := make([]string, len(f.Lines))
	for i, l := range f.Lines {
		lines[i] = expandTabs(l)
	}
	lexer := lexers.Get(f.Lang)
	if f.Lang == "" || lexer == nil {
		for i, l := range lines {
			lines[i] = html.EscapeString(l)
		}
		return lines
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, strings.Join(lines, "\n")+"\n")
	if err != nil {
		for i, l := range lines {
			lines[i] = html.EscapeString(l)
		}
		return lines
	}
	out := make([]string, 0, len(lines))
	for _, toks := range chroma.SplitTokensIntoLines(it.Tokens()) {
		var b strings.Builder
		// Runs of one class are one span.
		cls, run := "", ""
		flush := func() {
			if cls != "" {
				b.WriteString(`<span class="` + cls + `">` + html.EscapeString(run) + `</span>`)
			} else {
				b.WriteString(html.EscapeString(run))
			}
			run = ""
		}
		for _, t := range toks {
			v := strings.TrimSuffix(t.Value, "\n")
			if v == "" {
				continue
			}
			if c := tokenClass(t.Type); c != cls {
				flush()
				cls = c
			}
			run += v
		}
		flush()
		out = append(out, b.String())
	}
	// A lexer keeps every line; should one not, the plain text stands in.
	if len(out) < len(lines) {
		for _, l := range lines[len(out):] {
			out = append(out, html.EscapeString(l))
		}
	}
	return out[:len(lines)]
}
