package main

import (
	"fmt"
	"html"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"

	"endovisor/internal/srcindex"
)

// Listings, spliced from the real source when the book is built:
//
//	{{code PATH SYMBOL}}                 the symbol's whole definition
//	{{code PATH SYMBOL /FROM/ /TO/}}     its lines from the first matching
//	                                     FROM to the first at or after it
//	                                     matching TO
//	{{code PATH SYMBOL omit /A/ /B/}}    the symbol with lines A to B shown
//	                                     as one "…" line; omit may repeat
//	{{code PATH /FROM/ /TO/}}            a region of the file: FROM must
//	                                     match exactly one of its lines
//
// SYMBOL is a name, struct NAME (union, enum) or a Go Type.Method.  A
// regexp is Go's, between slashes, and may hold spaces; \/ is a slash.
// The listing shows the file's real line numbers, each a link to that
// line of the file's page, under a caption naming the file and the lines.
// A file, a symbol or a regexp that does not resolve, an ambiguous
// symbol, and a listing of more than maxListing lines, are errors.
//
// A regexp finds a line, and is short: Go's regexps take time linear in
// the text, but by a factor that grows with the regexp, and a chapter
// could make one of a few hundred bytes take seconds on each MiB.  So a
// regexp compiles to at most maxRegexpInsts instructions (the book's
// longest is about 30), a listing omits at most maxOmits ranges, and the
// listings of the book together read at most maxListingRead bytes of the
// sources.

const (
	maxListing     = 60
	maxRegexpInsts = 100
	maxOmits       = 8
	maxListingRead = 16 << 20
)

// srcRef is a place in the sources a chapter shows (a listing) or names
// (a code name or a path), for the source pages and INDEX.md.
type srcRef struct {
	file       string
	start, end int // lines; 0 for a whole file or a directory
	listing    bool
}

type codeKind struct{}

func (codeKind) usage() string {
	return "{{code PATH SYMBOL [/FROM/ /TO/] [omit /A/ /B/]...}} or {{code PATH /FROM/ /TO/}}"
}
func (codeKind) block() bool                      { return true }
func (codeKind) suites(config, []string) []string { return nil }
func (k codeKind) resolve(b *book, args []string) (use, error) {
	return k.resolveRaw(b, strings.Join(args, " "))
}

// resolveRaw reads the placeholder's own text, whose regexps may hold
// spaces that splitting into words would lose.
func (k codeKind) resolveRaw(b *book, raw string) (use, error) {
	spec, err := parseListing(raw)
	if err != nil {
		return use{}, fmt.Errorf("%w; want %s", err, k.usage())
	}
	l, err := b.listing(spec)
	if err != nil {
		return use{}, err
	}
	return use{text: l.caption(), out: b.renderListing(l), refs: []srcRef{{file: l.file, start: l.lo, end: l.hi, listing: true}}}, nil
}

// lineRegexp is a listing's /regexp/, which finds a line: as written,
// and compiled.
type lineRegexp struct {
	src string
	re  *regexp.Regexp
}

// listingSpec is a {{code}} as written: the file, the symbol if any, the
// region's two regexps if any, and each omitted range's two.
type listingSpec struct {
	path, symbol string
	from, to     *lineRegexp
	omits        [][2]*lineRegexp
}

// listingWords splits a listing's arguments into words and /regexps/.
func listingWords(raw string) (words []string, isRE []bool, err error) {
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '/':
			var re strings.Builder
			j := i + 1
			for ; j < len(raw) && raw[j] != '/'; j++ {
				if raw[j] == '\\' && j+1 < len(raw) {
					if raw[j+1] != '/' {
						re.WriteByte('\\')
					}
					j++
				}
				re.WriteByte(raw[j])
			}
			if j >= len(raw) {
				return nil, nil, fmt.Errorf("a regexp without its closing slash: %s", raw[i:])
			}
			words, isRE = append(words, re.String()), append(isRE, true)
			i = j + 1
		default:
			j := i
			for j < len(raw) && raw[j] != ' ' && raw[j] != '\t' {
				j++
			}
			words, isRE = append(words, raw[i:j]), append(isRE, false)
			i = j
		}
	}
	return words, isRE, nil
}

func parseListing(raw string) (*listingSpec, error) {
	words, isRE, err := listingWords(raw)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 || isRE[0] {
		return nil, fmt.Errorf("no file: a listing names a file of the sources first, by its path from the repository's top")
	}
	s := &listingSpec{path: words[0]}
	i := 1
	compile := func(k int) (*lineRegexp, error) {
		re, err := compileShort(words[k])
		if err != nil {
			return nil, fmt.Errorf("/%s/: %w", words[k], err)
		}
		return &lineRegexp{src: words[k], re: re}, nil
	}
	pair := func() (*lineRegexp, *lineRegexp, error) {
		if i+1 >= len(words) || !isRE[i] || !isRE[i+1] {
			return nil, nil, fmt.Errorf("want two regexps, /FROM/ /TO/")
		}
		a, err := compile(i)
		if err != nil {
			return nil, nil, err
		}
		b, err := compile(i + 1)
		i += 2
		return a, b, err
	}
	if i < len(words) && !isRE[i] && words[i] != "omit" {
		s.symbol = words[i]
		i++
		if s.symbol == "struct" || s.symbol == "union" || s.symbol == "enum" {
			if i >= len(words) || isRE[i] {
				return nil, fmt.Errorf("%s of no name", s.symbol)
			}
			s.symbol += " " + words[i]
			i++
		}
	}
	if i < len(words) && isRE[i] {
		if s.from, s.to, err = pair(); err != nil {
			return nil, err
		}
	} else if s.symbol == "" {
		return nil, fmt.Errorf("no symbol and no region")
	}
	for i < len(words) {
		if isRE[i] || words[i] != "omit" {
			return nil, fmt.Errorf("unexpected %q", words[i])
		}
		i++
		a, b, err := pair()
		if err != nil {
			return nil, fmt.Errorf("omit: %w", err)
		}
		s.omits = append(s.omits, [2]*lineRegexp{a, b})
		if len(s.omits) > maxOmits {
			return nil, fmt.Errorf("more than %d omits: list less", maxOmits)
		}
	}
	return s, nil
}

// compileShort compiles a listing's regexp, if it is short enough.
func compileShort(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	if len(prog.Inst) > maxRegexpInsts {
		return nil, fmt.Errorf("too long a regexp (%d instructions, over %d): a listing's regexp finds a line, and a few words of it do", len(prog.Inst), maxRegexpInsts)
	}
	return re, nil
}

// listing is a resolved {{code}}: the lines lo..hi of a file, less the
// omitted ranges.
type listing struct {
	file, symbol string
	lo, hi       int
	omit         [][2]int
}

func (l *listing) caption() string {
	return fmt.Sprintf("%s:%d-%d", l.file, l.lo, l.hi)
}

func (b *book) listing(s *listingSpec) (*listing, error) {
	// A listing may read beyond the bound, by its few regexps' files.
	if b.listingRead > maxListingRead {
		return nil, fmt.Errorf("the book's listings have read more than %d MiB of the sources with their regexps: list less, or by symbol", maxListingRead>>20)
	}
	f, err := b.sourceFile(s.path)
	if err != nil {
		return nil, err
	}
	l := &listing{file: s.path, symbol: s.symbol, lo: 1, hi: len(f.Lines)}
	where := s.path
	if s.symbol != "" {
		d, err := b.symbolIn(s.path, s.symbol)
		if err != nil {
			return nil, err
		}
		l.lo, l.hi = d.Start, d.End
		where = fmt.Sprintf("%s (%s:%d-%d)", s.symbol, s.path, d.Start, d.End)
	}
	match := func(r *lineRegexp, from, to int) int {
		for n := from; n <= to; n++ {
			b.listingRead += len(f.Lines[n-1]) + 1
			if r.re.MatchString(f.Lines[n-1]) {
				return n
			}
		}
		return 0
	}
	if s.from != nil {
		var from int
		if s.symbol == "" {
			var all []string
			for n := 1; n <= len(f.Lines); n++ {
				if s.from.re.MatchString(f.Lines[n-1]) {
					from = n
					all = append(all, fmt.Sprint(n))
				}
			}
			if len(all) > 1 {
				if len(all) > 5 {
					all = append(all[:5], fmt.Sprintf("… (%d in all)", len(all)))
				}
				return nil, fmt.Errorf("/%s/ matches lines %s of %s: make it match one", s.from.src, strings.Join(all, ", "), s.path)
			}
		} else {
			from = match(s.from, l.lo, l.hi)
		}
		if from == 0 {
			return nil, fmt.Errorf("/%s/ matches no line of %s", s.from.src, where)
		}
		to := match(s.to, from, l.hi)
		if to == 0 {
			return nil, fmt.Errorf("/%s/ matches no line of %s at or after line %d", s.to.src, where, from)
		}
		l.lo, l.hi = from, to
	}
	for _, o := range s.omits {
		a := match(o[0], l.lo, l.hi)
		if a == 0 {
			return nil, fmt.Errorf("omit /%s/: it matches no line of %s:%d-%d", o[0].src, s.path, l.lo, l.hi)
		}
		z := match(o[1], a, l.hi)
		if z == 0 {
			return nil, fmt.Errorf("omit /%s/ /%s/: the second matches no line of %s:%d-%d at or after line %d", o[0].src, o[1].src, s.path, l.lo, l.hi, a)
		}
		for _, p := range l.omit {
			if a <= p[1] && z >= p[0] {
				return nil, fmt.Errorf("omit /%s/ /%s/: lines %d-%d overlap lines %d-%d, omitted already", o[0].src, o[1].src, a, z, p[0], p[1])
			}
		}
		l.omit = append(l.omit, [2]int{a, z})
	}
	sort.Slice(l.omit, func(i, j int) bool { return l.omit[i][0] < l.omit[j][0] })
	if n := l.shown(); n > maxListing {
		return nil, fmt.Errorf("%s:%d-%d shows %d lines, over %d lines: show part of it with /FROM/ /TO/ or omit", s.path, l.lo, l.hi, n, maxListing)
	}
	return l, nil
}

// shown counts the lines a listing shows, an elision as one.
func (l *listing) shown() int {
	n := l.hi - l.lo + 1
	for _, o := range l.omit {
		n -= o[1] - o[0]
	}
	return n
}

// symbolIn finds the one definition of a symbol in a file.
func (b *book) symbolIn(file, symbol string) (*srcindex.Def, error) {
	ix := b.index
	var here []*srcindex.Def
	for _, d := range ix.Lookup(symbol) {
		if d.File == file {
			here = append(here, d)
		}
	}
	here = srcindex.Best(here)
	switch len(here) {
	case 1:
		return here[0], nil
	case 0:
		var names []string
		for _, d := range ix.InFile(file) {
			names = append(names, d.Display())
		}
		hint := ""
		if c := srcindex.Closest(symbol, names); len(c) > 0 {
			hint = ": did you mean " + strings.Join(c, ", ") + "?"
		}
		return nil, fmt.Errorf("%s defines no %s%s", file, symbol, hint)
	}
	var at []string
	for _, d := range here {
		at = append(at, fmt.Sprintf("%s (%s) at line %d", d.Display(), d.Kind, d.Start))
	}
	return nil, fmt.Errorf("%s is ambiguous in %s: %s", symbol, file, strings.Join(at, "; "))
}

// renderListing is the listing's HTML: a figure with its caption, each
// line with its number, a link to that line of the file's page.
func (b *book) renderListing(l *listing) string {
	lines, raw := b.highlighted(l.file), b.index.Files[l.file].Lines
	page := html.EscapeString(srcPage(l.file))
	width := len(fmt.Sprint(l.hi))
	var s strings.Builder
	s.WriteString(`<figure class="listing">` + "\n")
	fmt.Fprintf(&s, `<figcaption><a class="listing-src" href="%s?lines=%d-%d#L%d"><code>%s</code></a>`,
		page, l.lo, l.hi, l.lo, html.EscapeString(l.caption()))
	if l.symbol != "" {
		fmt.Fprintf(&s, ` <code class="symbol">%s</code>`, html.EscapeString(l.symbol))
	}
	s.WriteString("</figcaption>\n<pre class=\"chroma\"><code>")
	omit := l.omit
	for n := l.lo; n <= l.hi; n++ {
		if len(omit) > 0 && n == omit[0][0] {
			first := expandTabs(raw[n-1])
			indent := len(first) - len(strings.TrimLeft(first, " "))
			fmt.Fprintf(&s, "<span class=\"line elided\"><span class=\"ln\">%s</span> %s…\n</span>",
				strings.Repeat(" ", width), strings.Repeat(" ", indent))
			n = omit[0][1]
			omit = omit[1:]
			continue
		}
		fmt.Fprintf(&s, "<span class=\"line\"><a class=\"ln\" href=\"%s#L%d\">%*d</a> %s\n</span>", page, n, width, n, lines[n-1])
	}
	s.WriteString("</code></pre>\n</figure>")
	return s.String()
}
