package main

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"endovisor/tools/figlog"
)

// A claim is what a sentence says of its figures, written after the
// sentence so that mkbook checks it against the logs:
//
//	{{claim SUITE:KEY OP N [every]}}
//	{{claim ratio SUITE:A SUITE:B OP N [every]}}
//	{{claim diff SUITE:A SUITE:B OP N [every]}}
//	{{claim SUITE:A OP SUITE:B [every]}}     the same as diff A B OP 0
//
// OP is <, <=, >, >=, == or !=, N a plain decimal.  The claim holds of the
// value the book prints (the figure's aggregate, the median of the
// per-boot ratios), or with every of each boot's value: each boot's
// figure, each boot's ratio of its own two figures.  A claim that holds
// prints nothing.  One the logs contradict fails mkbook check, naming
// the chapter's line, the claim and the figures; mkbook build still
// writes the site (a reader's slower machine must not stop it), with the
// contradicted claim marked where it stands and its paragraph marked with
// it, and lists every contradicted claim when it is done.

type claimKind struct{}

func (claimKind) usage() string {
	return "{{claim SUITE:KEY OP N [every]}}, {{claim ratio|diff SUITE:A SUITE:B OP N [every]}} or {{claim SUITE:A OP SUITE:B [every]}}"
}
func (claimKind) block() bool { return false }

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

// claim is a parsed and evaluated claim.
type claim struct {
	subject string            // what is compared, as the claim names it
	fig     *figlog.Aggregate // the figure compared, or
	d       *figlog.Derived   // the ratio or difference compared
	op      string
	bound   float64
	every   bool
	bad     []int // the boots that contradict it (every), or [-1] for the aggregate
}

func (k claimKind) resolve(b *book, args []string) (use, error) {
	c, err := b.parseClaim(args)
	if err != nil {
		return use{}, fmt.Errorf("%v (want %s)", err, k.usage())
	}
	c.eval()
	u := use{claim: c, text: "", out: ""}
	if c.fig != nil {
		u.aggs = []*figlog.Aggregate{c.fig}
	} else {
		u.aggs = []*figlog.Aggregate{c.d.A, c.d.B}
	}
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
	var err error
	switch {
	case len(args) == 5 && (args[0] == "ratio" || args[0] == "diff"):
		c.subject = strings.Join(args[:3], " ")
		if c.d, err = b.derived(args[0], args[1], args[2]); err != nil {
			return nil, err
		}
		args = args[3:]
	case len(args) == 3 && strings.Contains(args[2], ":"):
		c.subject = "diff " + args[0] + " " + args[2]
		if c.d, err = b.derived("diff", args[0], args[2]); err != nil {
			return nil, err
		}
		args = []string{args[1], "0"}
	case len(args) == 3:
		c.subject = args[0]
		if c.fig, err = b.figure(args[0]); err != nil {
			return nil, err
		}
		args = args[1:]
	default:
		return nil, fmt.Errorf("a claim of %d words", len(args))
	}
	if claimOps[args[0]] == nil {
		return nil, fmt.Errorf("%q is no comparison", args[0])
	}
	if !claimNumber.MatchString(args[1]) {
		return nil, fmt.Errorf("%q is not a plain decimal", args[1])
	}
	c.op = args[0]
	c.bound, _ = strconv.ParseFloat(args[1], 64)
	if c.every && c.d != nil && c.d.Across {
		return nil, fmt.Errorf("every needs each boot's %s, but %s and %s are of two suites", c.d.Op, c.d.A.Suite, c.d.B.Suite)
	}
	return c, nil
}

// eval finds the boots, or the aggregate, that contradict the claim.
func (c *claim) eval() {
	holds := claimOps[c.op]
	value, vals := c.value()
	if !c.every {
		if !holds(value, c.bound) {
			c.bad = []int{-1}
		}
		return
	}
	for i, v := range vals {
		if !holds(v, c.bound) {
			c.bad = append(c.bad, i)
		}
	}
}

// value is what the book prints of the subject, and each boot's.
func (c *claim) value() (float64, []float64) {
	if c.fig != nil {
		return c.fig.Value, c.fig.Values
	}
	return c.d.Value, c.d.Values()
}

func (c *claim) format(v float64) string {
	if c.fig != nil {
		return formatValue(c.fig, v) + " " + c.fig.Unit
	}
	return derivedValue(c.d, v)
}

// what says how the logs contradict the claim, with the figures.
func (c *claim) what() string {
	value, vals := c.value()
	var s strings.Builder
	if c.every {
		var boots []string
		for _, i := range c.bad {
			boots = append(boots, fmt.Sprintf("boot %d has %s", i+1, c.format(vals[i])))
		}
		fmt.Fprintf(&s, "%s %s %s in every boot, but %s", c.subject, c.op, formatPlain(c.bound), strings.Join(boots, ", "))
	} else {
		fmt.Fprintf(&s, "%s %s %s, but it is %s", c.subject, c.op, formatPlain(c.bound), c.format(value))
	}
	var figs []string
	for _, a := range c.aggs() {
		var bv []string
		for _, v := range a.Values {
			bv = append(bv, formatValue(a, v))
		}
		figs = append(figs, fmt.Sprintf("%s:%s %s %s (%s of boots %s)", a.Suite, a.Key,
			formatValue(a, a.Value), a.Unit, a.Rule.Short(), strings.Join(bv, ", ")))
	}
	if c.d != nil && !c.d.Across {
		var per []string
		for _, v := range c.d.PerBoot {
			per = append(per, derivedValue(c.d, v))
		}
		figs = append(figs, fmt.Sprintf("each boot's %s %s", c.d.Op, strings.Join(per, ", ")))
	}
	fmt.Fprintf(&s, ": %s", strings.Join(figs, "; "))
	return s.String()
}

func (c *claim) aggs() []*figlog.Aggregate {
	if c.fig != nil {
		return []*figlog.Aggregate{c.fig}
	}
	return []*figlog.Aggregate{c.d.A, c.d.B}
}

func (c *claim) anchor() string {
	if c.fig != nil {
		return anchorOf(c.fig)
	}
	return derivedAnchor(c.d)
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
