package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"endovisor/tools/figlog"
)

// ratio prints a over c, "2.5×".  A ratio means something only between
// two positive figures in one unit: against zero or a negative value it
// would print a sign or an infinity no reader can use.
func ratio(a, c *figlog.Aggregate) (string, error) {
	if a.Unit != c.Unit {
		return "", fmt.Errorf("%s is in %s but %s is in %s", a.Key, a.Unit, c.Key, c.Unit)
	}
	for _, f := range []*figlog.Aggregate{a, c} {
		if f.Value <= 0 {
			return "", fmt.Errorf("%s is %s %s: a ratio needs two positive figures", f.Key, formatValue(f, f.Value), f.Unit)
		}
	}
	return formatRatio(a.Value/c.Value) + "×", nil
}

// formatRatio prints a ratio with two significant digits below 10 (2.5,
// 1.0, 0.90, 0.0043), trailing zeros kept, and as a whole number above.
func formatRatio(r float64) string {
	if r >= 10 {
		return formatNumber(math.Round(r))
	}
	if r <= 0 {
		return "0"
	}
	decimals := 1 - int(math.Floor(math.Log10(r)))
	return strconv.FormatFloat(r, 'f', decimals, 64)
}

// formatValue prints a figure's value as precisely as its logs wrote it:
// a share logged as 0.994 stays 0.994, a count stays whole.
func formatValue(a *figlog.Aggregate, v float64) string {
	return formatAt(v, a.Decimals)
}

// formatAt prints v with d decimals, or as millions.
func formatAt(v float64, d int) string {
	if big := formatMillions(v); big != "" {
		return big
	}
	// The median of an even number of boots can fall halfway between
	// two of them, one decimal finer than the boots were written: 1.5
	// of boots 1 and 2 is not 2.
	if scaled := v * math.Pow10(d); math.Abs(scaled-math.Round(scaled)) > 1e-9*math.Max(1, math.Abs(scaled)) {
		d++
	}
	return formatDecimals(v, d)
}

// formatNumber prints whole numbers with thousands separators and others
// with one decimal: 3,600 and 36.2.
func formatNumber(v float64) string {
	if big := formatMillions(v); big != "" {
		return big
	}
	if v == math.Trunc(v) {
		return formatDecimals(v, 0)
	}
	return formatDecimals(v, 1)
}

// formatMillions prints ten million and more as millions with one decimal,
// 50.8 M: beyond that many digits a reader counts instead of reading.
func formatMillions(v float64) string {
	if math.Abs(v) < 1e7 {
		return ""
	}
	return formatDecimals(v/1e6, 1) + " M"
}

func formatDecimals(v float64, decimals int) string {
	neg := v < 0
	v = math.Abs(v)
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var g []string
	for len(whole) > 3 {
		g = append([]string{whole[len(whole)-3:]}, g...)
		whole = whole[:len(whole)-3]
	}
	g = append([]string{whole}, g...)
	s = strings.Join(g, ",")
	if frac != "" {
		s += "." + frac
	}
	// A value that rounds to zero has no sign: -0.0 is 0.0.
	if neg && strings.Trim(s, "0.,") != "" {
		s = "-" + s
	}
	return s
}
