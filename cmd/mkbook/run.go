package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"endovisor/internal/figlog"
)

// A boot's number at the end of a log's name: SUITE-3.log.
var bootSuffixRE = regexp.MustCompile(`-[1-9][0-9]*$`)

// referencedSuites lists, in order of first use, the suites the chapters of
// the table of contents draw figures from.
func referencedSuites(c config) ([]string, error) {
	b := &book{c: c}
	toc, err := b.readTOC()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var suites []string
	// A suite names its logs, SUITE.log or SUITE-N.log: a name that
	// would read another suite's boots, or leave the logs directory, is
	// refused.
	var bad error
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			suites = append(suites, s)
			if !figlog.ValidSuite(s) && bad == nil {
				bad = fmt.Errorf("suite %q: want letters, digits, _ and -, not ending in -N", s)
			}
		}
	}
	for _, ch := range toc {
		data, err := readSource(b.path(ch.src))
		if err != nil {
			return nil, err
		}
		// Each placeholder's kind says which suites it reads, as the
		// chapter's expansion finds the placeholders (placeholder.go).
		for _, m := range findMarks(data) {
			if m.literal || m.unclosed {
				continue
			}
			words := strings.Fields(data[m.start+2 : m.stop-2])
			if len(words) == 0 || kinds[words[0]] == nil {
				continue
			}
			for _, s := range kinds[words[0]].suites(c, words[1:]) {
				add(s)
			}
		}
	}
	return suites, bad
}

// logfileSuite is the suite whose log {{logfile PATH:LINE}} names: PATH is
// SUITE.log or SUITE-N.log in the logs directory.  Any other file is no
// suite's, and gives "".
func logfileSuite(c config, ref string) string {
	name := ref
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		name = ref[:i]
	}
	// A chapter names a log where make leaves it; -logs reads it elsewhere.
	if dir := filepath.Clean(filepath.Dir(name)); dir != filepath.Clean(c.logs) &&
		dir != filepath.Clean(defaultLogs) {
		return ""
	}
	base, ok := strings.CutSuffix(filepath.Base(name), ".log")
	if !ok {
		return ""
	}
	if m := bootSuffixRE.FindStringIndex(base); m != nil {
		base = base[:m[0]]
	}
	if !figlog.ValidSuite(base) {
		return ""
	}
	return base
}
