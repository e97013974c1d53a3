package main

import (
	"errors"
	"fmt"
	"html"
	"slices"
	"sort"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
)

// Placeholders, written in chapter sources between {{ and }} on one line:
//
//	{{fig SUITE:KEY}}          the figure with its unit: "36.2 cycles"
//	{{fig SUITE:KEY FIELD}}    one part of it: value (the bare number), p99,
//	                           boots, or ratio (to the Linux baseline its log names)
//	{{log SUITE:KEY}}          the log file and line the figure came from
//	{{logfile PATH:LINE}}      a line of any log, which must exist
//	{{ratio SUITE:A SUITE:B}}  A's value over B's: "2.5×"; of one suite, the
//	                           median of each boot's A over that boot's B
//	{{diff SUITE:A SUITE:B}}   A's value less B's, with the unit, likewise;
//	                           with range after either, the least and the
//	                           most of the boots' own: "0.94–1.74×"
//	{{run SUITE FIELD}}        a field of the suite's EVRUN header: accel, cpu, ...
//	{{table SUITE KEY...}}     a table of those figures of one suite: median,
//	                           worst p99, boots, baseline, ratio, and a plot of
//	                           the boots; alone on its line
//	{{quote SUITE TEXT}}       every line of the suite's first log that holds
//	                           TEXT, each linked to its place; alone on its line
//	{{claim ...}}              a claim the sentence makes of the figures,
//	                           checked against the logs (claim.go)
//	{{code PATH SYMBOL ...}}   a listing of the source: a symbol's definition
//	                           or a region, with its line numbers; alone on
//	                           its line (listing.go)
//	{{diagram NAME CAPTION}}   book/src/diagrams/NAME.svg, checked and inlined
//	                           as a numbered figure; alone on its line (diagram.go)
//	{{const NAME}}             a constant's value, evaluated from the code:
//	                           "2,000", "eight" with word, "4 MiB" (const.go)
//	{{services HEADER}}        the service table, generated from the list's
//	                           EV_SERVICE lines; alone on its line (services.go)
//	{{scaling SUITE SIZE=KEY...}}
//	                           a plot of figures against the sizes of work
//	                           they were measured at, with their Linux
//	                           baselines beside (scaling.go); alone on its line
//	{{record PATH TEXT}}       the lines of a committed record of a long run
//	                           that hold TEXT (record.go); alone on its line
//
// SUITE names the logs: SUITE.log, or SUITE-1.log ... for several boots.
// Every figure a placeholder prints links to its provenance: the page that
// lists each boot's value and log line, with the plot.
//
// A placeholder in inline code or a code block prints its plain text
// there; \{{ writes a literal {{, in prose and in code.  What a
// placeholder prints never passes through Markdown (splice.go), and what
// it may read of the logs is bounded (logs.go).

// expand resolves every placeholder of a chapter, and its code names and
// chapter numbers (codenames.go), and returns its Markdown with each
// placeholder replaced and each name marked (splice.go).
func (b *book) expand(ch *chapter) (string, error) {
	s := ch.source
	b.cur = ch
	if err := conflictMarkers(ch); err != nil {
		return "", err
	}
	var edits []edit
	for _, m := range s.marks {
		at := fmt.Sprintf("%s:%d", ch.src, s.line(m.start))
		ph := s.text[m.start:m.stop]
		switch {
		case m.literal && s.where(m.start, m.stop) == "prose":
			continue // Markdown drops the backslash
		case m.literal:
			edits = append(edits, edit{m.start, m.stop, "{{"}) // code shows it as written
			continue
		case m.unclosed:
			return "", fmt.Errorf("%s: unclosed placeholder %q", at, strings.TrimRight(ph, "\r\n"))
		}
		var k placeholderKind
		words := strings.Fields(ph[2 : len(ph)-2])
		if len(words) > 0 {
			k = kinds[words[0]]
		}
		block := k != nil && k.block()
		if block && !m.alone {
			return "", fmt.Errorf("%s: %s: a %s must stand alone on its line", at, ph, words[0])
		}
		u, err := b.placeholder(ph[2 : len(ph)-2])
		if errors.Is(err, errPredates) {
			continue // a stored run's margins: this run cannot judge it
		}
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", at, ph, err)
		}
		u.at, u.ph = at, ph
		if u.claim != nil && s.where(m.start, m.stop) != "prose" {
			return "", fmt.Errorf("%s: %s: a claim belongs to a sentence of prose, not to code", at, ph)
		}
		repl, err := ch.splice(s.where(m.start, m.stop), u, block)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", at, ph, err)
		}
		edits = append(edits, edit{m.start, m.stop, repl})
		ch.refs = append(ch.refs, u.refs...)
		switch {
		case u.claim != nil:
			ch.claims = append(ch.claims, u)
		case len(u.aggs) > 0:
			ch.figs = append(ch.figs, u)
		}
	}
	names, err := b.linkNames(ch)
	if err != nil {
		return "", err
	}
	edits = append(edits, names...)
	if err := b.checkRetired(ch); err != nil {
		return "", err
	}
	if err := b.checkEveryBoot(ch); err != nil {
		return "", err
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out strings.Builder
	last := 0
	for _, e := range edits {
		out.WriteString(s.text[last:e.start])
		out.WriteString(e.text)
		last = e.stop
	}
	out.WriteString(s.text[last:])
	return out.String(), nil
}

// conflictMarkers refuses a chapter that still holds a merge's conflict
// markers in its prose: Markdown would print them as text, and both sides
// of the conflict with them.
func conflictMarkers(ch *chapter) error {
	s := ch.source
	for off := 0; off < len(s.text); {
		line, _, _ := strings.Cut(s.text[off:], "\n")
		if (strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ")) &&
			s.where(off, off+len(line)) == "prose" {
			return fmt.Errorf("%s:%d: a merge conflict's marker: resolve the conflict", ch.src, s.line(off))
		}
		off += len(line) + 1
	}
	return nil
}

// A kind of placeholder is a type of its own, named by the placeholder's
// first word: it parses its words, evaluates them against the logs and the
// sources, and says what the page shows.  A new kind is a new type in
// kinds, not a branch here.
type placeholderKind interface {
	usage() string                               // what the placeholder looks like
	block() bool                                 // stands alone on its line, as a paragraph of its own
	resolve(b *book, args []string) (use, error) // args: the words after the kind
	// suites names the suites whose logs the placeholder reads, so that
	// a build can run those that have none yet (run.go); it reads only
	// the words, and need not check them.
	suites(c config, args []string) []string
}

// suitesNamed is the suite of each SUITE:KEY among words.
func suitesNamed(words []string) []string {
	var out []string
	for _, w := range words {
		if s, _, ok := strings.Cut(w, ":"); ok {
			out = append(out, s)
		}
	}
	return out
}

// firstSuite is the suite a placeholder names by its first word.
func firstSuite(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return args[:1]
}

var kinds = map[string]placeholderKind{
	"fig":      figKind{},
	"log":      logKind{},
	"logfile":  logfileKind{},
	"ratio":    compareKind{op: "ratio"},
	"diff":     compareKind{op: "diff"},
	"run":      runKind{},
	"table":    tableKind{},
	"quote":    quoteKind{},
	"claim":    claimKind{},
	"code":     codeKind{},
	"diagram":  diagramKind{},
	"const":    constKind{},
	"chapter":  chapterKind{},
	"services": servicesKind{},
	"syscalls": syscallsKind{},
	"scaling":  scalingKind{},
	"record":   recordKind{},
}

// rawKind is a kind whose arguments are not words: a listing's regexps
// may hold spaces.  It is given the placeholder's text after its name.
type rawKind interface {
	resolveRaw(b *book, raw string) (use, error)
}

func (b *book) placeholder(inner string) (use, error) {
	words := strings.Fields(inner)
	if len(words) == 0 {
		return use{}, fmt.Errorf("empty placeholder")
	}
	k, ok := kinds[words[0]]
	if !ok {
		var names []string
		for n := range kinds {
			names = append(names, n)
		}
		sort.Strings(names)
		return use{}, fmt.Errorf("unknown placeholder %q (want one of %s)", words[0], strings.Join(names, ", "))
	}
	// A stored run kept before a suite it reads was written cannot judge it.
	for _, s := range k.suites(b.c, words[1:]) {
		if b.c.predates[s] {
			return use{}, fmt.Errorf("suite %s: %w", s, errPredates)
		}
	}
	if r, ok := k.(rawKind); ok {
		rest := strings.TrimLeft(inner, " \t")
		return r.resolveRaw(b, strings.TrimSpace(rest[len(words[0]):]))
	}
	return k.resolve(b, words[1:])
}

type figKind struct{}

func (figKind) usage() string                           { return "{{fig SUITE:KEY [FIELD]}}" }
func (figKind) block() bool                             { return false }
func (figKind) suites(_ config, args []string) []string { return suitesNamed(args) }
func (k figKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 1 || len(args) > 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	a, err := b.figure(args[0])
	if err != nil {
		return use{}, err
	}
	field := "with-unit"
	if len(args) == 2 {
		field = args[1]
	}
	return b.figureText(a, field)
}

type logKind struct{}

func (logKind) usage() string                           { return "{{log SUITE:KEY}}" }
func (logKind) block() bool                             { return false }
func (logKind) suites(_ config, args []string) []string { return suitesNamed(args) }
func (k logKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 1 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	a, err := b.figure(args[0])
	if err != nil {
		return use{}, err
	}
	p := a.Primary
	text := fmt.Sprintf("%s:%d", b.rel(p.File), p.Line)
	return use{aggs: []*figlog.Aggregate{a}, text: text, out: b.logLink(p.File, p.Line, text)}, nil
}

type logfileKind struct{}

func (logfileKind) usage() string { return "{{logfile PATH:LINE}}" }
func (logfileKind) block() bool   { return false }

// A log line names a file, and the suite that writes it if it is one of
// the logs directory's own.
func (logfileKind) suites(c config, args []string) []string {
	if len(args) != 1 {
		return nil
	}
	if s := logfileSuite(c, args[0]); s != "" {
		return []string{s}
	}
	return nil
}
func (k logfileKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 1 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	return b.logfile(args[0])
}

type quoteKind struct{}

func (quoteKind) usage() string                           { return "{{quote SUITE TEXT}}" }
func (quoteKind) block() bool                             { return true }
func (quoteKind) suites(_ config, args []string) []string { return firstSuite(args) }
func (k quoteKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	return b.quote(args[0], strings.Join(args[1:], " "))
}

type runKind struct{}

func (runKind) usage() string                           { return "{{run SUITE FIELD}}" }
func (runKind) block() bool                             { return false }
func (runKind) suites(_ config, args []string) []string { return firstSuite(args) }
func (k runKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	s, err := b.suite(args[0])
	if err != nil {
		return use{}, err
	}
	v, ok := s.Logs[0].Run[args[1]]
	if !ok {
		return use{}, fmt.Errorf("the EVRUN header of %s has no field %s", b.rel(s.Logs[0].File), args[1])
	}
	return use{text: v, out: html.EscapeString(v)}, nil
}

type tableKind struct{}

func (tableKind) usage() string                           { return "{{table SUITE KEY...}}" }
func (tableKind) block() bool                             { return true }
func (tableKind) suites(_ config, args []string) []string { return firstSuite(args) }
func (k tableKind) resolve(b *book, args []string) (use, error) {
	if len(args) < 2 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	return b.table(args[0], args[1:])
}

type compareKind struct{ op string }

func (k compareKind) usage() string                         { return "{{" + k.op + " SUITE:A SUITE:B [range]}}" }
func (compareKind) block() bool                             { return false }
func (compareKind) suites(_ config, args []string) []string { return suitesNamed(args) }
func (k compareKind) resolve(b *book, args []string) (use, error) {
	spread := len(args) == 3 && args[2] == "range"
	if len(args) != 2 && !spread {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	d, err := b.derived(k.op, args[0], args[1])
	if err != nil {
		return use{}, err
	}
	text := b.derivedText(d)
	if !spread && wideRatio(d) && !strings.Contains(b.cur.source.text, "{{ratio "+args[0]+" "+args[1]+" range}}") {
		// Boots more than twice apart: the median alone would hide that
		// the next boot may give another answer, so the range goes beside
		// it unless the chapter prints it already.
		text += " (" + derivedRange(d) + " over the boots)"
	}
	if spread {
		// The boots' own values, least to most: where the emulator's
		// two speeds split the boots, the median hides it.
		if d.Across || len(d.PerBoot) == 0 {
			return use{}, fmt.Errorf("range needs each boot's %s, and %s and %s are of two suites", k.op, args[0], args[1])
		}
		text = derivedRange(d)
	}
	return use{aggs: []*figlog.Aggregate{d.A, d.B}, text: text, out: b.derivedLink(d, text)}, nil
}

// derivedRange prints d's boots, least to most: "0.23–3.9×".
func derivedRange(d *figlog.Derived) string {
	lo, hi := slices.Min(d.PerBoot), slices.Max(d.PerBoot)
	return strings.TrimSuffix(derivedValue(d, lo), "×") + "–" + derivedValue(d, hi)
}

// wideRatio says whether a ratio's boots differ by more than wideSpread,
// least to most.
func wideRatio(d *figlog.Derived) bool {
	if d.Op != "ratio" || d.Across || len(d.PerBoot) < 2 {
		return false
	}
	lo, hi := slices.Min(d.PerBoot), slices.Max(d.PerBoot)
	return lo > 0 && hi > wideSpread*lo
}

// wideSpread is how far apart a ratio's boots may be before the book
// prints their range beside its median.
const wideSpread = 2

// figure resolves SUITE:KEY to the figure aggregated over the suite's boots.
func (b *book) figure(name string) (*figlog.Aggregate, error) {
	suite, key, ok := strings.Cut(name, ":")
	if !ok || suite == "" || key == "" {
		return nil, fmt.Errorf("want SUITE:KEY, have %q", name)
	}
	if !strings.Contains(key, "+") {
		return b.suiteFigure(suite, key)
	}
	// SUITE:A+B is the sum of A and B, boot by boot (figlog.Sum).
	var terms []*figlog.Aggregate
	for _, k := range strings.Split(key, "+") {
		t, err := b.suiteFigure(suite, k)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	a, err := figlog.Sum(terms)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if old, ok := b.figs[anchorOf(a)]; ok {
		return old, nil
	}
	b.figs[anchorOf(a)] = a
	return a, nil
}

func (b *book) suiteFigure(suite, key string) (*figlog.Aggregate, error) {
	s, err := b.suite(suite)
	if err != nil {
		return nil, err
	}
	a, err := s.Figure(key)
	if errors.Is(err, figlog.ErrNoFigure) && b.c.runDate != "" {
		// A stored run kept before its suite printed the figure, as one
		// kept before the suite was written, cannot judge what reads it.
		return nil, fmt.Errorf("%v: %w", err, errPredates)
	}
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
		return nil, fmt.Errorf("the baseline of %s: %w", a.Key, err)
	}
	if c.Unit != a.Unit {
		return nil, fmt.Errorf("the baseline %s of %s is in %s, but %s is in %s", name, a.Key, c.Unit, a.Key, a.Unit)
	}
	return c, nil
}

func (b *book) figureText(a *figlog.Aggregate, field string) (use, error) {
	aggs := []*figlog.Aggregate{a}
	var text string
	switch field {
	case "with-unit":
		text = formatValue(a, a.Value) + " " + a.Unit
	case "value":
		text = formatValue(a, a.Value)
	case "p99":
		if !a.HasP99 {
			return use{}, fmt.Errorf("figure %s has no p99", a.Key)
		}
		text = formatNumber(a.P99)
	case "boots":
		text = strconv.Itoa(len(a.Boots))
	case "ratio":
		c, err := b.baseline(a)
		if err != nil {
			return use{}, err
		}
		d, err := b.derive("ratio", a, c)
		if err != nil {
			return use{}, err
		}
		text = b.derivedText(d)
		return use{aggs: append(aggs, c), text: text, out: b.derivedLink(d, text)}, nil
	default:
		return use{}, fmt.Errorf("unknown field %q (want value, p99, boots or ratio)", field)
	}
	return use{aggs: aggs, text: text, out: b.figureLink(a, text)}, nil
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
	title := fmt.Sprintf("%s: %s of %d boot(s) of each boot's %s", a.Suite+":"+a.Key,
		a.Rule.Short(), len(a.Boots), orDefault(a.Stat, "value"))
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
			d, err := b.derive("ratio", a, c)
			if err != nil {
				return use{}, err
			}
			rat = b.derivedLink(d, b.derivedText(d))
		}
		fmt.Fprintf(&rows, "<tr><td><code>%s</code></td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(a.Key), b.figureLink(a, formatValue(a, a.Value)+" "+a.Unit),
			p99, len(a.Boots), base, rat, plotSVG(a, 120, 18, false))
	}
	out := "<table class=\"figures\">\n<thead><tr><th>figure</th><th>median</th><th>worst p99</th><th>boots</th><th>Linux baseline</th><th>ratio</th><th>boots plotted</th></tr></thead>\n<tbody>\n" +
		rows.String() + "</tbody>\n</table>"
	return use{aggs: aggs, text: strings.Join(keys, ","), out: out}, nil
}
