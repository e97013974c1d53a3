package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Retired designs and the words for them.  When the code replaces a
// design, the book keeps the old one only as history: a block quote whose
// first words are **History.**, after the present design,
//
//	> **History.** The grant was an xarray, ...
//
// book/src/retired.txt lists the names and phrases of replaced designs,
// each with what replaced it:
//
//	free_sem  the heap's reader-writer semaphore; copies now take read sections
//
// the term is what comes before the first run of two spaces or a tab, so a
// phrase may have single spaces.  mkbook check fails on a listed term, as
// a whole word in any case, anywhere in a chapter's prose or inline code
// outside a history aside, in a diagram's text or in its caption, naming
// the file and line and what replaced it: a sentence that still says the
// old word is, until shown otherwise, a sentence describing the old design.

// retired is one term of book/src/retired.txt.
type retired struct {
	term, now string
	line      int
	re        *regexp.Regexp
}

var retiredSep = regexp.MustCompile(`\t|  +`)

// retiredTerms reads book/src/retired.txt, once.
func (b *book) retiredTerms() ([]retired, error) {
	if b.retired != nil {
		return *b.retired, nil
	}
	var terms []retired
	name := filepath.Join(b.c.src, "retired.txt")
	f, err := os.Open(b.path(name))
	if os.IsNotExist(err) {
		b.retired = &terms
		return terms, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := retiredSep.Split(line, 2)
		if len(parts) < 2 || strings.TrimSpace(parts[1]) == "" {
			return nil, fmt.Errorf("%s:%d: want a term, two spaces, and what replaced it", name, n)
		}
		term := strings.ToLower(parts[0])
		if first, ok := seen[term]; ok {
			return nil, fmt.Errorf("%s:%d: %s is listed already, on line %d", name, n, parts[0], first)
		}
		seen[term] = n
		terms = append(terms, retired{term: parts[0], now: strings.TrimSpace(parts[1]), line: n,
			re: regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(parts[0]) + `($|[^A-Za-z0-9_])`)})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	b.retired = &terms
	return terms, nil
}

// retiredIn finds the first retired term in text: the term and its
// offset, or ok false.
func (b *book) retiredIn(text string) (r retired, at int, ok bool, err error) {
	terms, err := b.retiredTerms()
	if err != nil {
		return retired{}, 0, false, err
	}
	at = len(text)
	for _, t := range terms {
		// The term starts after the boundary its match may begin with.
		if m := t.re.FindStringSubmatchIndex(text); m != nil && m[3] < at {
			r, at, ok = t, m[3], true
		}
	}
	return r, at, ok, nil
}

// retiredError says where a retired term stands and what replaced it.
func (b *book) retiredError(at string, r retired) error {
	return fmt.Errorf("%s: %q is a retired design's word (%s:%d: %s): describe the present design, or move the sentence into a history aside (> **History.** ...)",
		at, r.term, filepath.Join(b.c.src, "retired.txt"), r.line, r.now)
}

// historyAsides are the spans of a chapter's history asides: each block
// quote whose first line starts "> **History.**", to the first blank line
// (a quote's own blank lines are ">", and a line without ">" continues
// the quote's paragraph, as Markdown reads it).
func historyAsides(text string) []segment {
	var out []segment
	in := false
	start := 0
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off + 1
		}
		line := strings.TrimLeft(text[off:end], " ")
		switch {
		case !in && strings.HasPrefix(line, "> **History.**"):
			in, start = true, off
		case in && strings.TrimSpace(line) == "":
			out = append(out, segment{start, off})
			in = false
		}
		off = end
	}
	if in {
		out = append(out, segment{start, len(text)})
	}
	return out
}

// checkRetired fails on a retired term in a chapter's prose or inline
// code outside its history asides.  Placeholders are left to their own
// checks (a diagram's caption and text are read when it is resolved), and
// listings are the code's own words.
func (b *book) checkRetired(ch *chapter) error {
	s := ch.source
	r, at, ok, err := b.retiredIn(s.blanked(s.blocks, s.html, historyAsides(s.text)))
	if err != nil || !ok {
		return err
	}
	return b.retiredError(fmt.Sprintf("%s:%d", ch.src, s.line(at)), r)
}
