package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"endovisor/internal/figlog"
)

var (
	// The guest runner's line for a boot that went well.
	bootLine = regexp.MustCompile(`^guest: (\S+) boot (\d+)/(\d+) ok in (\S+):`)
	// A boot's number at the end of a log's name: SUITE-3.log.
	bootSuffixRE = regexp.MustCompile(`-[1-9][0-9]*$`)
)

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
	// A suite is run as a make target: a name like -f or A=B would be
	// an option or a variable to make, and is refused.
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

// runSuites runs, with make, every suite the book uses that has no logs
// yet (every one, with -fresh), printing a line per boot and per suite.
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
		if err := runSuite(b, s, progress); err != nil {
			return err
		}
	}
	return nil
}

func runSuite(b *book, suite string, progress io.Writer) error {
	start := time.Now()
	outName := filepath.Join(b.path(b.c.logs), "mkbook-"+suite+".out")
	if err := os.MkdirAll(filepath.Dir(outName), 0o755); err != nil {
		return err
	}
	out, err := os.Create(outName)
	if err != nil {
		return err
	}
	defer out.Close()
	fmt.Fprintf(progress, "mkbook: suite %s: running make %s (output in %s)\n", suite, suite, b.rel(outName))
	cmd := exec.Command("make", "-C", b.path("."), suite)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	var tail []string
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		if tail = append(tail, line); len(tail) > 30 {
			tail = tail[1:]
		}
		if m := bootLine.FindStringSubmatch(line); m != nil {
			fmt.Fprintf(progress, "mkbook: suite %s: boot %s/%s ok in %s\n", m[1], m[2], m[3], m[4])
		}
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("make %s failed (%v); the end of its output:\n%s", suite, err, strings.Join(tail, "\n"))
	}
	fmt.Fprintf(progress, "mkbook: suite %s: done in %s\n", suite, time.Since(start).Round(time.Second))
	return nil
}
