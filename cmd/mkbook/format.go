package main

import (
	"math"
	"strconv"
	"strings"

	"endovisor/tools/figlog"
)

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
	if big := formatMillions(v); big != "" {
		return big
	}
	return formatDecimals(v, a.Decimals)
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
	if neg {
		s = "-" + s
	}
	return s
}
