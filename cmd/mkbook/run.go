package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"endovisor/internal/figlog"
	"endovisor/internal/guest"
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
	if filepath.Clean(filepath.Dir(name)) != filepath.Clean(c.logs) {
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

// bootSuite runs one suite's boots, its logs going to logs, and reports
// each boot to progress.  Tests put a fake in its place.
var bootSuite = func(root, logs, suite string, progress guest.Progress) error {
	p, err := guest.New(root, progress)
	if err != nil {
		return err
	}
	unlock, err := p.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	_, err = p.Run(suite, guest.PlanOf(suite), filepath.Join(logs, suite+".log"))
	return err
}

// runSuites runs, through the guest pipeline (internal/guest), every suite
// the book uses that has no logs yet (every one, with -fresh), printing a
// line per boot and per suite.
func runSuites(c config, progress io.Writer) error {
	suites, err := referencedSuites(c)
	if err != nil {
		return err
	}
	b := &book{c: c}
	for _, s := range suites {
		logs, err := figlog.SuiteLogs(b.path(c.logs), s)
		if err != nil {
			return err
		}
		if !c.fresh && len(logs) > 0 {
			continue
		}
		start := time.Now()
		fmt.Fprintf(progress, "mkbook: suite %s: running its boots\n", s)
		if err := bootSuite(b.path("."), b.path(c.logs), s, suiteProgress{progress, s}); err != nil {
			return fmt.Errorf("suite %s: %w", s, err)
		}
		fmt.Fprintf(progress, "mkbook: suite %s: done in %s\n", s, time.Since(start).Round(time.Second))
	}
	return nil
}

// suiteProgress prints what the guest pipeline reports of one suite's
// run, a line each.
type suiteProgress struct {
	w     io.Writer
	suite string
}

func (p suiteProgress) Step(msg string) {
	fmt.Fprintf(p.w, "mkbook: suite %s: %s\n", p.suite, msg)
}

func (p suiteProgress) Booted(b guest.Boot) {
	fmt.Fprintf(p.w, "mkbook: suite %s: boot %d/%d ok in %.1fs\n", b.Suite, b.N, b.Of, b.Elapsed.Seconds())
}

func (p suiteProgress) Retried(b guest.Boot) {
	fmt.Fprintf(p.w, "mkbook: suite %s: boot %d/%d broken by the emulator (%s), booting again; its console is in %s\n",
		b.Suite, b.N, b.Of, b.Emulator, b.Log)
}
