package figlog

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Where a figure line may stand, and what a line that mentions EVFIG
// elsewhere is.
func TestFigureText(t *testing.T) {
	for _, c := range []struct {
		line, key, fields string
		ok                bool
		err               string
	}{
		{"EVFIG a value=1 unit=ms", "a", "value=1 unit=ms", true, ""},
		{"[endovisor] EVFIG crossing.stub value=36.2", "crossing.stub", "value=36.2", true, ""},
		{"[sched.0] EVFIG kl.yield_rt value=590", "kl.yield_rt", "value=590", true, ""},
		{"[fill_heap-x.12] EVFIG k value=1", "k", "value=1", true, ""},
		{"EVFIG", "", "", true, "a space and the figure's key"},
		{"EVFIG  a value=1", "", "", true, "a space and the figure's key"},
		{"EVFIGS a value=1", "", "", false, ""},
		{"launcher: sandbox ok", "", "", false, ""},
		{"[proc.0] [pid 3] EVFIG a value=1", "", "", false, "where no figure may stand"},
		{"[sched] EVFIG a value=1", "", "", false, "where no figure may stand"},
		{" EVFIG a value=1", "", "", false, "where no figure may stand"},
		{"x EVFIG a value=1", "", "", false, "where no figure may stand"},
	} {
		key, fields, ok, err := figureText(c.line)
		if key != c.key || fields != c.fields || ok != c.ok || (err == nil) != (c.err == "") ||
			err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("figureText(%q) = %q, %q, %v, %v; want %q, %q, %v, %q",
				c.line, key, fields, ok, err, c.key, c.fields, c.ok, c.err)
		}
	}
}

func TestParseFields(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
		err  string
	}{
		{"", map[string]string{}, ""},
		{"a=1 b=2", map[string]string{"a": "1", "b": "2"}, ""},
		{"  a=1\tb=x  ", map[string]string{"a": "1", "b": "x"}, ""},
		{`host="AMD EPYC" a=1`, map[string]string{"host": "AMD EPYC", "a": "1"}, ""},
		{"a=", map[string]string{"a": ""}, ""},
		{"a=1 a=2", nil, "given twice"},
		{"=1", nil, "want name=value"},
		{"1a=1", nil, "want name=value"},
		{"a", nil, "want name=value"},
		{`a="x`, nil, "unterminated quote"},
		{`a="x"b=1`, nil, "want a space after"},
		{`a="\n"`, nil, "control character"},
		{"a=\xff", nil, "not UTF-8"},
	} {
		got, err := ParseFields(c.in)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseFields(%q): error %v, want %q", c.in, err, c.err)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseFields(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// What a figure's fields may hold.
func TestCheckFigure(t *testing.T) {
	for _, c := range []struct {
		key, fields, err string
	}{
		{"a", "value=1 unit=ms", ""},
		{"a.b-c_d", "value=-2.5 stat=median p99=3 n=5 unit=cycles baseline=linux.x", ""},
		{"a", "unit=ms", "no value="},
		{"a", "value=1", "no unit="},
		{"a", "value=1e3 unit=ms", "not a number"},
		{"a", "value=NaN unit=ms", "not a number"},
		{"a", "value=1 p99=-1 unit=ms", "negative"},
		{"a", "value=1 unit=<b>", "plain word"},
		{"a", "value=1 stat=me dian unit=ms", "want name=value"},
		{"a", "value=1 unit=ms baseline=x/y", "not a figure key"},
		{"a", "value=1 unit=ms n=1.5", "not a count"},
		{"-a", "value=1 unit=ms", "want letters"},
	} {
		f, err := ParseFields(c.fields)
		if err == nil {
			err = checkFigure(c.key, f)
		}
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %s: error %v, want %q", c.key, c.fields, err, c.err)
		}
	}
}

func TestParseTest(t *testing.T) {
	for _, c := range []struct {
		line string
		want Test
		ok   bool
		err  string
	}{
		{"EVTEST launcher vcpu0_fpu_kept ok", Test{Suite: "launcher", Case: "vcpu0_fpu_kept", OK: true}, true, ""},
		{"[sched.0] EVTEST sched yield ok", Test{Suite: "sched", Case: "yield", OK: true}, true, ""},
		{"[hostile.1] EVTEST hostile free_interior ok want=-EINVAL got=-EINVAL",
			Test{Suite: "hostile", Case: "free_interior", OK: true, Detail: "want=-EINVAL got=-EINVAL"}, true, ""},
		{"[mem.0] EVTEST mem cow_parent_kept FAIL the parent's page changed to 81",
			Test{Suite: "mem", Case: "cow_parent_kept", Detail: "the parent's page changed to 81"}, true, ""},
		{"[proc.0] EVTEST proc all ok cases=12 failed=0",
			Test{Suite: "proc", Case: "all", OK: true, Detail: "cases=12 failed=0"}, true, ""},
		{"[endovisor] EVTEST e c FAIL", Test{Suite: "e", Case: "c"}, true, ""},
		{"EVTEST sched yield", Test{}, true, "want EVTEST SUITE CASE"},
		{"EVTEST", Test{}, true, "want EVTEST SUITE CASE"},
		{"EVTEST  sched yield ok", Test{}, true, "suite or case"},
		{"EVTEST sched yield okay", Test{}, true, `the result is "okay"`},
		{"EVTEST sched yield fail", Test{}, true, `the result is "fail"`},
		{"EVTEST sch<ed yield ok", Test{}, true, "suite or case"},
		{"EVTEST sched yield ok \x01", Test{}, true, "not plain text"},
		{"EVTESTS sched yield ok", Test{}, false, ""},
		{"[proc.0] [pid 1] EVTEST proc x FAIL", Test{}, false, ""},
		{"scale: the measuring sandbox logged: [sched.0] EVTEST sched x FAIL", Test{}, false, ""},
		{"KLTEST yield ok", Test{}, false, ""},
	} {
		got, ok, err := ParseTest(c.line)
		if got != c.want || ok != c.ok || (err == nil) != (c.err == "") ||
			err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseTest(%q) = %+v, %v, %v; want %+v, %v, %q", c.line, got, ok, err, c.want, c.ok, c.err)
		}
		if ok && err == nil && got.String() != strings.TrimSpace(c.line[strings.Index(c.line, TestWord):]) {
			t.Errorf("%+v prints as %q", got, got.String())
		}
	}
}

// readBody reads a log of suite s whose lines between the header and the
// end are body, written to dir/s.log.
func readBody(t *testing.T, dir, body string) (*Log, error) {
	t.Helper()
	name := filepath.Join(dir, "s.log")
	if err := os.WriteFile(name, []byte("EVRUN suite=s\n"+body+"EV-DONE status=ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Read(name)
}

// Read keeps the tests of a log that passed, and refuses one whose test
// failed or is malformed, naming the line.
func TestReadTests(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		body  string
		tests int
		err   string
	}{
		{"[sched.0] EVTEST sched yield ok\n[sched.0] EVTEST sched all ok cases=1 failed=0\n", 2, ""},
		{"[sched.0] EVTEST sched yield FAIL kl_wake returned early\n", 0, "s.log:2: EVTEST sched yield FAIL kl_wake returned early: a test failed"},
		{"EVTEST sched yield maybe\n", 0, "s.log:2: EVTEST sched yield"},
		{"[proc.0] [pid 1] EVTEST proc x FAIL\n", 0, ""},
	} {
		l, err := readBody(t, dir, c.body)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.err)
			continue
		}
		if err == nil && len(l.Tests) != c.tests {
			t.Errorf("%q: %d tests, want %d", c.body, len(l.Tests), c.tests)
		}
	}
}

// TestReadParts: a figure measured in parts is its cheapest part's line,
// and a log must hold each part once, of one statistic and one unit.
func TestReadParts(t *testing.T) {
	dir := t.TempDir()
	fig := func(v, part string) string {
		return "EVFIG linux.bench.native.getppid_rt value=" + v + " stat=median unit=cycles p99=9 n=1000" + part + "\n"
	}
	for _, c := range []struct {
		body, value, err string
		line             int
	}{
		{fig("300", " part=1/3") + fig("250", " part=3/3") + fig("280", " part=2/3"), "250", "", 3},
		{"[proc.0] EVFIG linux.bench.native.getppid_rt value=3.5 stat=min unit=cycles part=2/2\n" +
			"[proc.0] EVFIG linux.bench.native.getppid_rt value=2.5 stat=min unit=cycles part=1/2\n", "2.5", "", 3},
		{fig("300", "") + fig("250", ""), "", "s.log:3: figure linux.bench.native.getppid_rt given twice in one log", 0},
		{fig("300", " part=1/2") + fig("250", ""), "", "s.log:3: figure linux.bench.native.getppid_rt given twice in one log", 0},
		{fig("300", "") + fig("250", " part=1/2"), "", "s.log:3: figure linux.bench.native.getppid_rt given twice", 0},
		{fig("300", " part=1/2") + fig("250", " part=1/2"), "", "s.log:3: figure linux.bench.native.getppid_rt: part 1/2 given twice", 0},
		{fig("300", " part=1/2") + fig("250", " part=2/3"), "", "earlier part said 2 parts", 0},
		{fig("300", " part=1/3") + fig("250", " part=3/3"), "", "s.log: figure linux.bench.native.getppid_rt: 2 of its 3 parts only (no part 2)", 0},
		{fig("300", " part=0/3"), "", "want 1 <= K <= N", 0},
		{fig("300", " part=2/1"), "", "want 1 <= K <= N", 0},
		{fig("300", " part=1/99"), "", "want 1 <= K <= N", 0},
		{fig("300", " part=x"), "", "figure linux.bench.native.getppid_rt: part=x: want K/N", 0},
		{"EVFIG linux.bench.native.getppid_rt value=3 stat=max unit=cycles part=1/2\n", "", "only a cheapest or a median", 0},
		{fig("300", " part=1/2") + "EVFIG linux.bench.native.getppid_rt value=2 stat=median unit=ms part=2/2\n", "", "is median ms, an earlier part median cycles", 0},
		{fig("300", " part=1/2") + "EVFIG linux.bench.native.getppid_rt value=2 stat=min unit=cycles part=2/2\n", "", "is min cycles, an earlier part median cycles", 0},
		{fig("300", " part=1/2") + "EVFIG linux.bench.native.getppid_rt value=2 stat=median unit=cycles p99=9 n=10 part=2/2\n", "", `part 2/2 has n="10", an earlier part "1000"`, 0},
		{fig("300", " part=1/2") + "EVFIG linux.bench.native.getppid_rt value=2 stat=median unit=cycles n=1000 part=2/2\n", "", "differ in having a p99", 0},
		{fig("300", " part=1/2") + fig("x", " part=2/2"), "", "s.log:3: figure linux.bench.native.getppid_rt: value=x is not a number", 0},
		{fig("1", " part=1/16") + fig("2", " part=2/16") + fig("3", " part=3/16") + fig("4", " part=4/16") +
			fig("5", " part=5/16") + fig("6", " part=6/16") + fig("7", " part=7/16") + fig("8", " part=8/16") +
			fig("9", " part=9/16") + fig("10", " part=10/16") + fig("11", " part=11/16") + fig("12", " part=12/16") +
			fig("13", " part=13/16") + fig("14", " part=14/16") + fig("15", " part=15/16") + fig("16", " part=16/16"), "1", "", 2},
		{fig("1", " part=1/17"), "", "want 1 <= K <= N, 2 <= N <= 16", 0},
	} {
		l, err := readBody(t, dir, c.body)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		f, ok := l.Figure("linux.bench.native.getppid_rt")
		if !ok || f.Fields["value"] != c.value || f.Line != c.line || len(l.Figures) != 1 {
			t.Errorf("%q: figure %+v (%d figures), want value %s from line %d", c.body, f, len(l.Figures), c.value, c.line)
		}
	}
}
