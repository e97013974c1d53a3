// Package figlog reads the prototype's logs: the console of a guest boot,
// with one EVRUN header line saying how the boot was made, one EVFIG line
// per measured figure and one EVTEST line per test case (tests.go).
//
//	EVRUN suite=hello boot=1 of=1 accel=tcg cpu=qemu64 ...
//	[endovisor] EVFIG crossing.stub value=36.2 stat=min unit=cycles rounds=7
//	[sched.0] EVTEST sched yield ok
//
// A figure line is the word EVFIG, the figure's key, and name=value
// fields; a value may be double-quoted.  The C side writes both kinds of
// line with the macros of prototype/abi/ev_report.h, which report_test.go
// compiles and reads back.  Every figure carries the file and line it
// came from, so that whatever prints it can say where it is from.
//
// Logs are untrusted input, written in part by sandbox kernels and their
// tenants: where a figure line may stand and what its fields may hold is
// place.go's rule, how one figure may come in several lines is parts.go's,
// how a suite's boots must agree is boots.go's, and lines.go bounds what
// reading a log may cost.
package figlog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Figure is one EVFIG line.
type Figure struct {
	Key    string
	Fields map[string]string
	File   string // the log's path
	Line   int
}

// Value returns a numeric field, and whether the figure has it.
func (f Figure) Value(name string) (float64, bool) {
	s, ok := f.Fields[name]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// Log is one boot's log.
type Log struct {
	File    string
	Run     map[string]string // the EVRUN header's fields
	Figures []Figure
	Tests   []Test
	index   map[string]int // Figures by key
}

// Figure returns the log's figure with the given key.
func (l *Log) Figure(key string) (Figure, bool) {
	if i, ok := l.index[key]; ok {
		return l.Figures[i], true
	}
	return Figure{}, false
}

// ParseFields splits "a=1 b="x y" c=2" into its fields.
func ParseFields(s string) (map[string]string, error) {
	fields := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || !fieldRE.MatchString(s[:eq]) {
			return nil, fmt.Errorf("want name=value at %q", s)
		}
		name, rest := s[:eq], s[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("unterminated quote in %s=", name)
			}
			val, _ = strconv.Unquote(q)
			rest = rest[len(q):]
			if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
				return nil, fmt.Errorf("want a space after the quoted %s=", name)
			}
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		if err := checkValue(name, val); err != nil {
			return nil, err
		}
		if _, dup := fields[name]; dup {
			return nil, fmt.Errorf("field %s given twice", name)
		}
		fields[name] = val
		s = rest
	}
	return fields, nil
}

// The line with which the guest's init says the suite passed; any other
// EV-DONE status is a boot that failed.
const DoneLine = "EV-DONE status=ok"

var doneRE = regexp.MustCompile(`^EV-DONE status=([A-Za-z0-9_-]*)`)

// Done reports whether a console line is the guest's EV-DONE status=ok.
// The status is the whole word after status=: okay_not_really is not ok.
// What follows the word (a kernel message the serial console ran into the
// line) does not change it.
func Done(line string) bool {
	m := doneRE.FindStringSubmatch(line)
	return m != nil && m[1] == "ok"
}

// Read parses one log.  A malformed EVFIG, EVTEST or EVRUN line is an
// error that names the file and line, and so is a test that failed, a log
// that stops before the guest reported EV-DONE status=ok, a figure after
// it, and a figure given twice but as the parts of one (parts.go).
func Read(name string) (*Log, error) {
	l := &Log{File: name, index: map[string]int{}}
	last, done := 0, 0
	var bad error // the first malformed line, reported once the whole log is read
	inParts := parts{}
	at := func(n int, format string, args ...any) {
		if bad == nil {
			bad = fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		}
	}
	err := EachLine(name, func(n int, line string) error {
		last = n
		if strings.HasPrefix(line, "EV-DONE") {
			switch {
			case done > 0:
				at(n, "a second EV-DONE line (the first is line %d)", done)
			case !Done(line):
				at(n, "the boot reported %q, not %s: it failed", line, DoneLine)
			}
			done = n
			return nil
		}
		if rest, ok := strings.CutPrefix(line, "EVRUN "); ok || line == "EVRUN" {
			if n != 1 {
				at(n, "an EVRUN header that is not the first line")
				return nil
			}
			run, err := ParseFields(rest)
			if err != nil {
				at(n, "%v", err)
			}
			l.Run = run
			return nil
		}
		if t, ok, err := ParseTest(line); ok {
			switch {
			case err != nil:
				at(n, "%v", err)
			case !t.OK:
				at(n, "%s: a test failed, so the boot did not pass", t)
			default:
				t.File, t.Line = name, n
				l.Tests = append(l.Tests, t)
			}
			return nil
		}
		key, rest, ok, err := figureText(line)
		if ok && done > 0 {
			at(n, "a figure after EV-DONE (line %d): the boot had finished", done)
			return nil
		}
		if err != nil {
			at(n, "%v", err)
		}
		if !ok || err != nil {
			return nil
		}
		if strings.Contains(key, "=") {
			at(n, "EVFIG without a key")
			return nil
		}
		fields, err := ParseFields(rest)
		if err != nil {
			at(n, "%v", err)
			return nil
		}
		if err := checkFigure(key, fields); err != nil {
			at(n, "%v", err)
			return nil
		}
		f := Figure{Key: key, Fields: fields, File: name, Line: n}
		var kept *Figure
		if i, ok := l.index[key]; ok {
			kept = &l.Figures[i]
		}
		cheaper, err := inParts.add(f, kept)
		switch {
		case err != nil:
			at(n, "%v", err)
		case kept == nil:
			l.index[key] = len(l.Figures)
			l.Figures = append(l.Figures, f)
		case cheaper:
			*kept = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if l.Run == nil && bad == nil {
		return nil, fmt.Errorf("%s:1: no EVRUN header: not a log the guest runner wrote", name)
	}
	// The runner keeps only boots that finished; one without the end is
	// cut short, and a garbled last line is then a symptom, not the cause.
	if done == 0 {
		return nil, fmt.Errorf("%s:%d: the log ends without %s: truncated, or not from a boot that finished", name, last, DoneLine)
	}
	if bad == nil {
		if err := inParts.missing(); err != nil {
			bad = fmt.Errorf("%s: %v", name, err)
		}
	}
	if bad != nil {
		return nil, bad
	}
	return l, nil
}

// Median returns the median of xs (the mean of the middle two for an even
// count).
func Median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Max returns the largest of xs (0 for none).
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}
