// Package figlog reads the prototype's logs: the console of a guest boot,
// with one EVRUN header line saying how the boot was made and one EVFIG
// line per measured figure.
//
//	EVRUN suite=hello boot=1 of=1 accel=tcg cpu=qemu64 ...
//	[endovisor] EVFIG crossing.stub value=36.2 stat=min unit=cycles rounds=7
//
// A figure line is the word EVFIG, the figure's key, and name=value
// fields; a value may be double-quoted.  Every figure carries the file and
// line it came from, so that whatever prints it can say where it is from.
package figlog

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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
}

// Figure returns the log's figure with the given key.
func (l *Log) Figure(key string) (Figure, bool) {
	for _, f := range l.Figures {
		if f.Key == key {
			return f, true
		}
	}
	return Figure{}, false
}

// ParseFields splits "a=1 b="x y" c=2" into its fields.
func ParseFields(s string) (map[string]string, error) {
	fields := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t\"") {
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
		} else {
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				end = len(rest)
			}
			val, rest = rest[:end], rest[end:]
		}
		if _, dup := fields[name]; dup {
			return nil, fmt.Errorf("field %s given twice", name)
		}
		fields[name] = val
		s = rest
	}
	return fields, nil
}

// Read parses one log.  A malformed EVFIG or EVRUN line is an error that
// names the file and line, and so is a log that stops before the guest
// reported EV-DONE status=ok.
func Read(name string) (*Log, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := &Log{File: name}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n, done := 0, false
	var bad error // the first malformed line, reported once the whole log is read
	for n = 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "EV-DONE status=ok") {
			done = true
		}
		if rest, ok := strings.CutPrefix(line, "EVRUN "); ok && n == 1 {
			if l.Run, err = ParseFields(rest); err != nil && bad == nil {
				bad = fmt.Errorf("%s:%d: %v", name, n, err)
			}
			continue
		}
		i := strings.Index(line, "EVFIG ")
		if i < 0 {
			continue
		}
		if bad != nil {
			continue
		}
		key, rest, _ := strings.Cut(strings.TrimSpace(line[i+len("EVFIG "):]), " ")
		fields, err := ParseFields(rest)
		if err != nil {
			bad = fmt.Errorf("%s:%d: %v", name, n, err)
			continue
		}
		if key == "" || strings.Contains(key, "=") {
			bad = fmt.Errorf("%s:%d: EVFIG without a key", name, n)
			continue
		}
		if _, ok := fields["value"]; !ok {
			bad = fmt.Errorf("%s:%d: figure %s has no value=", name, n, key)
			continue
		}
		if _, err := strconv.ParseFloat(fields["value"], 64); err != nil {
			bad = fmt.Errorf("%s:%d: figure %s: value=%s is not a number", name, n, key, fields["value"])
			continue
		}
		if _, ok := l.Figure(key); ok {
			bad = fmt.Errorf("%s:%d: figure %s given twice in one log", name, n, key)
			continue
		}
		l.Figures = append(l.Figures, Figure{Key: key, Fields: fields, File: name, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if l.Run == nil && bad == nil {
		return nil, fmt.Errorf("%s:1: no EVRUN header: not a log the guest runner wrote", name)
	}
	// The runner keeps only boots that finished; one without the end is
	// cut short, and a garbled last line is then a symptom, not the cause.
	if !done {
		return nil, fmt.Errorf("%s:%d: the log ends without EV-DONE status=ok: truncated, or not from a boot that finished", name, n-1)
	}
	if bad != nil {
		return nil, bad
	}
	return l, nil
}

// SuiteLogs names the logs of a suite in dir: SUITE.log for a single boot,
// or SUITE-1.log, SUITE-2.log, ... for several, in boot order.
func SuiteLogs(dir, suite string) []string {
	if _, err := os.Stat(filepath.Join(dir, suite+".log")); err == nil {
		return []string{filepath.Join(dir, suite+".log")}
	}
	var logs []string
	for n := 1; ; n++ {
		name := filepath.Join(dir, fmt.Sprintf("%s-%d.log", suite, n))
		if _, err := os.Stat(name); err != nil {
			break
		}
		logs = append(logs, name)
	}
	return logs
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
