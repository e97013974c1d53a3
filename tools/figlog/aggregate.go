package figlog

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Aggregate is one figure over all the boots of a suite: the median of
// each boot's own value, and the worst 99th percentile any boot reported.
type Aggregate struct {
	Suite    string
	Key      string
	Value    float64 // median over boots of each boot's value
	P99      float64 // worst boot's p99; 0 if the figure has none
	HasP99   bool
	Unit     string
	Boots    []Figure // one per boot, in boot order
	Logs     []*Log
	Stat     string // what each boot's value is: median, min, ...
	Primary  Figure // the boot whose value is closest to the aggregate's
	Decimals int    // the most decimals any boot's value was written with
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
		return nil, fmt.Errorf("no log of suite %s: want %s or %s",
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

// Figure aggregates key over the suite's boots.  Every boot must have it:
// a figure missing from one boot would make the median a lie.
func (s *Suite) Figure(key string) (*Aggregate, error) {
	a := &Aggregate{Suite: s.Name, Key: key, Logs: s.Logs}
	var vals []float64
	for _, l := range s.Logs {
		f, ok := l.Figure(key)
		if !ok {
			if len(a.Boots) == 0 && l == s.Logs[0] {
				return nil, fmt.Errorf("no figure %s in %s", key, l.File)
			}
			return nil, fmt.Errorf("figure %s is in some boots of %s but not in %s", key, s.Name, l.File)
		}
		v, _ := f.Value("value")
		vals = append(vals, v)
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
	a.Value = Median(vals)
	best := 0
	for i, v := range vals {
		if abs(v-a.Value) < abs(vals[best]-a.Value) {
			best = i
		}
	}
	a.Primary = a.Boots[best]
	return a, nil
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
