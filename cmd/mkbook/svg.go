package main

import (
	"fmt"
	"html"
	"math"
	"strings"

	"endovisor/internal/figlog"
)

// plotSVG draws a figure's boots on one axis: a dot at each boot's value,
// a line from it to that boot's p99 where there is one, and a tick at the
// median of the boots, which is the figure.  The axis runs from the
// smallest to the largest of all of them, so the spread of the boots is
// what the eye sees.  With labels, the two ends of the axis are written
// under it, so that a reader can tell a spread of a few cycles from one of
// a few million.
func plotSVG(a *figlog.Aggregate, w, h int, labels bool) string {
	type boot struct{ v, p99 float64 }
	var boots []boot
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range a.Boots {
		v, _ := f.Value("value")
		p, ok := f.Value("p99")
		if !ok {
			p = v
		}
		boots = append(boots, boot{v, p})
		lo = math.Min(lo, math.Min(v, p))
		hi = math.Max(hi, math.Max(v, p))
	}
	if len(boots) == 0 {
		return ""
	}
	pad := 4.0
	x := func(v float64) float64 {
		if hi == lo {
			return float64(w) / 2
		}
		return pad + (v-lo)/(hi-lo)*(float64(w)-2*pad)
	}
	var s strings.Builder
	total := h
	if labels {
		total += 14
	}
	fmt.Fprintf(&s, `<svg class="plot" width="%d" height="%d" viewBox="0 0 %d %d" role="img"><title>%s: %d boots, from %s to %s %s</title>`,
		w, total, w, total, html.EscapeString(a.Key), len(boots), formatNumber(lo), formatNumber(hi), html.EscapeString(a.Unit))
	if labels {
		fmt.Fprintf(&s, `<text class="end" x="%.1f" y="%d">%s</text><text class="end" x="%.1f" y="%d" text-anchor="end">%s %s</text>`,
			pad, total-2, formatNumber(lo), float64(w)-pad, total-2, formatNumber(hi), html.EscapeString(a.Unit))
	}
	mid := float64(h) / 2
	fmt.Fprintf(&s, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, pad, mid, float64(w)-pad, mid)
	for i, bt := range boots {
		y := pad + (float64(h)-2*pad)*float64(i+1)/float64(len(boots)+1)
		if bt.p99 != bt.v {
			fmt.Fprintf(&s, `<line class="tail" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(bt.v), y, x(bt.p99), y)
		}
		fmt.Fprintf(&s, `<circle class="boot" cx="%.1f" cy="%.1f" r="2"/>`, x(bt.v), y)
	}
	fmt.Fprintf(&s, `<line class="median" x1="%.1f" y1="1" x2="%.1f" y2="%d"/></svg>`, x(a.Value), x(a.Value), h-1)
	return s.String()
}
