package figlog

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A suite's name is also the start of its logs' names, so it is a plain
// word, and one that does not end in -N: the logs of suite fz-1 would be
// those of boot 1 of suite fz.
var (
	suiteRE     = regexp.MustCompile(`^[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*$`)
	bootSuffix  = regexp.MustCompile(`-[0-9]+$`)
	bootLogName = regexp.MustCompile(`^(.+)-([1-9][0-9]*)\.log$`)
)

// ValidSuite reports whether name may name a suite.
func ValidSuite(name string) bool {
	return suiteRE.MatchString(name) && !bootSuffix.MatchString(name) && len(name) <= 64
}

// SuiteLogs names the logs of a suite in dir: SUITE.log for a single boot,
// or SUITE-1.log, SUITE-2.log, ... for several, in boot order.  Both at
// once are two runs' logs, and a gap in the numbers a boot lost; either
// is an error rather than a figure over the wrong boots.  No log at all
// is no error: the suite has not run.
func SuiteLogs(dir, suite string) ([]string, error) {
	if !ValidSuite(suite) {
		return nil, fmt.Errorf("suite %q: want letters, digits, _ and -, not ending in -N", suite)
	}
	single := filepath.Join(dir, suite+".log")
	_, err := os.Lstat(single)
	hasSingle := err == nil
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var boots []int
	for _, e := range entries {
		if m := bootLogName.FindStringSubmatch(e.Name()); m != nil && m[1] == suite {
			n, err := strconv.Atoi(m[2])
			if err == nil {
				boots = append(boots, n)
			}
		}
	}
	sort.Ints(boots)
	switch {
	case hasSingle && len(boots) > 0:
		return nil, fmt.Errorf("both %s and %s: the logs of two runs; remove the stale one or run the suite again",
			single, filepath.Join(dir, fmt.Sprintf("%s-%d.log", suite, boots[0])))
	case hasSingle:
		return []string{single}, within(dir, []string{single})
	}
	var names []string
	for i, n := range boots {
		if n != i+1 {
			var have []string
			for _, b := range boots {
				have = append(have, strconv.Itoa(b))
			}
			return nil, fmt.Errorf("%s is missing: the logs of suite %s are of boots %s",
				filepath.Join(dir, fmt.Sprintf("%s-%d.log", suite, i+1)), suite, strings.Join(have, ", "))
		}
		names = append(names, filepath.Join(dir, fmt.Sprintf("%s-%d.log", suite, n)))
	}
	return names, within(dir, names)
}

// within refuses a log that links out of the logs directory.
func within(dir string, names []string) error {
	for _, n := range names {
		if _, ok := Within(dir, n); !ok {
			return fmt.Errorf("%s links out of %s: not a log of this build", n, dir)
		}
	}
	return nil
}

// checkRun checks that a log's EVRUN header says what its name does: the
// suite, which boot, and of how many.
func checkRun(l *Log, suite string, boot, of int) error {
	want := map[string]string{"suite": suite, "boot": strconv.Itoa(boot), "of": strconv.Itoa(of)}
	for _, name := range []string{"suite", "boot", "of"} {
		got, ok := l.Run[name]
		if !ok {
			return fmt.Errorf("%s:1: the EVRUN header has no %s=", l.File, name)
		}
		if got != want[name] {
			return fmt.Errorf("%s:1: the EVRUN header says %s=%s, but the log is boot %d of %d of suite %s",
				l.File, name, got, boot, of, suite)
		}
	}
	return nil
}

// sameKind checks that a boot's figure is the same kind of figure as the
// earlier boots': the same unit, statistic, baseline and number of
// samples (n, where logged), with a p99 or without.
// Boots that disagree measured different things, and no median of them
// means anything.
func sameKind(f Figure, earlier []Figure) error {
	if len(earlier) == 0 {
		return nil
	}
	e := earlier[0]
	for _, name := range []string{"unit", "stat", "baseline", "n"} {
		if f.Fields[name] != e.Fields[name] {
			return fmt.Errorf("%s:%d: figure %s has %s=%q, but %q in %s:%d",
				f.File, f.Line, f.Key, name, f.Fields[name], e.Fields[name], e.File, e.Line)
		}
	}
	_, p := f.Fields["p99"]
	if _, ep := e.Fields["p99"]; p != ep {
		return fmt.Errorf("%s:%d: figure %s has a p99 in some boots and not in others (%s:%d)",
			f.File, f.Line, f.Key, e.File, e.Line)
	}
	return nil
}
