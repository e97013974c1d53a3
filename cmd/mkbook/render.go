package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"endovisor/internal/figlog"
)

//go:embed site/page.html
var pageTemplate string

//go:embed site/style.css
var styleCSS string

//go:embed site/book.js
var bookJS []byte

//go:embed site/favicon.svg
var favicon string

// notFound is the page a server shows for a page the site does not have.
const notFound = `<h1 id="not-found">No such page</h1>
<p>The book has no page at this address: it may have been renamed. Search the book (<kbd>S</kbd>), or start from <a href="index.html">its first chapter</a> or <a href="print.html">the whole book on one page</a>.</p>`

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM,
		highlighting.NewHighlighting(
			highlighting.WithStyle("github"),
			highlighting.WithFormatOptions(chromahtml.WithClasses(true)))),
	// No raw HTML and no dangerous link passes: chapters are input too,
	// and what placeholders print is spliced in after rendering.
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithAttribute()),
)

type section struct {
	ID, Title string
}

type pageData struct {
	Title    string
	Chapter  *chapter // nil for the print and provenance pages
	Chapters []*chapter
	Content  template.HTML
	Kind     string // chapter, print, provenance, log, source, sources, missing
	Up       string // the way from the page to the site's top: "" or "../"
	Code     bool   // the page has highlighted code, and loads code.css
}

var pageTpl = template.Must(template.New("page").Parse(pageTemplate))

var headingRE = regexp.MustCompile(`<h([1-4]) id="([^"]+)">(.*?)</h[1-4]>`)

// anchorHeadings gives every heading a link to itself and returns the
// second-level ones for the page's own table of contents.
func anchorHeadings(body string) (string, []section) {
	var secs []section
	out := headingRE.ReplaceAllStringFunc(body, func(h string) string {
		m := headingRE.FindStringSubmatch(h)
		if m[1] == "2" {
			secs = append(secs, section{ID: m[2], Title: stripTags(m[3])})
		}
		return fmt.Sprintf(`<h%s id="%s">%s <a class="anchor" href="#%s" aria-label="link to this section">#</a></h%s>`,
			m[1], m[2], m[3], m[2], m[1])
	})
	return out, secs
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func stripTags(s string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(s, ""))
}

// chapterHTML renders a chapter's Markdown; its headings' ids are prefixed
// when the chapter shares a page with others (the print view).  A chapter
// page gets its own table of contents, after its title.
func chapterHTML(ch *chapter, prefix string) (string, []section, error) {
	var body bytes.Buffer
	if err := md.Convert([]byte(ch.body), &body); err != nil {
		return "", nil, fmt.Errorf("%s: %w", ch.src, err)
	}
	s, err := ch.fill(body.String())
	if err != nil {
		return "", nil, err
	}
	if prefix != "" {
		s = strings.ReplaceAll(s, ` id="`, ` id="`+prefix)
		s = strings.ReplaceAll(s, ` href="#`, ` href="#`+prefix)
	}
	out, secs := anchorHeadings(s)
	if prefix == "" && len(secs) > 0 {
		var toc strings.Builder
		toc.WriteString("\n<nav class=\"toc\" aria-label=\"In this chapter\"><p>In this chapter</p><ul>")
		for _, sec := range secs {
			fmt.Fprintf(&toc, "<li><a href=\"#%s\">%s</a></li>", sec.ID, html.EscapeString(sec.Title))
		}
		toc.WriteString("</ul></nav>")
		if i := strings.Index(out, "</h1>"); i >= 0 {
			out = out[:i+5] + toc.String() + out[i+5:]
		}
	}
	return out, secs, nil
}

func (b *book) writeSite(dir string) error {
	write := func(name string, d pageData) error {
		d.Code = strings.Contains(string(d.Content), `class="chroma"`)
		var page bytes.Buffer
		if err := pageTpl.Execute(&page, d); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name), page.Bytes(), 0o644)
	}
	var print strings.Builder
	var docs []searchDoc
	cites, said := map[string][]cite{}, map[string]string{}
	srcCites := map[string][]srcCite{}
	for n, ch := range b.chapters {
		body, _, err := chapterHTML(ch, "")
		if err != nil {
			return err
		}
		if err := write(ch.Page, pageData{Title: ch.Title, Chapter: ch, Chapters: b.chapters,
			Content: template.HTML(body), Kind: "chapter"}); err != nil {
			return err
		}
		docs = append(docs, sectionDocs(n, body)...)
		noteCites(cites, said, ch, body)
		noteSources(srcCites, ch, body)
		pbody, _, err := chapterHTML(ch, strings.TrimSuffix(ch.Page, ".html")+"--")
		if err != nil {
			return err
		}
		fmt.Fprintf(&print, "<section class=\"chapter\" id=\"%s\">\n%s</section>\n",
			printID(ch.Page, ""), printChapter(ch, pbody))
	}
	pages := map[string]bool{"provenance.html": true}
	for _, ch := range b.chapters {
		pages[ch.Page] = true
	}
	fmt.Fprintf(&print, "<section class=\"chapter appendix\" id=\"provenance\">\n%s</section>\n", labelTitle(prefixIDs(b.provenance(cites, said), "provenance--"), "Appendix."))
	var front strings.Builder
	b.printFront(&front)
	if err := write("print.html", pageData{Title: "The whole book", Chapters: b.chapters,
		Content: template.HTML(front.String() + printLinks(print.String(), pages)), Kind: "print"}); err != nil {
		return err
	}
	if err := write("provenance.html", pageData{Title: "Where every figure comes from",
		Chapters: b.chapters, Content: template.HTML(b.provenance(cites, said)), Kind: "provenance"}); err != nil {
		return err
	}
	if err := write("404.html", pageData{Title: "No such page", Chapters: b.chapters, Kind: "missing",
		Content: template.HTML(notFound)}); err != nil {
		return err
	}
	// The front page is the first chapter.
	first, err := os.ReadFile(filepath.Join(dir, b.chapters[0].Page))
	if err != nil {
		return err
	}
	var figs bytes.Buffer
	b.printFigures(&figs)
	ix := b.index
	index, err := searchIndex(b.chapters, docs, ix)
	if err != nil {
		return err
	}
	code, err := chromaCSS()
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"code.css":       []byte(code),
		"index.html":     first,
		"style.css":      []byte(styleCSS),
		"book.js":        bookJS,
		"searchindex.js": index,
		"figures.txt":    figs.Bytes(),
		"favicon.svg":    []byte(favicon),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	if err := b.writeSources(dir, srcCites); err != nil {
		return err
	}
	if err := b.writeSourceIndex(dir, srcCites); err != nil {
		return err
	}
	return b.writeLogs(dir)
}

// chromaCSS is the code highlighting's style sheet, a light and a dark
// one, loaded only by pages with code; the dark one is for screens only,
// since paper is light.  A style chroma lacks fails the build, rather than
// falling back to one whose colours were not chosen for the theme.
func chromaCSS() (string, error) {
	var light, dark bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	for _, st := range []struct {
		name string
		w    *bytes.Buffer
	}{{"github", &light}, {"github-dark", &dark}} {
		style, ok := styles.Registry[st.name]
		if !ok {
			return "", fmt.Errorf("chroma has no style %q", st.name)
		}
		if err := f.WriteCSS(st.w, style); err != nil {
			return "", err
		}
	}
	d := strings.ReplaceAll(dark.String(), ".chroma", `[data-theme="dark"] .chroma`)
	d = strings.ReplaceAll(d, ".bg ", `[data-theme="dark"] .bg `)
	return "/* code: github, and github-dark under the dark theme on screen */\n" + light.String() +
		// What the light style colours and the dark one does not must not leak through.
		"@media screen {\n[data-theme=\"dark\"] .chroma span { color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; }\n" + d + "}\n", nil
}

// provenance lists every figure the book uses: what was aggregated, the
// boots, and the log line of each.
func (b *book) provenance(cites map[string][]cite, said map[string]string) string {
	var keys []string
	for k := range b.figs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s strings.Builder
	s.WriteString("<h1 id=\"provenance\">Where every figure comes from</h1>\n")
	s.WriteString("<p>Each figure of the book is aggregated over its boots by its own statistic, with the worst 99th percentile any boot reported beside it. A boot's median, minimum or mean, a derived figure and a sum of time (stolen time) go to the <em>median</em> over boots. A boot's maximum goes to the <em>maximum</em> over boots, and so does a count of something that should not happen, so that one bad boot shows: a count or sum whose unit, or the last word of whose key, is faults, failures, drops, dropped or failed. A ratio or difference of two figures of one suite is computed in each boot from that boot's two values, and the book prints the median of those; one of figures of two suites, whose boots are not paired, is of their aggregates, and says so. Below, every figure and every ratio the chapters use, with the rule it got, the value of each boot and the log line it was read from. In the plots, a dot is a boot's value, a line runs from it to that boot's 99th percentile, and the upright tick is the figure.</p>\n")
	s.WriteString(figureIndex(keys, func(k string) (string, string) { return b.figs[k].Suite, b.figs[k].Key }))
	for _, k := range keys {
		a := b.figs[k]
		words := ""
		if w := said[k]; w != "" {
			words = html.EscapeString(w) + " "
		}
		fmt.Fprintf(&s, "<section class=\"figure\" id=\"%s\">\n<h2>%s<code class=\"key\">%s:%s</code></h2>\n%s", k, words, html.EscapeString(a.Suite), html.EscapeString(a.Key), citedIn(cites[k]))
		fmt.Fprintf(&s, "<p><strong>%s %s</strong>, %s of %d boot(s), each boot's value its %s",
			formatValue(a, a.Value), html.EscapeString(a.Unit), html.EscapeString(a.Rule.String()), len(a.Boots), html.EscapeString(orDefault(a.Stat, "value")))
		if a.HasP99 {
			fmt.Fprintf(&s, "; worst 99th percentile %s", formatNumber(a.P99))
		}
		if base := a.Primary.Fields["baseline"]; base != "" {
			c, ok := b.figs[anchorOf(&figlog.Aggregate{Suite: a.Suite, Key: base})]
			if ok {
				if d, err := b.derive("ratio", a, c); err == nil {
					fmt.Fprintf(&s, "; its Linux baseline is <a href=\"#%s\">%s</a>, %s %s, and the ratio <a href=\"#%s\">%s</a>",
						anchorOf(c), html.EscapeString(base), formatValue(c, c.Value), html.EscapeString(c.Unit),
						html.EscapeString(derivedAnchor(d)), b.derivedText(d))
				}
			}
		}
		if a.Terms != nil {
			b.sumEntry(&s, a)
			continue
		}
		fmt.Fprintf(&s, ".</p>\n%s\n<table>\n<thead><tr><th>boot</th><th>value</th><th>p99</th><th>samples</th><th>log line</th></tr></thead>\n<tbody>\n", plotSVG(a, 320, 40, true))
		for i, f := range a.Boots {
			v, _ := f.Value("value")
			p99 := ""
			if p, ok := f.Value("p99"); ok {
				p99 = formatNumber(p)
			}
			samples := f.Fields["n"]
			if samples == "" {
				samples = f.Fields["samples"]
			}
			if samples == "" && f.Fields["rounds"] != "" {
				samples = f.Fields["rounds"] + " rounds of " + f.Fields["calls"]
			}
			fmt.Fprintf(&s, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				i+1, formatValue(a, v), p99, html.EscapeString(samples),
				b.logLink(f.File, f.Line, fmt.Sprintf("%s:%d", b.rel(f.File), f.Line)))
		}
		s.WriteString("</tbody>\n</table>\n</section>\n")
	}
	var dkeys []string
	for k := range b.derivs {
		dkeys = append(dkeys, k)
	}
	sort.Strings(dkeys)
	for _, k := range dkeys {
		b.derivedEntry(&s, b.derivs[k], cites, said)
	}
	b.claimsEntry(&s)
	return s.String()
}

var (
	hrefRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	idRE   = regexp.MustCompile(` id="([^"]+)"`)
)

// checkLinks fails if any page of the site links to a page or an anchor
// the site does not have.
func checkLinks(dir string) error {
	pages := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".html") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			pages[filepath.ToSlash(rel)] = string(data)
		}
		return err
	})
	if err != nil {
		return err
	}
	ids := map[string]map[string]bool{}
	var names []string
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	// Two elements of a page with one id: a link lands on the first.
	for _, name := range names {
		ids[name] = map[string]bool{}
		for _, m := range idRE.FindAllStringSubmatch(pages[name], -1) {
			if ids[name][m[1]] {
				return fmt.Errorf("site: %s has two elements with the id %q: rename a heading", name, m[1])
			}
			ids[name][m[1]] = true
		}
	}
	// Whether each file linked to exists, asked of the disk once: a
	// source page links to each of its own lines.
	exists := map[string]bool{}
	for _, name := range names {
		for _, m := range hrefRE.FindAllStringSubmatch(pages[name], -1) {
			target := html.UnescapeString(m[1])
			if target == "" {
				continue
			}
			if u, err := url.Parse(target); err != nil || u.Scheme != "" || u.Host != "" {
				if err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto") {
					continue
				}
				return fmt.Errorf("site: %s links to %q: a link leaves the site only by http, https or mailto", name, target)
			}
			file, anchor, _ := strings.Cut(target, "#")
			file, _, _ = strings.Cut(file, "?")
			if file == "" {
				file = name
			} else {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
			}
			if file == ".." || strings.HasPrefix(file, "../") || filepath.IsAbs(file) {
				return fmt.Errorf("site: %s links to %s, outside the site", name, target)
			}
			there, asked := exists[file]
			if !asked {
				_, err := os.Stat(filepath.Join(dir, file))
				there = err == nil
				exists[file] = there
			}
			if !there {
				return fmt.Errorf("site: %s links to %s, which the site does not have", name, target)
			}
			if anchor != "" && strings.HasSuffix(file, ".html") && !ids[file][anchor] {
				return fmt.Errorf("site: %s links to %s, but %s has no anchor %s", name, target, file, anchor)
			}
		}
	}
	return nil
}

// linesHole marks, in a page's content, where writeLines writes its lines.
const linesHole = "<!--the lines-->"

// writeLines writes a page of many lines, a log's or a source file's: the
// frame of every page around them, and the lines streamed into the frame
// at linesHole, so that the page is never held whole.
func writeLines(page string, d pageData, lines func(w io.Writer) error) error {
	var frame strings.Builder
	if err := pageTpl.Execute(&frame, d); err != nil {
		return err
	}
	head, tail, ok := strings.Cut(frame.String(), linesHole)
	if !ok {
		return fmt.Errorf("%s: the page's content has no place for its lines", page)
	}
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		return err
	}
	f, err := os.Create(page)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	w.WriteString(head)
	if err := lines(w); err != nil {
		return err
	}
	w.WriteString(tail)
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// sumEntry ends a sum's provenance entry: a link to each term, and each
// boot's terms and their sum.
func (b *book) sumEntry(s *strings.Builder, a *figlog.Aggregate) {
	var links []string
	head := "<th>boot</th>"
	for _, t := range a.Terms {
		links = append(links, fmt.Sprintf("<a href=\"#%s\">%s:%s</a>", html.EscapeString(anchorOf(t)), html.EscapeString(t.Suite), html.EscapeString(t.Key)))
		head += "<th>" + html.EscapeString(t.Key) + "</th>"
	}
	fmt.Fprintf(s, ": %s.</p>\n%s\n<table>\n<thead><tr>%s<th>sum</th></tr></thead>\n<tbody>\n",
		strings.Join(links, " + "), plotSVG(a, 320, 40, true), head)
	for i, v := range a.Values {
		fmt.Fprintf(s, "<tr><td>%d</td>", i+1)
		for _, t := range a.Terms {
			fmt.Fprintf(s, "<td>%s</td>", formatValue(t, t.Values[i]))
		}
		fmt.Fprintf(s, "<td>%s</td></tr>\n", formatValue(a, v))
	}
	s.WriteString("</tbody>\n</table>\n</section>\n")
}
