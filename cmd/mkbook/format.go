package main

import (
	"math"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
)

// formatRatio prints a ratio with two significant digits below 10 (2.5,
// 1.0, 0.90, 0.0043), trailing zeros kept, and as a whole number from 10
// on.  It rounds first and chooses the form after, so that 9.96, which
// rounds to 10, prints as 10 like 10.2 does, and 0.0996 as 0.10.
func formatRatio(r float64) string {
	if r <= 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "0"
	}
	e := int(math.Floor(math.Log10(r)))
	scale := math.Pow10(e - 1)
	rounded := math.Round(r/scale) * scale
	if rounded >= math.Pow10(e+1)*(1-1e-12) {
		e++ // 9.96 rounded to 10: one digit more to the left
	}
	if rounded >= 10*(1-1e-12) {
		return formatNumber(math.Round(r))
	}
	return strconv.FormatFloat(rounded, 'f', 1-e, 64)
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
