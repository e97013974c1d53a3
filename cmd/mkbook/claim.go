package main

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
)

// A claim is what a sentence says of its figures, written after the
// sentence so that mkbook checks it against the logs:
//
//	{{claim X OP Y [every] [since=DAY]}}
//
// where X and Y are each a figure (SUITE:KEY), a ratio or a difference of
// two (ratio SUITE:A SUITE:B, diff SUITE:A SUITE:B) or a plain decimal,
// any but the decimal perhaps scaled by one (4 * SUITE:KEY, for "less
// than a quarter of"), and OP is <, <=, >, >=, == or !=:
//
//	{{claim ratio sched-perf:kl.yield_rt sched-perf:linux.sched_yield_rt < 0.2}}
//	{{claim mem-perf:mem.first_touch_faults == 0 every}}
//	{{claim mem-perf:copy.check > mem-perf:copy.walk}}
//
// Without every the claim is of the values the book prints (a figure's
// aggregate, the median of the per-boot ratios); with every, of each
// boot's own values, paired boot by boot, which needs operands of one
// suite.  Two timings of one suite of several boots are compared in the
// ratio form, never by their separate medians (unpaired says why).  A
// claim that holds prints nothing.  One the logs contradict
// fails mkbook check, naming the chapter's line, the claim and the
// figures; mkbook build still writes the site (a reader's slower machine
// must not stop it), with a marked note where the claim stands, its
// paragraph marked too (style.css), and lists every contradicted claim
// when it is done.
//
// since=DAY (2026-12-07) says the claim is of a mechanism that day's
// code brought in: a stored run kept before it measured the design it
// replaced, and is not asked to bear the claim out (margins -runs).

type claimKind struct{}

// everyWord is a claim's every, before its end or its since=.
var everyWord = regexp.MustCompile(`\severy(\s+since=\S+)?\s*\}\}$`)

// runDay is the day at the start of a stored run's directory's name.
var runDay = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

func (claimKind) usage() string {
	return "{{claim X OP Y [every] [since=DAY]}}, X and Y a SUITE:KEY, ratio A B, diff A B or number"
}
func (claimKind) block() bool                             { return false }
func (claimKind) suites(_ config, args []string) []string { return suitesNamed(args) }

var (
	claimOps = map[string]func(x, y float64) bool{
		"<":  func(x, y float64) bool { return x < y },
		"<=": func(x, y float64) bool { return x <= y },
		">":  func(x, y float64) bool { return x > y },
		">=": func(x, y float64) bool { return x >= y },
		"==": func(x, y float64) bool { return x == y },
		"!=": func(x, y float64) bool { return x != y },
	}
	claimNumber = regexp.MustCompile(`^-?[0-9]{1,18}(\.[0-9]{1,9})?$`)
)

// operand is one side of a claim: a figure, a ratio or difference, or a
// number.
type operand struct {
	name  string // as the claim writes it
	fig   *figlog.Aggregate
	d     *figlog.Derived
	num   float64
	scale float64 // what the figure or ratio is multiplied by
}

func (b *book) operand(words []string) (operand, error) {
	o := operand{name: strings.Join(words, " "), scale: 1}
	if len(words) > 2 && words[1] == "*" && claimNumber.MatchString(words[0]) {
		o.scale, _ = strconv.ParseFloat(words[0], 64)
		words = words[2:]
		if len(words) == 1 && claimNumber.MatchString(words[0]) {
			return o, fmt.Errorf("%q scales a number, not a figure", o.name)
		}
	}
	var err error
	switch {
	case len(words) == 1 && claimNumber.MatchString(words[0]):
		o.num, _ = strconv.ParseFloat(words[0], 64)
	case len(words) == 1 && strings.Contains(words[0], ":"):
		o.fig, err = b.figure(words[0])
	case len(words) == 3 && (words[0] == "ratio" || words[0] == "diff"):
		o.d, err = b.derived(words[0], words[1], words[2])
	default:
		err = fmt.Errorf("%q is not a figure, a ratio, a difference or a plain decimal", o.name)
	}
	return o, err
}

// value is what the book prints of the operand.
func (o operand) value() float64 {
	switch {
	case o.fig != nil:
		return o.scale * o.fig.Value
	case o.d != nil:
		return o.scale * o.d.Value
	}
	return o.num
}

// boots are each boot's values, and the suite they are of; nil for a
// number, which every boot shares.
func (o operand) boots() ([]float64, string, bool) {
	scaled := func(vs []float64) []float64 {
		var out []float64
		for _, v := range vs {
			out = append(out, o.scale*v)
		}
		return out
	}
	switch {
	case o.fig != nil:
		return scaled(o.fig.Values), o.fig.Suite, true
	case o.d != nil && !o.d.Across:
		return scaled(o.d.PerBoot), o.d.A.Suite, true
	case o.d != nil:
		return nil, "", false
	}
	return nil, "", true
}

func (o operand) format(v float64) string {
	switch {
	case o.fig != nil:
		return formatValue(o.fig, v) + " " + o.fig.Unit
	case o.d != nil:
		return derivedValue(o.d, v)
	}
	return formatPlain(v)
}

func (o operand) aggs() []*figlog.Aggregate {
	switch {
	case o.fig != nil:
		return []*figlog.Aggregate{o.fig}
	case o.d != nil:
		return []*figlog.Aggregate{o.d.A, o.d.B}
	}
	return nil
}

// claim is a parsed and evaluated claim.
type claim struct {
	x, y  operand
	op    string
	every bool
	bad   []int // the boots that contradict it (every), or [-1]: the printed values
}

func (k claimKind) resolve(b *book, args []string) (use, error) {
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "since=") {
		day := strings.TrimPrefix(args[n-1], "since=")
		if !runDay.MatchString(day) || len(day) != 10 {
			return use{}, fmt.Errorf("since=%s is not a day (want since=YYYY-MM-DD)", day)
		}
		if b.c.runDate != "" && b.c.runDate < day {
			return use{}, fmt.Errorf("claim since %s: %w", day, errPredates)
		}
		args = args[:n-1]
	}
	c, err := b.parseClaim(args)
	if err != nil {
		return use{}, fmt.Errorf("%w (want %s)", err, k.usage())
	}
	c.eval()
	u := use{claim: c, aggs: append(c.x.aggs(), c.y.aggs()...)}
	if len(c.bad) > 0 {
		u.text = "contradicted: " + c.what()
		u.out = b.claimMark(c)
	}
	return u, nil
}

func (b *book) parseClaim(args []string) (*claim, error) {
	c := &claim{}
	if n := len(args); n > 0 && args[n-1] == "every" {
		c.every, args = true, args[:n-1]
	}
	at := -1
	for i, w := range args {
		if claimOps[w] != nil {
			if at >= 0 {
				return nil, fmt.Errorf("two comparisons, %s and %s", args[at], w)
			}
			at = i
		}
	}
	if at <= 0 || at == len(args)-1 {
		return nil, fmt.Errorf("no comparison between two operands")
	}
	c.op = args[at]
	var err error
	if c.x, err = b.operand(args[:at]); err != nil {
		return nil, err
	}
	if c.y, err = b.operand(args[at+1:]); err != nil {
		return nil, err
	}
	if c.x.aggs() == nil && c.y.aggs() == nil {
		return nil, fmt.Errorf("a claim of two numbers claims nothing of the logs")
	}
	if err := c.unpaired(); err != nil {
		return nil, err
	}
	if c.every {
		xs, xsuite, xok := c.x.boots()
		ys, ysuite, yok := c.y.boots()
		switch {
		case !xok || !yok:
			return nil, fmt.Errorf("every needs each boot's values, but a ratio or difference of two suites has none")
		case xs != nil && ys != nil && (xsuite != ysuite || len(xs) != len(ys)):
			return nil, fmt.Errorf("every pairs boots, but %s is of suite %s and %s of %s", c.x.name, xsuite, c.y.name, ysuite)
		}
	}
	return c, nil
}

// timeUnits are the units of timings, whose boots differ by TCG's speed.
var timeUnits = map[string]bool{"cycles": true, "ns": true, "us": true, "ms": true, "s": true}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

// unpaired refuses a claim that compares two timings of one suite of
// several boots by their separate medians.  QEMU's emulation runs at one
// of two speeds and can switch inside a boot, so the two medians can come
// from boots of different speeds, and such a claim is a coin toss for the
// next reader's run; the ratio in each boot, whose median the ratio form
// takes, moves with the speed on both sides.
func (c *claim) unpaired() error {
	x, y := c.x.fig, c.y.fig
	if c.every || x == nil || y == nil || x.Suite != y.Suite || len(x.Values) < 2 ||
		!timeUnits[x.Unit] || !timeUnits[y.Unit] {
		return nil
	}
	a, b, op, k := x, y, c.op, c.y.scale/c.x.scale
	if len(formatPlain(k)) > 6 { // 3 * A > B: B / A < 3, not A / B > 0.333...
		a, b, op, k = y, x, flipped[op], 1/k
	}
	return fmt.Errorf("compares two timings of %s, a suite of %d boots, by separate medians: "+
		"pair them boot by boot, as ratio %s:%s %s:%s %s %s",
		x.Suite, len(x.Values), a.Suite, a.Key, b.Suite, b.Key, op, formatPlain(k))
}

// eval finds the boots, or the printed values, that contradict the claim.
func (c *claim) eval() {
	holds := claimOps[c.op]
	if !c.every {
		if !holds(c.x.value(), c.y.value()) {
			c.bad = []int{-1}
		}
		return
	}
	xs, ys := c.pairs()
	for i := range xs {
		if !holds(xs[i], ys[i]) {
			c.bad = append(c.bad, i)
		}
	}
}

// pairs are each boot's two values; a number stands in every boot.
func (c *claim) pairs() ([]float64, []float64) {
	xs, _, _ := c.x.boots()
	ys, _, _ := c.y.boots()
	fill := func(vs []float64, o operand, n int) []float64 {
		if vs != nil {
			return vs
		}
		for range n {
			vs = append(vs, o.num)
		}
		return vs
	}
	return fill(xs, c.x, len(ys)), fill(ys, c.y, len(xs))
}

// what says how the logs contradict the claim, with the figures.
func (c *claim) what() string {
	var s strings.Builder
	if c.every {
		xs, ys := c.pairs()
		var boots []string
		for _, i := range c.bad {
			boots = append(boots, fmt.Sprintf("boot %d has %s against %s", i+1, c.x.format(xs[i]), c.y.format(ys[i])))
		}
		fmt.Fprintf(&s, "%s %s %s in every boot, but %s", c.x.name, c.op, c.y.name, strings.Join(boots, ", "))
	} else {
		fmt.Fprintf(&s, "%s %s %s, but they are %s and %s", c.x.name, c.op, c.y.name, c.x.format(c.x.value()), c.y.format(c.y.value()))
	}
	var figs []string
	for _, a := range append(c.x.aggs(), c.y.aggs()...) {
		var bv []string
		for _, v := range a.Values {
			bv = append(bv, formatValue(a, v))
		}
		figs = append(figs, fmt.Sprintf("%s:%s %s %s (the %s of boots %s)", a.Suite, a.Key,
			formatValue(a, a.Value), a.Unit, a.Rule.Short(), strings.Join(bv, ", ")))
	}
	for _, o := range []operand{c.x, c.y} {
		if o.d != nil && !o.d.Across {
			var per []string
			for _, v := range o.d.PerBoot {
				per = append(per, derivedValue(o.d, v))
			}
			figs = append(figs, fmt.Sprintf("each boot's %s %s", o.name, strings.Join(per, ", ")))
		}
	}
	fmt.Fprintf(&s, ": %s", strings.Join(figs, "; "))
	return s.String()
}

func (c *claim) anchor() string {
	for _, o := range []operand{c.x, c.y} {
		switch {
		case o.d != nil:
			return derivedAnchor(o.d)
		case o.fig != nil:
			return anchorOf(o.fig)
		}
	}
	return ""
}

// formatPlain prints a claim's bound as written: 0.2, 10, 0.95.
func formatPlain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// claimMark is what a contradicted claim puts on its page, where the
// sentence ends: a marked note that says what the logs say, linked to the
// figures' provenance.  The page's style marks the paragraph or item that
// holds it too (.contradicted in style.css).
func (b *book) claimMark(c *claim) string {
	return fmt.Sprintf(`<mark class="contradicted" role="note"><strong>The logs contradict this sentence:</strong> %s. <a href="provenance.html#%s">Where the figures come from</a>.</mark>`,
		html.EscapeString(c.what()), html.EscapeString(c.anchor()))
}

// contradicted lists every claim of the book the logs contradict, each
// as chapter:line: the claim: what the logs say.
func (b *book) contradicted() []string {
	var out []string
	for _, ch := range b.chapters {
		for _, u := range ch.claims {
			if len(u.claim.bad) > 0 {
				out = append(out, fmt.Sprintf("%s: %s: %s", u.at, u.ph, u.text))
			}
		}
	}
	return out
}

func (b *book) nclaims() int {
	n := 0
	for _, ch := range b.chapters {
		n += len(ch.claims)
	}
	return n
}

// claimsEntry is the provenance page's list of every claim the chapters
// make, each with where it stands and whether the logs bear it out.
func (b *book) claimsEntry(s *strings.Builder) {
	if b.nclaims() == 0 {
		return
	}
	fmt.Fprintf(s, "<section class=\"claims\" id=\"claims\">\n<h2>The claims</h2>\n<p>Every sentence of the book that compares or bounds a measurement carries a claim, checked against these logs: %d claims, %d of them contradicted.</p>\n<ul>\n",
		b.nclaims(), len(b.contradicted()))
	for _, ch := range b.chapters {
		for _, u := range ch.claims {
			verdict := "holds"
			if len(u.claim.bad) > 0 {
				verdict = "<strong>contradicted</strong>: " + html.EscapeString(u.claim.what())
			}
			fmt.Fprintf(s, "<li><a href=\"%s\">%s</a>: <code>%s</code>: %s</li>\n",
				html.EscapeString(ch.Page), html.EscapeString(u.at), html.EscapeString(u.ph), verdict)
		}
	}
	s.WriteString("</ul>\n</section>\n")
}

// everyBoot is prose that says a comparison holds in every boot ("in any
// boot" bounds every boot too).
var everyBoot = regexp.MustCompile(`(?i)\bin\s+(every|any)\s+boot\b`)

// ofStoredRuns, after "in every boot", says the boots are those of the
// project's stored runs (book/runs), where go test checks every claim in
// every boot (runs_test.go): a bound the next run is judged on by its
// median, which the stored runs have held in each of their boots.
var ofStoredRuns = regexp.MustCompile(`(?i)^\s+of\s+the\s+(project's\s+)?stored\s+runs\b`)

// sentenceEnd ends a sentence of the prose (placeholders blanked).
var sentenceEnd = regexp.MustCompile(`[.!?;](\s|$)`)

// checkEveryBoot fails on a sentence that says "in every boot" and whose
// claims, after it, lack every: such a claim checks the printed medians,
// not what the sentence says.  A sentence with no claim says how a suite
// runs, not what it found, and is left alone; one that says "in every boot
// of the stored runs" needs a claim, of either kind.
func (b *book) checkEveryBoot(ch *chapter) error {
	s := ch.source
	// Placeholders as spaces, so that a sentence ends at "boot.{{claim".
	pb := []byte(s.prose())
	for _, k := range s.marks {
		for i := k.start; i < k.stop && !k.literal; i++ {
			if pb[i] != '\n' {
				pb[i] = ' '
			}
		}
	}
	prose := string(pb)
	for _, m := range everyBoot.FindAllStringIndex(prose, -1) {
		end := len(prose)
		if e := sentenceEnd.FindStringIndex(prose[m[1]:]); e != nil {
			end = m[1] + e[0] + 1
		}
		var claims, keys []string
		every := false
		for _, k := range s.marks {
			if k.literal || k.start < m[1] {
				continue
			}
			ph := s.text[k.start:k.stop]
			claim := strings.HasPrefix(ph, "{{claim ")
			if k.start >= end {
				// Past the sentence: only its claims, one after another.
				if !claim || strings.TrimSpace(s.text[end:k.start]) != "" {
					break
				}
				end = k.stop
			}
			if claim {
				claims = append(claims, ph)
				keys = append(keys, fmt.Sprintf("%s:%d: %s", ch.src, s.line(k.start), ph))
				every = every || everyWord.MatchString(ph)
			}
		}
		stored := ofStoredRuns.MatchString(prose[m[1]:])
		if stored && len(claims) == 0 {
			return fmt.Errorf("%s:%d: the sentence says \"in every boot of the stored runs\" but carries no claim for go test to check in them",
				ch.src, s.line(m[0]))
		}
		if stored {
			if b.storedEvery == nil {
				b.storedEvery = map[string]bool{}
			}
			for _, k := range keys {
				b.storedEvery[k] = true
			}
		}
		if len(claims) > 0 && !every && !stored {
			return fmt.Errorf("%s:%d: the sentence says \"in every boot\", but its claims (%s) check the printed values only: add every to the claim the sentence bounds",
				ch.src, s.line(m[0]), strings.Join(claims, ""))
		}
	}
	return nil
}
