package figlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{5, 1, 4, 2, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 2}, 6},
		{[]float64{1, 1, 2, 2, 1, 2}, 1.5},
	} {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("Median reordered its input: %v", c.in)
			}
		}
	}
}

func TestRuleOf(t *testing.T) {
	for _, c := range []struct {
		key, stat, unit string
		want            Rule
	}{
		{"kl.yield_rt", "median", "cycles", MedianRule},
		{"crossing.stub", "min", "cycles", MedianRule},
		{"fair50.sibling_share", "mean", "processors", MedianRule},
		{"proc.tenant.nop_parts", "derived", "cycles", MedianRule},
		{"fair1.max_runnable", "max", "carriers", MaxRule},
		{"kill.holder_ms", "max", "ms", MaxRule},
		{"mem.first_touch_faults", "sum", "faults", BadCountRule},
		{"proc.tenant.dropped", "count", "trips", BadCountRule},
		{"x.errors", "count", "failures", BadCountRule},
		{"fair50.stolen", "sum", "ms", MedianRule},
		{"kl.window_kicks", "count", "kicks", MedianRule},
		{"kl.window_spurious", "count", "upcalls", MedianRule},
		{"x.faults", "median", "cycles", MedianRule}, // a time, not a count
	} {
		if got := RuleOf(c.key, c.stat, c.unit); got != c.want {
			t.Errorf("RuleOf(%s, %s, %s) = %v, want %v", c.key, c.stat, c.unit, got, c.want)
		}
	}
}

// suite writes boots of suite s, each a list of figure lines, and reads it.
func suite(t *testing.T, boots ...[]string) (*Suite, error) {
	t.Helper()
	dir := t.TempDir()
	for i, lines := range boots {
		text := fmt.Sprintf("EVRUN suite=s boot=%d of=%d\n%s\nEV-DONE status=ok\n", i+1, len(boots), strings.Join(lines, "\n"))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s-%d.log", i+1)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ReadSuite(dir, "s")
}

func TestAggregate(t *testing.T) {
	for _, c := range []struct {
		name, stat, unit string
		vals             []string
		want             float64
		primary          int // the boot whose line the figure links to
	}{
		{"median of odd", "median", "cycles", []string{"600", "590", "700"}, 600, 0},
		{"median of even", "median", "cycles", []string{"590", "700", "606", "620"}, 613, 2},
		{"min goes to the median", "min", "cycles", []string{"40.5", "41", "39"}, 40.5, 0},
		{"mean goes to the median", "mean", "processors", []string{"0.9", "0.99", "0.95"}, 0.95, 2},
		{"max goes to the max", "max", "carriers", []string{"1", "2", "1", "2", "1"}, 2, 1},
		{"a fault shows", "sum", "faults", []string{"0", "0", "3", "0", "0"}, 3, 2},
		{"stolen time is a median", "sum", "ms", []string{"8.1", "2.0", "10.8", "0.6"}, 5.05, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var boots [][]string
			for _, v := range c.vals {
				boots = append(boots, []string{fmt.Sprintf("EVFIG a value=%s stat=%s unit=%s", v, c.stat, c.unit)})
			}
			s, err := suite(t, boots...)
			if err != nil {
				t.Fatal(err)
			}
			a, err := s.Figure("a")
			if err != nil {
				t.Fatal(err)
			}
			if a.Value != c.want {
				t.Errorf("value %v, want %v", a.Value, c.want)
			}
			if want := fmt.Sprintf("s-%d.log", c.primary+1); filepath.Base(a.Primary.File) != want {
				t.Errorf("primary %s, want %s", a.Primary.File, want)
			}
		})
	}
}

func TestWorstP99(t *testing.T) {
	s, err := suite(t,
		[]string{"EVFIG a value=1 stat=median p99=5 unit=ms"},
		[]string{"EVFIG a value=2 stat=median p99=9 unit=ms"},
		[]string{"EVFIG a value=3 stat=median p99=7 unit=ms"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Figure("a")
	if !a.HasP99 || a.P99 != 9 {
		t.Errorf("p99 %v, want the worst boot's, 9", a.P99)
	}
}

func TestDisagreement(t *testing.T) {
	for _, c := range []struct {
		name, first, second, want string
	}{
		{"unit", "EVFIG a value=1 stat=median unit=ms", "EVFIG a value=1 stat=median unit=cycles",
			`s-2.log:2: figure a has unit="cycles", but "ms" in `},
		{"stat", "EVFIG a value=1 stat=median unit=ms", "EVFIG a value=1 stat=max unit=ms",
			`s-2.log:2: figure a has stat="max", but "median" in `},
		{"n", "EVFIG a value=1 stat=median n=5000 unit=ms", "EVFIG a value=1 stat=median n=4999 unit=ms",
			`s-2.log:2: figure a has n="4999", but "5000" in `},
		{"n missing", "EVFIG a value=1 stat=median n=5000 unit=ms", "EVFIG a value=1 stat=median unit=ms",
			`s-2.log:2: figure a has n="", but "5000" in `},
		{"p99", "EVFIG a value=1 stat=median p99=2 unit=ms", "EVFIG a value=1 stat=median unit=ms",
			`s-2.log:2: figure a has a p99 in some boots and not in others`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := suite(t, []string{c.first}, []string{c.second})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Figure("a")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one holding %q", err, c.want)
			}
		})
	}
}

func TestTruncated(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "s.log")
	for _, text := range []string{
		"EVRUN suite=s boot=1 of=1\nEVFIG a value=1 unit=ms\n",
		"EVRUN suite=s boot=1 of=1\nEVFIG a value=1 unit=ms\nEVFIG b val",
		"EVRUN suite=s boot=1 of=1\nEVFIG a value=1 unit=ms\nEV-DO",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(name)
		if err == nil || !strings.Contains(err.Error(), "the log ends without EV-DONE status=ok: truncated") {
			t.Errorf("%q: error %v, want a truncated log", text, err)
		}
	}
}

func TestDerived(t *testing.T) {
	s, err := suite(t,
		[]string{"EVFIG a value=590 unit=cycles", "EVFIG b value=89300 unit=cycles", "EVFIG o value=1 unit=ms"},
		[]string{"EVFIG a value=700 unit=cycles", "EVFIG b value=60000 unit=cycles", "EVFIG o value=1 unit=ms"},
		[]string{"EVFIG a value=606 unit=cycles", "EVFIG b value=120000 unit=cycles", "EVFIG o value=1 unit=ms"},
		[]string{"EVFIG a value=620 unit=cycles", "EVFIG b value=50000 unit=cycles", "EVFIG o value=1 unit=ms"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Figure("a")
	b, _ := s.Figure("b")
	r, err := Ratio(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Per boot: 0.006607, 0.011667, 0.005050, 0.012400; the median of
	// those, not 613/74650 = 0.00821, the ratio of the medians.
	want := (590.0/89300 + 700.0/60000) / 2
	if r.Across || len(r.PerBoot) != 4 || abs(r.Value-want) > 1e-12 {
		t.Errorf("ratio %v (per boot %v), want %v", r.Value, r.PerBoot, want)
	}
	d, _ := Diff(a, b)
	if want := Median([]float64{590 - 89300, 700 - 60000, 606 - 120000, 620 - 50000}); d.Value != want {
		t.Errorf("diff %v, want %v", d.Value, want)
	}
	o, _ := s.Figure("o")
	if _, err := Ratio(a, o); err == nil {
		t.Errorf("a ratio of cycles to ms")
	}
}
