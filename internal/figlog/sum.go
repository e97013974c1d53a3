package figlog

import (
	"fmt"
	"strconv"
	"strings"
)

// A sum of figures: what a piece of work costs that the suites time in
// steps, such as a frame from the pool and its map, set beside the one
// fault that does both on Linux.  It is a figure of its own, named
// SUITE:A+B, whose value in each boot is the sum of its terms' values in
// that boot, so a ratio or a claim over it pairs boots as any figure
// does.  Its terms must be of one suite, boot for boot, in one unit, and
// each aggregated by the median: a sum of maxima of different boots
// describes no boot.

// SumKey is the key of the sum of keys.
func SumKey(keys []string) string { return strings.Join(keys, "+") }

// Sum is the figure whose value in each boot is the sum of terms' values.
func Sum(terms []*Aggregate) (*Aggregate, error) {
	if len(terms) < 2 {
		return nil, fmt.Errorf("a sum needs two terms or more, have %d", len(terms))
	}
	first := terms[0]
	var keys []string
	for _, t := range terms {
		switch {
		case t.Suite != first.Suite || len(t.Values) != len(first.Values):
			return nil, fmt.Errorf("a sum's terms must be of one suite: %s is of %s (%d boots), %s of %s (%d boots)",
				first.Key, first.Suite, len(first.Values), t.Key, t.Suite, len(t.Values))
		case t.Unit != first.Unit:
			return nil, fmt.Errorf("a sum's terms must be in one unit: %s is in %s, %s in %s", first.Key, first.Unit, t.Key, t.Unit)
		case t.Rule != MedianRule:
			return nil, fmt.Errorf("%s is aggregated by %s; a sum's terms must be medians over boots", t.Key, t.Rule)
		case t.Terms != nil:
			return nil, fmt.Errorf("%s is a sum already; name its terms", t.Key)
		}
		keys = append(keys, t.Key)
	}
	a := &Aggregate{Suite: first.Suite, Key: SumKey(keys), Rule: MedianRule, Unit: first.Unit,
		Logs: first.Logs, Stat: "sum of its terms", Terms: terms}
	for _, t := range terms {
		a.Decimals = max(a.Decimals, t.Decimals)
	}
	for i := range first.Values {
		v := 0.0
		for _, t := range terms {
			v += t.Values[i]
		}
		a.Values = append(a.Values, v)
		// The boot's line is its first term's: the log the sum was read from.
		at := first.Boots[i]
		a.Boots = append(a.Boots, Figure{Key: a.Key, File: at.File, Line: at.Line,
			Fields: map[string]string{"value": strconv.FormatFloat(v, 'f', a.Decimals, 64), "unit": a.Unit}})
	}
	a.Value = Median(a.Values)
	a.Primary = a.Boots[Closest(a.Values, a.Value)]
	return a, nil
}
