package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"sort"

	"endovisor/internal/figlog"
)

// How near its bound each claim holds, over one run's logs or pooled over
// many (mkbook margins; -runs DIR pools every run kept under DIR).  A claim
// that holds on one run's logs may not hold on the next: the next reader's
// make check runs the suites again on a machine of its own.  These
// make a claim fragile here:
//
//   - some boot contradicts a claim one boot can contradict, or one whose
//     sentence says it held "in every boot of the stored runs"
//     (checkEveryBoot); a claim on a median is judged by the medians;
//   - with -margin F, a strict comparison (< or >) holds by less than F,
//     as a fraction of the larger side, in its closest boot (for a claim
//     judged boot by boot) or on the closest run's printed values: the
//     next run's coin toss;
//   - the timing floor: a strict comparison of timings that one boot can
//     contradict (below) whose typical value lies less than timingFloor
//     from its bound.  The off boots seen have reached twice the others'
//     cost (a fork timed at 2.0 times its median in a run after 35 boots
//     that never left 1.15 of it), on either side of a ratio, and a
//     bound on every boot must leave room for that whatever the stored
//     runs showed;
//   - the tail rule: a strict comparison whose decisive values (below)
//     number at least tailValues, and whose closest one lies more than
//     tailShare of the way from their median to the bound.  TCG's two
//     speeds and code placement give timings a heavy tail: about one boot
//     in 25 is well off the others.  A bound that the worst of these runs
//     nearly reaches is one the next run's worst will cross; one at least
//     twice as far from the typical value as the worst seen leaves room
//     for a tail as long again.  A bound more than tailReach beyond the
//     closest value seen is not judged: the off boots seen are at most
//     twice the others, and a row with two modes (a peer's turn that
//     takes one of two costs) has a median far from its lower mode.
//
// A claim's decisive values are what the next run's check compares with
// its bound: each boot's values, for a claim one boot can contradict (an
// every claim, or one of a suite of one boot); the printed values of each
// run, for one judged on a median over boots.  Their distance from the
// bound is measured as a ratio (the logarithm of bound over value, signed
// to be positive where the claim holds), so that a bound twice the value
// is as far as one half of it.

const (
	tailShare   = 0.5 // the farthest the closest decisive value may lie, from typical to bound
	tailValues  = 3   // the fewest decisive values the tail rule judges
	timingFloor = 2.5 // the least factor from a timing's typical value to a bound on every boot
)

// tailReach is the distance, a factor of two, beyond which the tail rule
// does not judge a bound.
var tailReach = math.Ln2

// trial is what one run's logs say of one claim.
type trial struct {
	key          string // chapter:line: placeholder
	text         string // the claim on this run's printed values
	contradicted bool
	held, n      int       // boots it holds in, of the boots paired
	worst        float64   // margin in the closest boot, or on the printed values
	printed      float64   // margin on the printed values
	strict       bool      // < or >
	oneBoot      bool      // one boot can contradict it: every, or a suite of one boot
	storedEvery  bool      // its sentence says it held in every boot of the stored runs
	timing       bool      // it compares timings
	decisive     []float64 // distance from the bound of each decisive value
}

// trials are the book's claims as its logs judge them.
func (b *book) trials() []trial {
	var out []trial
	for _, ch := range b.chapters {
		for _, u := range ch.claims {
			c := u.claim
			t := trial{
				key:          fmt.Sprintf("%s: %s", u.at, u.ph),
				text:         fmt.Sprintf("%s %s %s", c.x.format(c.x.value()), c.op, c.y.format(c.y.value())),
				contradicted: len(c.bad) > 0,
				worst:        c.worstMargin(),
				printed:      c.margin(),
				strict:       c.op == "<" || c.op == ">",
			}
			t.held, t.n = c.bootsHeld()
			t.oneBoot = c.every || t.n == 1
			t.storedEvery = b.storedEvery[t.key]
			if !t.oneBoot && !t.storedEvery {
				t.worst = t.printed // judged on the medians alone
			}
			for _, a := range append(c.x.aggs(), c.y.aggs()...) {
				t.timing = t.timing || timeUnits[a.Unit]
			}
			if t.oneBoot {
				xs, ys := c.pairs()
				for i := range xs {
					t.decisive = append(t.decisive, distance(xs[i], ys[i], c.op))
				}
			} else {
				t.decisive = []float64{distance(c.x.value(), c.y.value(), c.op)}
			}
			out = append(out, t)
		}
	}
	return out
}

// pooled is one claim's trials over several runs: the last run's text,
// the boots held and paired summed, the least margins, every decisive
// value, and contradicted if any run contradicts it.
type pooled struct {
	trial
}

// pool gathers each claim's trials, in the order of the first run.
func pool(runs [][]trial) []*pooled {
	var out []*pooled
	by := map[string]*pooled{}
	for _, ts := range runs {
		for _, t := range ts {
			p := by[t.key]
			if p == nil {
				p = &pooled{t}
				p.decisive = slices.Clone(t.decisive)
				by[t.key] = p
				out = append(out, p)
				continue
			}
			p.text = t.text
			p.contradicted = p.contradicted || t.contradicted
			p.held, p.n = p.held+t.held, p.n+t.n
			p.worst, p.printed = min(p.worst, t.worst), min(p.printed, t.printed)
			p.decisive = append(p.decisive, t.decisive...)
		}
	}
	return out
}

// typical is the median of the decisive values' distances from the bound.
func (p *pooled) typical() float64 { return figlog.Median(p.decisive) }

// tail is how far the closest decisive value lies from their median
// toward the bound: 0 at the median, 1 on the bound.  It is not judged
// (ok false) for a claim that is not strict, with too few values, or with
// a bound beyond tailReach of them all.
func (p *pooled) tail() (share float64, ok bool) {
	if !p.strict || len(p.decisive) < tailValues {
		return 0, false
	}
	closest := slices.Min(p.decisive)
	if closest >= tailReach {
		return 0, false
	}
	typical := p.typical()
	if typical <= 0 {
		return 1, true
	}
	return 1 - closest/typical, true
}

// fragile says why the next run's check may contradict the claim, or "".
func (p *pooled) fragile(want float64) string {
	switch {
	case p.contradicted:
		return "the logs contradict it"
	case p.held < p.n && (p.oneBoot || p.storedEvery):
		return "a boot contradicts it"
	case want > 0 && p.strict && p.worst < want:
		return fmt.Sprintf("it holds by less than %.0f%%", 100*want)
	case p.strict && p.oneBoot && p.timing && len(p.decisive) > 0 && p.typical() < math.Log(timingFloor):
		return fmt.Sprintf("one boot can contradict it, and its typical value is less than %g times from the bound", timingFloor)
	case p.tailFragile():
		return fmt.Sprintf("its closest value lies more than %.0f%% of the way to the bound", 100*tailShare)
	}
	return ""
}

func (p *pooled) tailFragile() bool {
	share, ok := p.tail()
	return ok && share > tailShare
}

// printMargins lists every claim with the boots it holds in, those that
// are fragile first (with why), then by their margin on the printed
// values, and counts the fragile ones.  With want above 0 the margin rule
// applies too.
func printMargins(w io.Writer, runs [][]trial, want float64) (fragile int) {
	ps := pool(runs)
	why := make(map[*pooled]string, len(ps))
	for _, p := range ps {
		why[p] = p.fragile(want)
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if (why[ps[i]] != "") != (why[ps[j]] != "") {
			return why[ps[i]] != ""
		}
		return ps[i].printed < ps[j].printed
	})
	for _, p := range ps {
		verdict := "holds"
		if p.contradicted {
			verdict = "CONTRADICTED"
		}
		boots := "boots unpaired"
		if p.n > 0 {
			boots = fmt.Sprintf("holds in %d of %d boots", p.held, p.n)
		}
		tail := ""
		if share, ok := p.tail(); ok {
			tail = fmt.Sprintf(", its closest value %.0f%% of the way to the bound", 100*share)
		}
		if why[p] != "" {
			fragile++
			verdict = "FRAGILE " + verdict
			tail += " (" + why[p] + ")"
		}
		fmt.Fprintf(w, "%s: %s: %s; %s, by %.0f%% on the printed values, %.0f%% in the closest boot%s\n",
			verdict, p.key, p.text, boots, 100*p.printed, 100*p.worst, tail)
	}
	return fragile
}

// runDirs are the runs kept under dir, each a directory of one run's logs.
func runDirs(root, dir string) ([]string, error) {
	es, err := os.ReadDir(path.Join(root, dir))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no run", dir)
	}
	return out, nil
}

// distance is how far x lies from y on the side the comparison wants, as
// the logarithm of their ratio where both are positive, or as a fraction
// of the larger side; negative where the comparison fails.
func distance(x, y float64, op string) float64 {
	var d float64
	if x > 0 && y > 0 {
		d = math.Log(y / x)
	} else if m := max(math.Abs(x), math.Abs(y)); m > 0 {
		d = (y - x) / m
	}
	if op == ">" || op == ">=" {
		d = -d
	}
	return d
}

// bootsHeld pairs a claim's operands boot by boot, as every does, and says
// in how many of the boots it holds; n is 0 where the operands cannot be
// paired (a ratio across suites, or suites of different boot counts).
func (c *claim) bootsHeld() (held, n int) {
	xs, _, xok := c.x.boots()
	ys, _, yok := c.y.boots()
	if !xok || !yok || xs == nil && ys == nil || xs != nil && ys != nil && len(xs) != len(ys) {
		return 0, 0
	}
	px, py := c.pairs()
	holds := claimOps[c.op]
	for i := range px {
		if holds(px[i], py[i]) {
			held++
		}
	}
	return held, len(px)
}

// worstMargin is the claim's margin in the boot where it holds least,
// negative in a boot that contradicts it, or on the printed values if its
// boots are not paired.
func (c *claim) worstMargin() float64 {
	if _, n := c.bootsHeld(); n == 0 {
		return c.margin()
	}
	xs, ys := c.pairs()
	holds := claimOps[c.op]
	worst := math.Inf(1)
	for i := range xs {
		d := max(math.Abs(xs[i]), math.Abs(ys[i]))
		m := 0.0
		if d > 0 {
			m = math.Abs(xs[i]-ys[i]) / d
		}
		if !holds(xs[i], ys[i]) {
			m = -m
		}
		worst = min(worst, m)
	}
	return worst
}

// margin is how far apart the claim's printed values are, as a fraction
// of the larger: how much the next run's values may move before the
// comparison turns.
func (c *claim) margin() float64 {
	x, y := c.x.value(), c.y.value()
	if d := max(math.Abs(x), math.Abs(y)); d > 0 {
		return math.Abs(x-y) / d
	}
	return 0
}
