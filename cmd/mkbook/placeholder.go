package main

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"endovisor/tools/figlog"
)

// Placeholders, written in chapter sources between {{ and }} on one line:
//
//	{{fig SUITE:KEY}}          the figure with its unit: "36.2 cycles"
//	{{fig SUITE:KEY FIELD}}    one part of it: value (the bare number), p99,
//	                           boots, or ratio (to the Linux baseline its log names)
//	{{log SUITE:KEY}}          the log file and line the figure came from
//	{{logfile PATH:LINE}}      a line of any log, which must exist
//	{{ratio SUITE:A SUITE:B}}  A's value over B's: "2.5×"
//	{{diff SUITE:A SUITE:B}}   A's value less B's, with the unit
//	{{run SUITE FIELD}}        a field of the suite's EVRUN header: accel, cpu, ...
//	{{table SUITE KEY...}}     a table of those figures of one suite: median,
//	                           worst p99, boots, baseline, ratio, and a plot of
//	                           the boots; alone on its line
//	{{quote SUITE TEXT}}       every line of the suite's first log that holds
//	                           TEXT, each linked to its place; alone on its line
//
// SUITE names the logs: SUITE.log, or SUITE-1.log ... for several boots.
// Every figure a placeholder prints links to its provenance: the page that
// lists each boot's value and log line, with the plot.
//
// A placeholder in inline code or a code block prints its plain text
// there; \{{ writes a literal {{, in prose and in code.  What a
// placeholder prints never passes through Markdown (splice.go), and what
// it may read of the logs is bounded (logs.go).

// expand resolves every placeholder of a chapter and returns its Markdown
// with each replaced (splice.go).
func (b *book) expand(ch *chapter) (string, error) {
	s := ch.source
	var out strings.Builder
	last := 0
	for _, m := range s.marks {
		out.WriteString(s.text[last:m.start])
		last = m.stop
		at := fmt.Sprintf("%s:%d", ch.src, s.line(m.start))
		ph := s.text[m.start:m.stop]
		switch {
		case m.literal && s.where(m.start, m.stop) == "prose":
			out.WriteString(ph) // Markdown drops the backslash
			continue
		case m.literal:
			out.WriteString("{{") // code shows it as written
			continue
		case m.unclosed:
			return "", fmt.Errorf("%s: unclosed placeholder %q", at, strings.TrimRight(ph, "\r\n"))
		}
		words := strings.Fields(ph[2 : len(ph)-2])
		block := len(words) > 0 && (words[0] == "table" || words[0] == "quote")
		if block && !m.alone {
			return "", fmt.Errorf("%s: %s: a %s must stand alone on its line", at, ph, words[0])
		}
		u, err := b.placeholder(words)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %v", at, ph, err)
		}
		u.at, u.ph = at, ph
		repl, err := ch.splice(s.where(m.start, m.stop), u, block)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %v", at, ph, err)
		}
		out.WriteString(repl)
		if len(u.aggs) > 0 {
			ch.figs = append(ch.figs, u)
		}
	}
	out.WriteString(s.text[last:])
	return out.String(), nil
}

func (b *book) placeholder(words []string) (use, error) {
	if len(words) == 0 {
		return use{}, fmt.Errorf("empty placeholder")
	}
	switch words[0] {
	case "fig":
		if len(words) < 2 || len(words) > 3 {
			return use{}, fmt.Errorf("want {{fig SUITE:KEY [FIELD]}}")
		}
		a, err := b.figure(words[1])
		if err != nil {
			return use{}, err
		}
		field := "with-unit"
		if len(words) == 3 {
			field = words[2]
		}
		text, aggs, err := b.figureText(a, field)
		if err != nil {
			return use{}, err
		}
		return use{aggs: aggs, text: text, out: b.figureLink(a, text)}, nil
	case "log":
		if len(words) != 2 {
			return use{}, fmt.Errorf("want {{log SUITE:KEY}}")
		}
		a, err := b.figure(words[1])
		if err != nil {
			return use{}, err
		}
		p := a.Primary
		text := fmt.Sprintf("%s:%d", b.rel(p.File), p.Line)
		return use{aggs: []*figlog.Aggregate{a}, text: text, out: b.logLink(p.File, p.Line, text)}, nil
	case "logfile":
		if len(words) != 2 {
			return use{}, fmt.Errorf("want {{logfile PATH:LINE}}")
		}
		return b.logfile(words[1])
	case "ratio", "diff":
		return b.compare(words)
	case "quote":
		if len(words) < 3 {
			return use{}, fmt.Errorf("want {{quote SUITE TEXT}}")
		}
		return b.quote(words[1], strings.Join(words[2:], " "))
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
		return use{text: v, out: html.EscapeString(v)}, nil
	case "table":
		if len(words) < 3 {
			return use{}, fmt.Errorf("want {{table SUITE KEY...}}")
		}
		return b.table(words[1], words[2:])
	}
	return use{}, fmt.Errorf("unknown placeholder %q (want fig, log, logfile, ratio, diff, run, table or quote)", words[0])
}

// figure resolves SUITE:KEY to the figure aggregated over the suite's boots.
func (b *book) figure(name string) (*figlog.Aggregate, error) {
	suite, key, ok := strings.Cut(name, ":")
	if !ok || suite == "" || key == "" {
		return nil, fmt.Errorf("want SUITE:KEY, have %q", name)
	}
	return b.suiteFigure(suite, key)
}

func (b *book) suiteFigure(suite, key string) (*figlog.Aggregate, error) {
	s, err := b.suite(suite)
	if err != nil {
		return nil, err
	}
	a, err := s.Figure(key)
	if err != nil {
		return nil, err
	}
	b.figs[anchorOf(a)] = a
	return a, nil
}

// baseline is the Linux figure a figure's log names as its baseline=.
func (b *book) baseline(a *figlog.Aggregate) (*figlog.Aggregate, error) {
	name := a.Primary.Fields["baseline"]
	if name == "" {
		return nil, fmt.Errorf("figure %s names no baseline", a.Key)
	}
	c, err := b.suiteFigure(a.Suite, name)
	if err != nil {
		return nil, fmt.Errorf("the baseline of %s: %v", a.Key, err)
	}
	if c.Unit != a.Unit {
		return nil, fmt.Errorf("the baseline %s of %s is in %s, but %s is in %s", name, a.Key, c.Unit, a.Key, a.Unit)
	}
	return c, nil
}

func (b *book) figureText(a *figlog.Aggregate, field string) (string, []*figlog.Aggregate, error) {
	aggs := []*figlog.Aggregate{a}
	switch field {
	case "with-unit":
		return formatValue(a, a.Value) + " " + a.Unit, aggs, nil
	case "value":
		return formatValue(a, a.Value), aggs, nil
	case "p99":
		if !a.HasP99 {
			return "", nil, fmt.Errorf("figure %s has no p99", a.Key)
		}
		return formatNumber(a.P99), aggs, nil
	case "boots":
		return strconv.Itoa(len(a.Boots)), aggs, nil
	case "ratio":
		c, err := b.baseline(a)
		if err != nil {
			return "", nil, err
		}
		r, err := ratio(a, c)
		if err != nil {
			return "", nil, err
		}
		return r, append(aggs, c), nil
	}
	return "", nil, fmt.Errorf("unknown field %q (want value, p99, boots or ratio)", field)
}

func (b *book) compare(words []string) (use, error) {
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
		if text, err = ratio(a, c); err != nil {
			return use{}, err
		}
	} else {
		// The difference is as precise as the more precise of the two.
		text = formatAt(a.Value-c.Value, max(a.Decimals, c.Decimals)) + " " + a.Unit
	}
	return use{aggs: []*figlog.Aggregate{a, c}, text: text, out: b.figureLink(a, text)}, nil
}

// anchorOf names a figure's entry on the provenance page: its suite and
// key as a placeholder names them, which no other figure shares (a suite
// has no colon).
func anchorOf(a *figlog.Aggregate) string {
	return "f-" + a.Suite + ":" + a.Key
}

// figureLink wraps a figure's text in a link to its provenance, with the
// boots behind it in the title.
func (b *book) figureLink(a *figlog.Aggregate, text string) string {
	title := fmt.Sprintf("%s: median over %d boot(s) of each boot's %s", a.Suite+":"+a.Key,
		len(a.Boots), orDefault(a.Stat, "value"))
	if a.HasP99 {
		title += fmt.Sprintf("; worst p99 %s", formatNumber(a.P99))
	}
	return fmt.Sprintf(`<a class="fig" href="provenance.html#%s" title="%s">%s</a>`,
		anchorOf(a), html.EscapeString(title), html.EscapeString(text))
}

func (b *book) logLink(file string, line int, text string) string {
	return fmt.Sprintf(`<a class="logref" href="%s#L%d"><code>%s</code></a>`,
		b.logPage(file), line, html.EscapeString(text))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// table renders figures of one suite as rows, each with a plot of its boots.
func (b *book) table(suite string, keys []string) (use, error) {
	var rows strings.Builder
	var aggs []*figlog.Aggregate
	for _, key := range keys {
		a, err := b.suiteFigure(suite, key)
		if err != nil {
			return use{}, err
		}
		aggs = append(aggs, a)
		p99, base, rat := "", "", ""
		if a.HasP99 {
			p99 = formatNumber(a.P99)
		}
		if a.Primary.Fields["baseline"] != "" {
			c, err := b.baseline(a)
			if err != nil {
				return use{}, err
			}
			aggs = append(aggs, c)
			base = b.figureLink(c, c.Key+" "+formatValue(c, c.Value))
			if rat, err = ratio(a, c); err != nil {
				return use{}, err
			}
		}
		fmt.Fprintf(&rows, "<tr><td><code>%s</code></td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(a.Key), b.figureLink(a, formatValue(a, a.Value)+" "+a.Unit),
			p99, len(a.Boots), base, rat, plotSVG(a, 120, 18, false))
	}
	out := "<table class=\"figures\">\n<thead><tr><th>figure</th><th>median</th><th>worst p99</th><th>boots</th><th>Linux baseline</th><th>ratio</th><th>boots plotted</th></tr></thead>\n<tbody>\n" +
		rows.String() + "</tbody>\n</table>"
	return use{aggs: aggs, text: strings.Join(keys, ","), out: out}, nil
}
