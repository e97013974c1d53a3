package main

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
)

// {{scaling SUITE SIZE=KEY SIZE=KEY ...}}, alone on its line: how a cost
// grows with the size of the work.  Each SIZE (a plain positive number,
// in increasing order) is a point on the horizontal axis, the figure KEY
// of SUITE its value; where KEY's log names a Linux baseline, that
// figure is drawn beside, as a second line.  The plot is followed by the
// points' values, each linked to its provenance.
type scalingKind struct{}

func (scalingKind) usage() string                           { return "{{scaling SUITE SIZE=KEY SIZE=KEY...}}" }
func (scalingKind) block() bool                             { return true }
func (scalingKind) suites(_ config, args []string) []string { return firstSuite(args) }

// A point of a scaling plot: a size, its figure, and the figure's baseline if it names one.
type scalingPoint struct {
	size      float64
	label     string
	fig, base *figlog.Aggregate
}

func (k scalingKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 3 {
		return use{}, fmt.Errorf("want %s, with two points at least", k.usage())
	}
	var pts []scalingPoint
	var aggs []*figlog.Aggregate
	for _, arg := range args[1:] {
		label, key, ok := strings.Cut(arg, "=")
		size, err := strconv.ParseFloat(label, 64)
		if !ok || key == "" || err != nil || !(size > 0) || math.IsInf(size, 0) ||
			strings.ContainsAny(label, "eExXpPnN_+") {
			return use{}, fmt.Errorf("want SIZE=KEY with SIZE a plain positive number, have %q", arg)
		}
		if len(pts) > 0 && size <= pts[len(pts)-1].size {
			return use{}, fmt.Errorf("sizes must increase: %s after %s", label, pts[len(pts)-1].label)
		}
		a, err := b.suiteFigure(args[0], key)
		if err != nil {
			return use{}, err
		}
		if len(pts) > 0 && a.Unit != pts[0].fig.Unit {
			return use{}, fmt.Errorf("%s is in %s, but %s is in %s", key, a.Unit, pts[0].fig.Key, pts[0].fig.Unit)
		}
		p := scalingPoint{size: size, label: label, fig: a}
		aggs = append(aggs, a)
		if a.Primary.Fields["baseline"] != "" {
			if p.base, err = b.baseline(a); err != nil {
				return use{}, err
			}
			aggs = append(aggs, p.base)
		}
		pts = append(pts, p)
	}
	var caption strings.Builder
	for i, p := range pts {
		if i > 0 {
			caption.WriteString("; ")
		}
		fmt.Fprintf(&caption, "%s: %s", html.EscapeString(p.label),
			b.figureLink(p.fig, formatValue(p.fig, p.fig.Value)+" "+p.fig.Unit))
		if p.base != nil {
			fmt.Fprintf(&caption, " (Linux %s)", b.figureLink(p.base, formatValue(p.base, p.base.Value)))
		}
	}
	out := `<figure class="scaling">` + scalingSVG(pts, 420, 160) +
		"<figcaption>" + caption.String() + "</figcaption></figure>"
	return use{aggs: aggs, text: strings.Join(args[1:], ","), out: out}, nil
}

// scalingSVG draws the points' figures against their sizes, and their
// baselines where they have them, from zero up: a flat cost is a level
// line, and one that grows, a rising one.  Sizes that span ten times or
// more go on a logarithmic axis.
func scalingSVG(pts []scalingPoint, w, h int) string {
	const left, right, top, bottom = 8.0, 8.0, 8.0, 30.0
	hi, lo, top1 := 0.0, pts[0].size, pts[len(pts)-1].size
	for _, p := range pts {
		hi = math.Max(hi, p.fig.Value)
		if p.base != nil {
			hi = math.Max(hi, p.base.Value)
		}
	}
	if hi <= 0 {
		hi = 1
	}
	logX := top1/lo >= 10
	x := func(size float64) float64 {
		f := (size - lo) / (top1 - lo)
		if logX {
			f = math.Log(size/lo) / math.Log(top1/lo)
		}
		return left + f*(float64(w)-left-right)
	}
	y := func(v float64) float64 { return top + (1-v/hi)*(float64(h)-top-bottom) }
	first := pts[0].fig
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="plot scaling" width="%d" height="%d" viewBox="0 0 %d %d" role="img"><title>%s from %s to %s: from %s to %s %s</title>`,
		w, h, w, h, html.EscapeString(first.Key), html.EscapeString(pts[0].label),
		html.EscapeString(pts[len(pts)-1].label), formatNumber(first.Value),
		formatNumber(pts[len(pts)-1].fig.Value), html.EscapeString(first.Unit))
	base := float64(h) - bottom
	fmt.Fprintf(&s, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, left, base, float64(w)-right, base)
	for i, p := range pts {
		anchor := "middle" // the first and the last label stay inside the plot
		if i == 0 {
			anchor = "start"
		} else if i == len(pts)-1 {
			anchor = "end"
		}
		fmt.Fprintf(&s, `<text class="end" x="%.1f" y="%.1f" text-anchor="%s">%s</text>`,
			x(p.size), base+13, anchor, html.EscapeString(p.label))
	}
	fmt.Fprintf(&s, `<text class="end" x="%.1f" y="%.1f">0 to %s %s</text>`, left, float64(h)-3,
		formatNumber(hi), html.EscapeString(first.Unit))
	line := func(class string, value func(scalingPoint) (float64, bool)) {
		var path []string
		for _, p := range pts {
			if v, ok := value(p); ok {
				path = append(path, fmt.Sprintf("%.1f,%.1f", x(p.size), y(v)))
			}
		}
		if len(path) > 1 {
			fmt.Fprintf(&s, `<polyline class="%s" fill="none" points="%s"/>`, class, strings.Join(path, " "))
		}
		for _, xy := range path {
			cx, cy, _ := strings.Cut(xy, ",")
			fmt.Fprintf(&s, `<circle class="%s" cx="%s" cy="%s" r="3"/>`, class, cx, cy)
		}
	}
	line("linux", func(p scalingPoint) (float64, bool) {
		if p.base == nil {
			return 0, false
		}
		return p.base.Value, true
	})
	line("ours", func(p scalingPoint) (float64, bool) { return p.fig.Value, true })
	legend := `<text class="end legend-ours" x="%.1f" y="%.1f" text-anchor="end">endovisor</text>`
	fmt.Fprintf(&s, legend, float64(w)-right, float64(h)-3)
	if pts[0].base != nil || pts[len(pts)-1].base != nil {
		fmt.Fprintf(&s, `<text class="end legend-linux" x="%.1f" y="%.1f" text-anchor="end">Linux</text>`,
			float64(w)-right-70, float64(h)-3)
	}
	s.WriteString("</svg>")
	return s.String()
}
