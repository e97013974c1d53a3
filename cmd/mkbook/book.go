package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"endovisor/internal/figlog"
	"endovisor/internal/srcindex"
)

// chapter is one source file of the book, with its placeholders resolved.
type chapter struct {
	Title   string
	src     string // path relative to the root
	Page    string // output file name, crossing.html
	source  *source
	body    string    // the Markdown, each placeholder replaced by a marker
	spliced []spliced // what each marker stands for
	figs    []use
	claims  []use
	refs    []srcRef // what the chapter shows and names of the sources
	Prev    *chapter
	Next    *chapter
	Number  int
}

// use is one placeholder and what it resolved to.
type use struct {
	at    string // chapter file:line
	ph    string // the placeholder as written
	aggs  []*figlog.Aggregate
	text  string   // what the reader sees
	out   string   // the HTML it became
	claim *claim   // a {{claim}}'s claim, evaluated
	refs  []srcRef // the places of the sources it shows
}

type book struct {
	c           config
	chapters    []*chapter
	suites      map[string]*figlog.Suite
	logs        map[string]*figlog.Log       // every log a figure came from, by path
	figs        map[string]*figlog.Aggregate // every figure used, by provenance anchor
	derivs      map[string]*figlog.Derived   // every ratio and difference used, likewise
	files       map[string]bool              // logs named by {{logfile}}, to render too
	lines       map[string]int               // the lines of each log {{logfile}} named
	scanned     int64                        // bytes of logs read for placeholders and pages
	listingRead int                          // bytes of sources the listings' regexps read
	ncodenames  int                          // code names checked
	index       *srcindex.Index              // the sources' definitions, read once
	hl          map[string][]string          // each source file's lines, highlighted
	srcGroups   []*srcGroup                  // the source index's groups (dirs.go)
	external    map[string]int               // book/src/external.txt: names, by line
	retired     *[]retired                   // book/src/retired.txt, once read
	cur         *chapter                     // the chapter being expanded
	diagrams    map[string]*chapter          // each diagram shown, and where
	storedEvery map[string]bool              // claims of "in every boot of the stored runs", by chapter:line: placeholder
}

// path makes a configured path absolute: relative ones are under the root.
func (b *book) path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(b.c.root, rel)
}

var (
	tocEntry = regexp.MustCompile(`^\s*[-*]\s*\[([^\]]+)\]\(([^)]+)\)\s*$`)
	// No "--" in a name: the print view joins a chapter's name and its
	// headings' ids with it.
	chapterFile = regexp.MustCompile(`^[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*\.md$`)
	// The pages mkbook writes itself, which no chapter may overwrite.
	reservedPage = map[string]bool{"index.html": true, "print.html": true, "provenance.html": true}
)

// readTOC reads the table of contents: the chapters, in order.  A chapter
// is a NAME.md beside it, named once, and its page NAME.html must be none
// of mkbook's own; names are compared without case, as some file systems
// do.
func (b *book) readTOC() ([]*chapter, error) {
	toc := filepath.Join(b.c.src, "SUMMARY.md")
	text, err := readSource(b.path(toc))
	if err != nil {
		return nil, fmt.Errorf("table of contents: %w", err)
	}
	var chapters []*chapter
	pages := map[string]int{} // page, lower case, to the line naming it
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		m := tocEntry.FindStringSubmatch(line)
		if m == nil {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				return nil, fmt.Errorf("%s:%d: want '- [Title](file.md)'", toc, n)
			}
			continue
		}
		if !chapterFile.MatchString(m[2]) {
			return nil, fmt.Errorf("%s:%d: chapter %s: want NAME.md, in %s itself", toc, n, m[2], b.c.src)
		}
		page := strings.TrimSuffix(m[2], ".md") + ".html"
		if reservedPage[strings.ToLower(page)] {
			return nil, fmt.Errorf("%s:%d: chapter %s would be written over mkbook's own %s", toc, n, m[2], strings.ToLower(page))
		}
		if first, ok := pages[strings.ToLower(page)]; ok {
			return nil, fmt.Errorf("%s:%d: chapter %s is listed already, on line %d", toc, n, m[2], first)
		}
		pages[strings.ToLower(page)] = n
		src := filepath.Join(b.c.src, m[2])
		if st, err := os.Stat(b.path(src)); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s:%d: chapter %s does not exist", toc, n, src)
		}
		if _, ok := figlog.Within(b.path(b.c.src), b.path(src)); !ok {
			return nil, fmt.Errorf("%s:%d: chapter %s links out of %s", toc, n, src, b.c.src)
		}
		ch := &chapter{Title: m[1], src: src, Number: len(chapters) + 1, Page: page}
		if len(chapters) > 0 {
			ch.Prev = chapters[len(chapters)-1]
			ch.Prev.Next = ch
		}
		chapters = append(chapters, ch)
	}
	if len(chapters) == 0 {
		return nil, fmt.Errorf("%s: names no chapter", toc)
	}
	return chapters, nil
}

func newBook(c config) *book {
	return &book{c: c, suites: map[string]*figlog.Suite{}, logs: map[string]*figlog.Log{},
		figs: map[string]*figlog.Aggregate{}, derivs: map[string]*figlog.Derived{}, files: map[string]bool{}, lines: map[string]int{}}
}

// load reads the table of contents, every chapter it names and the
// definitions of the sources, and resolves every placeholder and code
// name; the first failure is the error.
func load(c config) (*book, error) {
	b := newBook(c)
	chapters, err := b.readTOC()
	if err != nil {
		return nil, err
	}
	b.chapters = chapters
	if b.index, err = srcindex.Build(b.path(".")); err != nil {
		return nil, fmt.Errorf("reading the sources: %w", err)
	}
	if b.srcGroups, err = b.sourceGroups(b.index); err != nil {
		return nil, err
	}
	// Every chapter is parsed before any is resolved: a placeholder may
	// read another chapter (the service table finds the chapter that
	// explains each service).
	for _, ch := range b.chapters {
		text, err := readSource(b.path(ch.src))
		if err != nil {
			return nil, err
		}
		ch.source = parseSource(text)
	}
	for _, ch := range b.chapters {
		if ch.body, err = b.expand(ch); err != nil {
			return nil, err
		}
	}
	if err := b.checkDiagrams(); err != nil {
		return nil, err
	}
	return b, nil
}

// errPredates is a suite's figure asked of a stored run kept before the
// suite was written (config.predates).
var errPredates = errors.New("the run predates the suite")

// suite reads a suite's logs once.
func (b *book) suite(name string) (*figlog.Suite, error) {
	if s, ok := b.suites[name]; ok {
		return s, nil
	}
	if b.c.predates[name] {
		return nil, fmt.Errorf("suite %s: %w", name, errPredates)
	}
	s, err := figlog.ReadSuite(b.path(b.c.logs), name)
	if err != nil {
		return nil, err
	}
	for _, l := range s.Logs {
		b.logs[l.File] = l
	}
	b.suites[name] = s
	return s, nil
}

func (b *book) nlistings() int {
	n := 0
	for _, ch := range b.chapters {
		for _, r := range ch.refs {
			if r.listing {
				n++
			}
		}
	}
	return n
}

func (b *book) nfigures() int {
	n := 0
	for _, ch := range b.chapters {
		n += len(ch.figs)
	}
	return n
}

// printFigures lists every placeholder with the figure it resolved to and
// where that figure was read.
func (b *book) printFigures(w io.Writer) {
	for _, ch := range b.chapters {
		for _, u := range ch.figs {
			fmt.Fprintf(w, "%s\t%s\t%s", u.at, u.ph, u.text)
			for _, a := range u.aggs {
				fmt.Fprintf(w, "\t%s:%s=%s", a.Suite, a.Key, formatValue(a, a.Value))
				if a.HasP99 {
					fmt.Fprintf(w, " p99=%s", formatNumber(a.P99))
				}
				fmt.Fprintf(w, " boots=%d from %s:%d", len(a.Boots), b.rel(a.Primary.File), a.Primary.Line)
			}
			fmt.Fprintln(w)
		}
	}
}

// rel names a file relative to the root, the way a reader would type it.
func (b *book) rel(name string) string {
	root, err := filepath.Abs(b.c.root)
	if err != nil {
		return name
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	if r, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}
