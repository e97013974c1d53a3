package main

import (
	"fmt"
	"html"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"endovisor/tools/figlog"
)

// Placeholders, written in chapter sources between {{ and }} on one line:
//
//	{{fig SUITE:KEY}}        the figure with its unit: "36.2 cycles"
//	{{fig SUITE:KEY FIELD}}  one part of it: value (bare number), p99, boots
//	{{log SUITE:KEY}}        a link to the log file and line it came from
//	{{ratio SUITE:A SUITE:B}} A's value over B's: "2.5×"
//	{{diff SUITE:A SUITE:B}}  A's value less B's, with the unit
//	{{run SUITE FIELD}}      a field of the suite's EVRUN header: accel, cpu, ...
//
// SUITE names the logs: SUITE.log, or SUITE-1.log ... for several boots.
// Every figure a placeholder prints links to its provenance.

func (b *book) expand(at, line string) (string, []use, error) {
	var out strings.Builder
	var uses []use
	for {
		i := strings.Index(line, "{{")
		if i < 0 {
			out.WriteString(line)
			return out.String(), uses, nil
		}
		j := strings.Index(line[i:], "}}")
		if j < 0 {
			return "", nil, fmt.Errorf("%s: unclosed placeholder %q", at, line[i:])
		}
		ph := line[i : i+j+2]
		u, err := b.placeholder(at, strings.Fields(ph[2:len(ph)-2]))
		if err != nil {
			return "", nil, fmt.Errorf("%s: %s: %v", at, ph, err)
		}
		u.at, u.ph = at, ph
		out.WriteString(line[:i])
		out.WriteString(u.out)
		if len(u.aggs) > 0 {
			uses = append(uses, u)
		}
		line = line[i+j+2:]
	}
}

func (b *book) placeholder(at string, words []string) (use, error) {
	if len(words) == 0 {
		return use{}, fmt.Errorf("empty placeholder")
	}
	switch words[0] {
	case "fig", "log":
		if len(words) < 2 || len(words) > 3 || (words[0] == "log" && len(words) != 2) {
			return use{}, fmt.Errorf("want {{fig SUITE:KEY [FIELD]}} or {{log SUITE:KEY}}")
		}
		a, err := b.figure(words[1])
		if err != nil {
			return use{}, err
		}
		field := "with-unit"
		if len(words) == 3 {
			field = words[2]
		}
		if words[0] == "log" {
			field = "log"
		}
		text, err := figureText(a, field)
		if err != nil {
			return use{}, err
		}
		if field == "log" {
			text = fmt.Sprintf("%s:%d", b.rel(a.Primary.File), a.Primary.Line)
		}
		return use{aggs: []*figlog.Aggregate{a}, text: text, out: b.figureLink(a, text, field == "log")}, nil
	case "ratio", "diff":
		if len(words) != 3 {
			return use{}, fmt.Errorf("want {{%s SUITE:A SUITE:B}}", words[0])
		}
		a, err := b.figure(words[1])
		if err != nil {
			return use{}, err
		}
		c, err := b.figure(words[2])
		if err != nil {
			return use{}, err
		}
		if a.Unit != c.Unit {
			return use{}, fmt.Errorf("%s is in %s but %s is in %s", words[1], a.Unit, words[2], c.Unit)
		}
		var text string
		if words[0] == "ratio" {
			if c.Value == 0 {
				return use{}, fmt.Errorf("%s is zero", words[2])
			}
			text = formatRatio(a.Value/c.Value) + "×"
		} else {
			text = formatValue(a, a.Value-c.Value) + " " + a.Unit
		}
		return use{aggs: []*figlog.Aggregate{a, c}, text: text, out: b.figureLink(a, text, false)}, nil
	case "run":
		if len(words) != 3 {
			return use{}, fmt.Errorf("want {{run SUITE FIELD}}")
		}
		s, err := b.suite(words[1])
		if err != nil {
			return use{}, err
		}
		v, ok := s.Logs[0].Run[words[2]]
		if !ok {
			return use{}, fmt.Errorf("the EVRUN header of %s has no field %s", b.rel(s.Logs[0].File), words[2])
		}
		return use{out: html.EscapeString(v)}, nil
	}
	return use{}, fmt.Errorf("unknown placeholder %q (want fig, log, ratio, diff or run)", words[0])
}

// figure resolves SUITE:KEY to the figure aggregated over the suite's boots.
func (b *book) figure(name string) (*figlog.Aggregate, error) {
	suite, key, ok := strings.Cut(name, ":")
	if !ok || suite == "" || key == "" {
		return nil, fmt.Errorf("want SUITE:KEY, have %q", name)
	}
	s, err := b.suite(suite)
	if err != nil {
		return nil, err
	}
	return s.Figure(key)
}

func figureText(a *figlog.Aggregate, field string) (string, error) {
	switch field {
	case "with-unit":
		return formatValue(a, a.Value) + " " + a.Unit, nil
	case "value":
		return formatValue(a, a.Value), nil
	case "p99":
		if !a.HasP99 {
			return "", fmt.Errorf("figure %s has no p99", a.Key)
		}
		return formatNumber(a.P99), nil
	case "boots":
		return strconv.Itoa(len(a.Boots)), nil
	case "log":
		return "", nil
	}
	return "", fmt.Errorf("unknown field %q (want value, p99 or boots)", field)
}

// figureLink wraps a figure's text in a link to the log line it came from,
// with the boots behind it in the title.
func (b *book) figureLink(a *figlog.Aggregate, text string, isRef bool) string {
	p := a.Primary
	href := fmt.Sprintf("logs/%s.html#L%d", filepath.Base(p.File), p.Line)
	title := fmt.Sprintf("median over %d boot(s) of %s of each boot's %s; the boot nearest it: %s line %d",
		len(a.Boots), a.Suite, orDefault(a.Stat, "value"), b.rel(p.File), p.Line)
	if isRef {
		return fmt.Sprintf(`<a class="logref" href="%s" title="%s"><code>%s</code></a>`,
			href, html.EscapeString(title), html.EscapeString(text))
	}
	return fmt.Sprintf(`<a class="fig" href="%s" title="%s">%s</a>`,
		href, html.EscapeString(title), html.EscapeString(text))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// formatRatio prints a ratio with two significant digits below 10 (2.5,
// 0.13, 0.0043) and as a whole number above.
func formatRatio(r float64) string {
	if r >= 10 {
		return formatNumber(math.Round(r))
	}
	return strconv.FormatFloat(r, 'g', 2, 64)
}

// formatValue prints a figure's value as precisely as its logs wrote it:
// a share logged as 0.994 stays 0.994, a count stays whole.
func formatValue(a *figlog.Aggregate, v float64) string {
	return formatDecimals(v, a.Decimals)
}

// formatNumber prints whole numbers with thousands separators and others
// with one decimal: 3,600 and 36.2.
func formatNumber(v float64) string {
	if v == math.Trunc(v) {
		return formatDecimals(v, 0)
	}
	return formatDecimals(v, 1)
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
