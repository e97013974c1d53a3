package figlog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Aggregate is one figure over all the boots of a suite: each boot's own
// value aggregated by the figure's rule (Rule), and the worst 99th
// percentile any boot reported.
type Aggregate struct {
	Suite    string
	Key      string
	Value    float64 // the boots' values, aggregated by Rule
	Rule     Rule
	P99      float64 // worst boot's p99; 0 if the figure has none
	HasP99   bool
	Unit     string
	Boots    []Figure // one per boot, in boot order
	Values   []float64
	Logs     []*Log
	Stat     string       // what each boot's value is: median, min, ...
	Primary  Figure       // the boot whose value is closest to the aggregate's
	Decimals int          // the most decimals any boot's value was written with
	Terms    []*Aggregate // a sum's terms (sum.go); nil for a figure of the logs
}

// Rule is how a figure's boots make one value.
//
// A boot's median, minimum or mean (and a figure of any other statistic,
// a derived one, a sum of time) goes to the median over boots: one slow
// or fast boot moves it no more than one boot's worth.  A boot's maximum
// goes to the maximum over boots: the most carriers any boot saw
// runnable at once is the most the system allowed.  A count of something
// that should not happen goes to the maximum too, so that one boot that
// faulted shows: a figure with stat=count or stat=sum whose unit, or the
// last word of whose key, is a fault, a failure or a drop (faults,
// failures, drops, dropped, failed; proc.tenant.dropped, unit=trips, is
// one).  Stolen time (stat=sum unit=ms) and counts of kicks or upcalls,
// which every boot has some of, take the median.
type Rule int

const (
	MedianRule   Rule = iota
	MaxRule           // stat=max
	BadCountRule      // a count that should be zero
)

// badWords name what a count of failures counts.
var badWords = map[string]bool{"faults": true, "fault": true, "failures": true, "failed": true,
	"drops": true, "dropped": true}

// RuleOf is the rule a figure's boots are aggregated by.
func RuleOf(key, stat, unit string) Rule {
	switch stat {
	case "max":
		return MaxRule
	case "count", "sum":
		words := strings.FieldsFunc(key, func(r rune) bool { return r == '.' || r == '_' || r == '-' })
		if badWords[unit] || len(words) > 0 && badWords[words[len(words)-1]] {
			return BadCountRule
		}
	}
	return MedianRule
}

// String says what the rule does, as the provenance page prints it.
func (r Rule) String() string {
	switch r {
	case MaxRule:
		return "the maximum (the rule for a maximum)"
	case BadCountRule:
		return "the maximum (the rule for a count that should be zero: one bad boot shows)"
	}
	return "the median"
}

// Short names the rule in a word: median or maximum.
func (r Rule) Short() string {
	if r == MedianRule {
		return "median"
	}
	return "maximum"
}

// Apply aggregates the boots' values by the rule.
func (r Rule) Apply(vals []float64) float64 {
	if r == MedianRule {
		return Median(vals)
	}
	return Max(vals)
}

// Suite is every boot log of one suite.
type Suite struct {
	Name string
	Logs []*Log
}

// ReadSuite reads the logs of suite in dir; it is an error for there to be
// none.
func ReadSuite(dir, suite string) (*Suite, error) {
	names, err := SuiteLogs(dir, suite)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no log of suite %s: want %s or %s (make runs the suites: make book)",
			suite, filepath.Join(dir, suite+".log"), filepath.Join(dir, suite+"-1.log"))
	}
	s := &Suite{Name: suite}
	for i, n := range names {
		l, err := Read(n)
		if err != nil {
			return nil, err
		}
		if err := checkRun(l, suite, i+1, len(names)); err != nil {
			return nil, err
		}
		s.Logs = append(s.Logs, l)
	}
	return s, nil
}

// ErrNoFigure is a figure that no boot of a suite has.
var ErrNoFigure = errors.New("no figure")

// Figure aggregates key over the suite's boots.  Every boot must have it:
// a figure missing from one boot would make the aggregate a lie.
func (s *Suite) Figure(key string) (*Aggregate, error) {
	a := &Aggregate{Suite: s.Name, Key: key, Logs: s.Logs}
	for _, l := range s.Logs {
		f, ok := l.Figure(key)
		if !ok {
			if len(a.Boots) == 0 && l == s.Logs[0] {
				return nil, fmt.Errorf("%w %s in %s", ErrNoFigure, key, l.File)
			}
			return nil, fmt.Errorf("figure %s is in some boots of %s but not in %s", key, s.Name, l.File)
		}
		v, _ := f.Value("value")
		a.Values = append(a.Values, v)
		if _, frac, ok := strings.Cut(f.Fields["value"], "."); ok && len(frac) > a.Decimals {
			a.Decimals = len(frac)
		}
		if err := sameKind(f, a.Boots); err != nil {
			return nil, err
		}
		if p, ok := f.Value("p99"); ok {
			if !a.HasP99 || p > a.P99 {
				a.P99 = p
			}
			a.HasP99 = true
		}
		a.Unit, a.Stat = f.Fields["unit"], f.Fields["stat"]
		a.Boots = append(a.Boots, f)
	}
	a.Rule = RuleOf(key, a.Stat, a.Unit)
	a.Value = a.Rule.Apply(a.Values)
	a.Primary = a.Boots[Closest(a.Values, a.Value)]
	return a, nil
}

// Closest is the index of the first of vals nearest to v.
func Closest(vals []float64, v float64) int {
	best := 0
	for i, x := range vals {
		if abs(x-v) < abs(vals[best]-v) {
			best = i
		}
	}
	return best
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Keys lists every figure key of the suite's first boot, in log order.
func (s *Suite) Keys() []string {
	var keys []string
	for _, f := range s.Logs[0].Figures {
		keys = append(keys, f.Key)
	}
	return keys
}
