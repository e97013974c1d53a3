package main

import (
	"fmt"
	"html"
	"strings"

	"endovisor/internal/figlog"
)

// A ratio or a difference of two figures, as {{ratio}}, {{diff}}, a
// figure's ratio to its baseline, a table's ratio column and a claim all
// print it: computed per boot where the figures are of one suite
// (figlog.Derived), with an entry of its own on the provenance page that
// lists each boot's.

// derived resolves {{ratio A B}} or {{diff A B}}'s two names.
func (b *book) derived(op, nameA, nameB string) (*figlog.Derived, error) {
	a, err := b.figure(nameA)
	if err != nil {
		return nil, err
	}
	c, err := b.figure(nameB)
	if err != nil {
		return nil, err
	}
	return b.derive(op, a, c)
}

func (b *book) derive(op string, a, c *figlog.Aggregate) (*figlog.Derived, error) {
	var d *figlog.Derived
	var err error
	if op == "ratio" {
		d, err = figlog.Ratio(a, c)
	} else {
		d, err = figlog.Diff(a, c)
	}
	if err != nil {
		return nil, err
	}
	if old, ok := b.derivs[derivedAnchor(d)]; ok {
		return old, nil
	}
	b.derivs[derivedAnchor(d)] = d
	return d, nil
}

// derivedAnchor names a ratio's or a difference's provenance entry; a key
// has no slash, so no two share one.
func derivedAnchor(d *figlog.Derived) string {
	return d.Op + "-" + d.A.Suite + ":" + d.A.Key + "/" + d.B.Suite + ":" + d.B.Key
}

// derivedValue prints a value of d, "2.5×" or "-3.25 ms": a difference is
// as precise as the more precise of the two figures.
func derivedValue(d *figlog.Derived, v float64) string {
	if d.Op == "ratio" {
		return formatRatio(v) + "×"
	}
	return formatAt(v, max(d.A.Decimals, d.B.Decimals)) + " " + d.A.Unit
}

func (b *book) derivedText(d *figlog.Derived) string { return derivedValue(d, d.Value) }

// derivedRule says how d's value was made.
func derivedRule(d *figlog.Derived) string {
	what := map[string]string{"ratio": "ratio", "diff": "difference"}[d.Op]
	if d.Across {
		return fmt.Sprintf("the %s of the two figures' aggregates: they are of two suites, %s and %s, whose boots are not paired",
			what, d.A.Suite, d.B.Suite)
	}
	return fmt.Sprintf("the median over %d boot(s) of each boot's %s, from that boot's two values", len(d.PerBoot), what)
}

// derivedLink links a ratio or a difference to its provenance entry,
// which links to each of its two figures; the title names both, with
// their values.
func (b *book) derivedLink(d *figlog.Derived, text string) string {
	of := map[string]string{"ratio": "over", "diff": "less"}[d.Op]
	title := fmt.Sprintf("%s %s:%s, %s %s, %s %s:%s, %s %s: %s; the link shows both figures",
		d.Op, d.A.Suite, d.A.Key, formatValue(d.A, d.A.Value), d.A.Unit, of,
		d.B.Suite, d.B.Key, formatValue(d.B, d.B.Value), d.B.Unit, derivedRule(d))
	return fmt.Sprintf(`<a class="fig" href="provenance.html#%s" title="%s">%s</a>`,
		derivedAnchor(d), html.EscapeString(title), html.EscapeString(text))
}

// derivedEntry is d's section of the provenance page: the words it was
// cited with, the sections that cite it, and a link to each figure.
func (b *book) derivedEntry(s *strings.Builder, d *figlog.Derived, cites map[string][]cite, said map[string]string) {
	sym := map[string]string{"ratio": " / ", "diff": " − "}[d.Op]
	k := derivedAnchor(d)
	words := ""
	if w := said[k]; w != "" {
		words = html.EscapeString(w) + " "
	}
	fmt.Fprintf(s, "<section class=\"figure\" id=\"%s\">\n<h2>%s<code class=\"key\">%s:%s%s%s:%s</code></h2>\n%s", html.EscapeString(k), words,
		html.EscapeString(d.A.Suite), html.EscapeString(d.A.Key), sym, html.EscapeString(d.B.Suite), html.EscapeString(d.B.Key), citedIn(cites[k]))
	figure := func(a *figlog.Aggregate) string {
		return fmt.Sprintf("<a href=\"#%s\">%s:%s</a>, %s %s", html.EscapeString(anchorOf(a)), html.EscapeString(a.Suite),
			html.EscapeString(a.Key), formatValue(a, a.Value), html.EscapeString(a.Unit))
	}
	fmt.Fprintf(s, "<p><strong>%s</strong>, %s, of %s, and %s.</p>\n",
		html.EscapeString(b.derivedText(d)), html.EscapeString(derivedRule(d)), figure(d.A), figure(d.B))
	if d.Across {
		s.WriteString("</section>\n")
		return
	}
	s.WriteString("<table>\n<thead><tr><th>boot</th><th>" + html.EscapeString(d.A.Key) + "</th><th>" +
		html.EscapeString(d.B.Key) + "</th><th>" + d.Op + "</th></tr></thead>\n<tbody>\n")
	for i, v := range d.PerBoot {
		fmt.Fprintf(s, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", i+1,
			formatValue(d.A, d.A.Values[i]), formatValue(d.B, d.B.Values[i]), html.EscapeString(derivedValue(d, v)))
	}
	s.WriteString("</tbody>\n</table>\n</section>\n")
}
