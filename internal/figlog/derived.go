package figlog

import "fmt"

// Derived is a ratio or a difference of two figures.  Of two figures of
// one suite it is computed in each boot, from that boot's two values, and
// the median over boots of those is its value: a boot that ran slow runs
// slow in both, and its ratio is as good as any other's.  Of figures of
// two suites, whose boots are not paired, it is the ratio or difference
// of the two aggregates, and Across says so.
type Derived struct {
	Op      string // "ratio" or "diff"
	A, B    *Aggregate
	PerBoot []float64 // one per boot; nil across suites
	Value   float64
	Across  bool
}

// Ratio is a over b, per boot where they are of one suite.  A ratio means
// something only between values in one unit, the divisor positive and
// the dividend zero or more.
func Ratio(a, b *Aggregate) (*Derived, error) {
	return derive("ratio", a, b, func(x, y float64) float64 { return x / y })
}

// Diff is a less b, per boot where they are of one suite.
func Diff(a, b *Aggregate) (*Derived, error) {
	return derive("diff", a, b, func(x, y float64) float64 { return x - y })
}

func derive(op string, a, b *Aggregate, f func(x, y float64) float64) (*Derived, error) {
	if a.Unit != b.Unit {
		return nil, fmt.Errorf("%s is in %s but %s is in %s", a.Key, a.Unit, b.Key, b.Unit)
	}
	d := &Derived{Op: op, A: a, B: b}
	if op == "ratio" {
		// A positive divisor and a dividend of zero or more in every boot:
		// none of something (a time spent masked, say) is a ratio of 0.
		for gi, g := range []*Aggregate{a, b} {
			for i, v := range g.Values {
				if v > 0 || (gi == 0 && v == 0) {
					continue
				}
				where := ""
				if len(g.Values) > 1 {
					where = fmt.Sprintf(" in %s:%d", g.Boots[i].File, g.Boots[i].Line)
				}
				return nil, fmt.Errorf("%s is %s %s%s: a ratio needs a positive divisor and a dividend of zero or more",
					g.Key, g.Boots[i].Fields["value"], g.Unit, where)
			}
		}
	}
	if a.Suite != b.Suite || len(a.Values) != len(b.Values) {
		d.Across = true
		d.Value = f(a.Value, b.Value)
		return d, nil
	}
	for i := range a.Values {
		d.PerBoot = append(d.PerBoot, f(a.Values[i], b.Values[i]))
	}
	d.Value = Median(d.PerBoot)
	return d, nil
}

// Values are what each boot says: the per-boot values, or across suites
// the one value.
func (d *Derived) Values() []float64 {
	if d.Across {
		return []float64{d.Value}
	}
	return d.PerBoot
}
