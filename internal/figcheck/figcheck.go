// Package figcheck checks what a built book printed against the logs it
// was built from, reading the logs afresh: it shares nothing with figlog
// or mkbook's formatting but the format of the log line.  It is a
// testscript command, used by mkbook's scripts on fixture logs and by the
// guest's end-to-end scripts on a real boot's.
package figcheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Cmd is the script command checkfigures ROOT SITE: it checks SITE/figures.txt against the logs: every
// figure it lists must be the value on the log line it names, and the text
// the reader sees must be on the chapter's page.
func Cmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: checkfigures ROOT SITE")
	}
	root, site := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	data, err := os.ReadFile(filepath.Join(site, "figures.txt"))
	ts.Check(err)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) < 4 {
			ts.Fatalf("figures.txt: short line %q", line)
		}
		for _, c := range cols[3:] {
			if err := checkFigure(root, c); err != nil {
				ts.Fatalf("%s: %v", cols[0], err)
			}
		}
		if err := checkDerived(root, cols); err != nil {
			ts.Fatalf("%s: %v", cols[0], err)
		}
		page := strings.TrimSuffix(filepath.Base(strings.SplitN(cols[0], ":", 2)[0]), ".md") + ".html"
		html, err := os.ReadFile(filepath.Join(site, page))
		ts.Check(err)
		if !strings.Contains(string(html), ">"+cols[2]+"<") && !strings.Contains(cols[1], "{{table") {
			ts.Fatalf("%s: %s does not show %q", cols[0], page, cols[2])
		}
		n++
	}
	if n == 0 {
		ts.Fatalf("figures.txt lists no figures")
	}
	ts.Logf("%d figures match their logs", n)
}

// boots is one figure as every boot's log of its suite has it, read
// afresh: it shares nothing with figlog or mkbook's formatting but the
// format of the log line.
type boots struct {
	vals       []float64
	stat, unit string
	lines      map[string]bool // FILE:LINE of each boot's line
	baseline   string
}

func readBoots(root, dir, suite, key string) (*boots, error) {
	if !strings.Contains(key, "+") {
		return readTerm(root, dir, suite, key)
	}
	// SUITE:A+B is a sum: each boot's value is the sum of its terms', and
	// its lines are theirs.
	sum := &boots{lines: map[string]bool{}}
	for i, k := range strings.Split(key, "+") {
		t, err := readTerm(root, dir, suite, k)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			sum.vals, sum.unit = make([]float64, len(t.vals)), t.unit
		}
		for j, v := range t.vals {
			sum.vals[j] += v
		}
		for l := range t.lines {
			sum.lines[l] = true
		}
	}
	return sum, nil
}

func readTerm(root, dir, suite, key string) (*boots, error) {
	logs, _ := filepath.Glob(filepath.Join(root, dir, suite+"-*.log"))
	if len(logs) == 0 {
		logs = []string{filepath.Join(root, dir, suite+".log")}
	}
	sort.Slice(logs, func(i, j int) bool {
		return len(logs[i]) < len(logs[j]) || len(logs[i]) == len(logs[j]) && logs[i] < logs[j]
	})
	b := &boots{lines: map[string]bool{}}
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return nil, err
		}
		// A figure measured in parts (part=K/N) has a line per part; the
		// boot's value is the cheapest part's.
		best, bestLine, lines := math.Inf(1), 0, 0
		var bestFields map[string]string
		for n, line := range strings.Split(string(data), "\n") {
			_, rest, ok := strings.Cut(line, "EVFIG "+key+" ")
			if !ok {
				continue
			}
			fields := map[string]string{}
			for _, f := range strings.Fields(rest) {
				k, v, _ := strings.Cut(f, "=")
				fields[k] = v
			}
			v, err := strconv.ParseFloat(fields["value"], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: value %q", l, n+1, fields["value"])
			}
			if lines++; lines > 1 && fields["part"] == "" {
				return nil, fmt.Errorf("%s:%d: figure %s again, not as a part", l, n+1, key)
			}
			if v < best {
				best, bestLine, bestFields = v, n+1, fields
			}
		}
		if lines == 0 {
			return nil, fmt.Errorf("%s has no figure %s", l, key)
		}
		b.vals = append(b.vals, best)
		b.stat, b.unit, b.baseline = bestFields["stat"], bestFields["unit"], bestFields["baseline"]
		rel, _ := filepath.Rel(root, l)
		b.lines[fmt.Sprintf("%s:%d", rel, bestLine)] = true
	}
	return b, nil
}

func median(vals []float64) float64 {
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// aggregate is the rule of issue 13: the maximum of a maximum or of a
// count of faults, failures or drops; the median of anything else.
func (b *boots) aggregate(key string) float64 {
	last := key[strings.LastIndexAny(key, "._")+1:]
	bad := map[string]bool{"faults": true, "failures": true, "drops": true, "dropped": true, "failed": true}
	if b.stat == "max" || (b.stat == "count" || b.stat == "sum") && (bad[b.unit] || bad[last]) {
		m := b.vals[0]
		for _, v := range b.vals {
			m = math.Max(m, v)
		}
		return m
	}
	return median(b.vals)
}

// printed parses a number as the book prints it (3,600 cycles, 50.8 M,
// 2.5×) and says how far from the true value its rounding may be.
func printed(text string) (v, tol float64, err error) {
	f := strings.Fields(strings.ReplaceAll(text, ",", ""))
	if len(f) == 0 {
		return 0, 0, fmt.Errorf("no number")
	}
	scale := 1.0
	if len(f) > 1 && f[1] == "M" {
		scale = 1e6
	}
	num := strings.TrimSuffix(f[0], "×")
	v, err = strconv.ParseFloat(num, 64)
	decimals := 0
	if _, frac, ok := strings.Cut(num, "."); ok {
		decimals = len(frac)
	}
	return v * scale, 0.5 * math.Pow10(-decimals) * scale * (1 + 1e-9), err
}

// checkFigure checks one "suite:key=V ... from FILE:LINE" column against
// every boot's log of the suite, beside FILE: V must be the aggregate by
// the figure's rule, to the precision V is printed with, and FILE:LINE
// one of the boots' lines of the figure.
func checkFigure(root, col string) error {
	head, from, ok := strings.Cut(col, " from ")
	if !ok {
		return fmt.Errorf("no provenance in %q", col)
	}
	name, val, _ := strings.Cut(strings.Fields(head)[0], "=")
	suite, key, _ := strings.Cut(name, ":")
	b, err := readBoots(root, filepath.Dir(strings.Split(from, ":")[0]), suite, key)
	if err != nil {
		return err
	}
	if !b.lines[from] {
		return fmt.Errorf("%s is none of the lines of %s in the boots of %s", from, key, suite)
	}
	got, tol, err := printed(val)
	if err != nil {
		return fmt.Errorf("the book prints %s=%q, not a number", key, val)
	}
	if want := b.aggregate(key); math.Abs(got-want) > tol {
		return fmt.Errorf("the boots of %s:%s (%v) make %v, but the book says %s", suite, key, b.vals, want, val)
	}
	return nil
}

// checkDerived checks what a {{ratio A B}}, {{diff A B}} or {{fig A
// ratio}} printed: of two figures of one suite, the median over boots of
// each boot's ratio or difference; of two suites, that of the aggregates.
func checkDerived(root string, cols []string) error {
	words := strings.Fields(strings.Trim(cols[1], "{}"))
	var op, a, c string
	switch {
	case len(words) == 3 && (words[0] == "ratio" || words[0] == "diff"):
		op, a, c = words[0], words[1], words[2]
	case len(words) == 3 && words[0] == "fig" && words[2] == "ratio":
		op, a = "ratio", words[1]
	default:
		return nil
	}
	_, from, _ := strings.Cut(cols[3], " from ")
	dir := filepath.Dir(strings.Split(from, ":")[0])
	sa, ka, _ := strings.Cut(a, ":")
	x, err := readBoots(root, dir, sa, ka)
	if err != nil {
		return err
	}
	if c == "" {
		c = sa + ":" + x.baseline
	}
	sc, kc, _ := strings.Cut(c, ":")
	y, err := readBoots(root, dir, sc, kc)
	if err != nil {
		return err
	}
	f := func(p, q float64) float64 { return p - q }
	if op == "ratio" {
		f = func(p, q float64) float64 { return p / q }
	}
	var want float64
	if sa == sc {
		var per []float64
		for i := range x.vals {
			per = append(per, f(x.vals[i], y.vals[i]))
		}
		want = median(per)
	} else {
		want = f(x.aggregate(ka), y.aggregate(kc))
	}
	got, tol, err := printed(cols[2])
	if err != nil {
		return fmt.Errorf("%s printed %q, not a number", cols[1], cols[2])
	}
	if op == "ratio" && want < 10 {
		// two significant digits
		tol = 0.5 * math.Pow10(int(math.Floor(math.Log10(want)))-1) * (1 + 1e-9)
	}
	if math.Abs(got-want) > tol {
		return fmt.Errorf("%s: the boots make %v, but the book says %s", cols[1], want, cols[2])
	}
	return nil
}
