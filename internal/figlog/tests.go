package figlog

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A test line (prototype/abi/ev_report.h) says how one test case went:
//
//	EVTEST SUITE CASE ok|FAIL[ DETAIL]
//
// SUITE names whose tests these are (a sandbox kernel's name, launcher,
// scale, killwait), CASE the case; the case "all" is a run's summary,
// with cases= and failed= in its detail.  It stands where a figure line
// may (place.go): at the start of a line, or after the endovisor's or a
// sandbox kernel's tag.  A FAIL anywhere fails the boot, and a log that
// holds one is no log of a boot that passed.
const (
	TestWord = "EVTEST"
	TestOK   = "ok"
	TestFail = "FAIL"
)

// Test is one EVTEST line.
type Test struct {
	Suite, Case string
	OK          bool
	Detail      string // what was seen, as the program wrote it; may be empty
	File        string // the log's path, if it came from one
	Line        int
}

func (t Test) String() string {
	r := TestOK
	if !t.OK {
		r = TestFail
	}
	s := TestWord + " " + t.Suite + " " + t.Case + " " + r
	if t.Detail != "" {
		s += " " + t.Detail
	}
	return s
}

var (
	testPlace = regexp.MustCompile(tagged + `EVTEST\b`)
	testName  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

// ParseTest reads a console or log line as a test line.  ok is false for
// a line that is none (a line that only mentions EVTEST somewhere else is
// none either: it cannot pass for a test's result); err says why a line
// that is one is malformed.
func ParseTest(line string) (t Test, ok bool, err error) {
	m := testPlace.FindString(line)
	if m == "" {
		return Test{}, false, nil
	}
	rest, spaced := strings.CutPrefix(line[len(m):], " ")
	f := strings.SplitN(rest, " ", 4)
	if !spaced || len(f) < 3 {
		return Test{}, true, fmt.Errorf("want %s SUITE CASE %s|%s", TestWord, TestOK, TestFail)
	}
	for _, name := range f[:2] {
		if !testName.MatchString(name) {
			return Test{}, true, fmt.Errorf("%s suite or case %q: want letters, digits, _, . and -", TestWord, name)
		}
	}
	t = Test{Suite: f[0], Case: f[1]}
	switch f[2] {
	case TestOK:
		t.OK = true
	case TestFail:
	default:
		return Test{}, true, fmt.Errorf("%s %s %s: the result is %q, want %s or %s", TestWord, t.Suite, t.Case, f[2], TestOK, TestFail)
	}
	if len(f) == 4 {
		t.Detail = strings.TrimSpace(f[3])
	}
	if !utf8.ValidString(t.Detail) || strings.ContainsFunc(t.Detail, unicode.IsControl) {
		return Test{}, true, fmt.Errorf("%s %s %s: the detail is not plain text", TestWord, t.Suite, t.Case)
	}
	return t, true, nil
}
