package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mkbook": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/scripts/*.txtar.  The scripts see the
// repository root as $REPO, and the caller's Go and home settings, so that
// the end-to-end script can run make in the real tree.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(repo, "testdata", "scripts"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			for _, v := range []string{"HOME", "GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
				if s, ok := os.LookupEnv(v); ok {
					env.Setenv(v, s)
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"checkfigures": cmdCheckFigures,
			"gen":          cmdGen,
			"waitglob":     cmdWaitGlob,
		},
	})
}

// checkfigures ROOT SITE checks SITE/figures.txt against the logs: every
// figure it lists must be the value on the log line it names, and the text
// the reader sees must be on the chapter's page.
func cmdCheckFigures(ts *testscript.TestScript, neg bool, args []string) {
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

// checkFigure checks one "suite:key=V ... from FILE:LINE" column against
// its own reading of every boot's log of the suite, beside FILE: V must
// be the aggregate the rule of issue 13 gives (the maximum of a maximum
// or of a count of faults, failures or drops; the median of anything
// else, the mean of the middle two for an even count), to the precision
// V is printed with, and FILE:LINE one of the boots' lines of the figure.
// It shares nothing with figlog or mkbook's formatting but the format of
// the log line.
func checkFigure(root, col string) error {
	head, from, ok := strings.Cut(col, " from ")
	if !ok {
		return fmt.Errorf("no provenance in %q", col)
	}
	name, val, _ := strings.Cut(strings.Fields(head)[0], "=")
	suite, key, _ := strings.Cut(name, ":")
	file, lineNo, _ := strings.Cut(from, ":")
	logs, _ := filepath.Glob(filepath.Join(root, filepath.Dir(file), suite+"-*.log"))
	if single := filepath.Join(root, filepath.Dir(file), suite+".log"); len(logs) == 0 {
		logs = []string{single}
	}
	var vals []float64
	var stat, unit string
	linked := false
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return err
		}
		found := false
		for n, line := range strings.Split(string(data), "\n") {
			_, rest, ok := strings.Cut(line, "EVFIG "+key+" ")
			if !ok {
				continue
			}
			found = true
			fields := map[string]string{}
			for _, f := range strings.Fields(rest) {
				k, v, _ := strings.Cut(f, "=")
				fields[k] = v
			}
			v, err := strconv.ParseFloat(fields["value"], 64)
			if err != nil {
				return fmt.Errorf("%s:%d: value %q", l, n+1, fields["value"])
			}
			vals = append(vals, v)
			stat, unit = fields["stat"], fields["unit"]
			if filepath.Join(root, file) == l && strconv.Itoa(n+1) == lineNo {
				linked = true
			}
		}
		if !found {
			return fmt.Errorf("%s has no figure %s", l, key)
		}
	}
	if !linked {
		return fmt.Errorf("%s:%s is none of the lines of %s in the boots of %s", file, lineNo, key, suite)
	}
	sort.Float64s(vals)
	want := vals[len(vals)/2]
	if len(vals)%2 == 0 {
		want = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	}
	last := key[strings.LastIndexAny(key, "._")+1:]
	bad := map[string]bool{"faults": true, "failures": true, "drops": true, "dropped": true, "failed": true}
	if stat == "max" || (stat == "count" || stat == "sum") && (bad[unit] || bad[last]) {
		want = vals[len(vals)-1]
	}
	text := strings.ReplaceAll(val, ",", "")
	scale := 1.0
	if t, ok := strings.CutSuffix(text, " M"); ok {
		text, scale = t, 1e6
	}
	got, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return fmt.Errorf("the book prints %s=%q, not a number", key, val)
	}
	decimals := 0
	if _, frac, ok := strings.Cut(text, "."); ok {
		decimals = len(frac)
	}
	if tol := 0.5 * math.Pow10(-decimals) * scale * (1 + 1e-9); math.Abs(got*scale-want) > tol {
		return fmt.Errorf("the boots of %s:%s (%v) make %v, but the book says %s", suite, key, vals, want, val)
	}
	return nil
}

// gen [-oneline] FILE N TEXT writes TEXT N times to FILE, a line each or
// all on one line: the logs too big to keep in a script.
func cmdGen(ts *testscript.TestScript, neg bool, args []string) {
	oneline := len(args) > 0 && args[0] == "-oneline"
	if oneline {
		args = args[1:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: gen [-oneline] FILE N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	ts.Check(err)
	w := bufio.NewWriter(f)
	text := strings.Join(args[2:], " ")
	for i := 0; i < n; i++ {
		w.WriteString(text)
		if !oneline {
			w.WriteByte('\n')
		}
	}
	if oneline {
		w.WriteByte('\n')
	}
	ts.Check(w.Flush())
	ts.Check(f.Close())
}

// waitglob PATTERN waits, up to a minute, until a file matches PATTERN: a
// background build has got that far.
func cmdWaitGlob(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitglob PATTERN")
	}
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(ts.MkAbs(args[0])); len(m) > 0 {
			return
		}
	}
	ts.Fatalf("nothing matches %s after a minute", args[0])
}
