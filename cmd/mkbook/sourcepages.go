package main

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// The sources' pages: every file of the definition index gets a page,
// src/PATH.html, highlighted, each line an anchor (#L42), in the frame of
// the chapters, with the sections that show it (listings) or name it
// (code names, paths) at its head.

// srcCite is a section of a chapter that shows or names a file.
type srcCite struct {
	cite
	listing bool
}

var srcLinkRE = regexp.MustCompile(`<h[1-4] id="([^"]+)">(.*?)</h[1-4]>|<a class="(listing-src|code|path)" href="src/([^"?#]+)\.html`)

// srcPage is the page of a source file, from the site's top.
func srcPage(file string) string {
	return "src/" + file + ".html"
}

// noteSources records, for every source file a rendered chapter links to,
// the sections that show or name it, once a section each.
func noteSources(cites map[string][]srcCite, ch *chapter, body string) {
	at := cite{Page: ch.Page, Title: ch.Title}
	type fileCite struct {
		file string
		c    srcCite
	}
	noted := map[fileCite]bool{} // this chapter's, which no other's equals
	for _, m := range srcLinkRE.FindAllStringSubmatch(body, -1) {
		if m[1] != "" {
			at = cite{Page: ch.Page, Anchor: m[1], Title: ch.Title}
			if t := strings.TrimSpace(strings.TrimSuffix(stripTags(m[2]), "#")); t != ch.Title {
				at.Title += " › " + t
			}
			continue
		}
		c := srcCite{cite: at, listing: m[3] == "listing-src"}
		file := html.UnescapeString(m[4])
		if !noted[fileCite{file, c}] {
			noted[fileCite{file, c}] = true
			cites[file] = append(cites[file], c)
		}
	}
}

// citedSources is the head of a source page: the sections that show the
// file, and those that name it.
func citedSources(cs []srcCite, up string) string {
	var s strings.Builder
	for _, listing := range []bool{true, false} {
		var links []string
		for _, c := range cs {
			if c.listing != listing {
				continue
			}
			href := up + c.Page
			if c.Anchor != "" {
				href += "#" + c.Anchor
			}
			links = append(links, fmt.Sprintf("<a href=\"%s\">%s</a>", html.EscapeString(href), html.EscapeString(c.Title)))
		}
		if len(links) == 0 {
			continue
		}
		what := "Named in "
		if listing {
			what = "Shown in "
		}
		s.WriteString("<p class=\"cited\">" + what + strings.Join(links, ", ") + ".</p>\n")
	}
	if s.Len() == 0 {
		s.WriteString("<p class=\"cited\">No chapter shows or names this file.</p>\n")
	}
	return s.String()
}

// writeSources writes the page of every source file.
func (b *book) writeSources(dir string, cites map[string][]srcCite) error {
	ix := b.index
	for _, p := range ix.Paths {
		if err := b.writeSource(dir, p, cites[p]); err != nil {
			return err
		}
	}
	return nil
}

func (b *book) writeSource(dir, file string, cites []srcCite) error {
	up := strings.Repeat("../", strings.Count(srcPage(file), "/"))
	lines := b.highlighted(file)
	head := fmt.Sprintf("<h1 id=\"source\">%s</h1>\n<p class=\"srcinfo\">%d lines · <a href=\"%ssrc/index.html\">all the sources</a></p>\n%s<pre class=\"chroma source\"><code>%s</code></pre>",
		html.EscapeString(file), len(lines), up, citedSources(cites, up), linesHole)
	d := pageData{Title: file, Chapters: b.chapters, Kind: "source", Up: up, Content: template.HTML(head), Code: true}
	return writeLines(filepath.Join(dir, filepath.FromSlash(srcPage(file))), d, func(w io.Writer) error {
		width := len(fmt.Sprint(len(lines)))
		for i, l := range lines {
			if _, err := fmt.Fprintf(w, "<span class=\"line\" id=\"L%d\"><a class=\"ln\" href=\"#L%d\">%*d</a> %s\n</span>", i+1, i+1, width, i+1, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeSourceIndex writes src/index.html: every source file, by group,
// each with its lines and the chapters that cite it.
func (b *book) writeSourceIndex(dir string, cites map[string][]srcCite) error {
	ix := b.index
	var s strings.Builder
	s.WriteString("<h1 id=\"sources\">The sources</h1>\n")
	s.WriteString("<p>Every source file of the prototype and its tools, with the chapters that show or name it. Each page has the file highlighted, a link to each line, and the sections that cite it.</p>\n")
	for _, g := range b.srcGroups {
		fmt.Fprintf(&s, "<h2 id=\"%s\">%s</h2>\n", html.EscapeString(g.id), html.EscapeString(g.title))
		for _, d := range g.dirs {
			fmt.Fprintf(&s, "<section class=\"srcdir\" id=\"%s\">\n<h3><code>%s</code></h3>\n", html.EscapeString(dirID(d.path)), html.EscapeString(d.path))
			if d.about != "" {
				fmt.Fprintf(&s, "<p>%s</p>\n", codeHTML(d.about))
			}
			s.WriteString("<table class=\"srcfiles\">\n<thead><tr><th>file</th><th>lines</th><th>chapters</th></tr></thead>\n<tbody>\n")
			for _, f := range d.files {
				name := strings.TrimPrefix(f, d.path)
				if name == "" {
					name = path.Base(f)
				}
				fmt.Fprintf(&s, "<tr><td><a href=\"%s\"><code>%s</code></a></td><td>%d</td><td>%s</td></tr>\n",
					html.EscapeString(strings.TrimPrefix(srcPage(f), "src/")), html.EscapeString(name),
					len(ix.Files[f].Lines), b.chapterLinks(cites[f], "../"))
			}
			s.WriteString("</tbody>\n</table>\n</section>\n")
		}
	}
	page := filepath.Join(dir, "src", "index.html")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		return err
	}
	var out strings.Builder
	if err := pageTpl.Execute(&out, pageData{Title: "The sources", Chapters: b.chapters, Kind: "sources", Up: "../",
		Content: template.HTML(s.String())}); err != nil {
		return err
	}
	return os.WriteFile(page, []byte(out.String()), 0o644)
}

// chapterLinks is a link to each chapter that cites a file, once each.
func (b *book) chapterLinks(cs []srcCite, up string) string {
	var links []string
	seen := map[string]bool{}
	for _, ch := range b.chapters {
		for _, c := range cs {
			if c.Page == ch.Page && !seen[ch.Page] {
				seen[ch.Page] = true
				links = append(links, fmt.Sprintf("<a href=\"%s%s\" title=\"%s\">%d</a>", up, html.EscapeString(ch.Page), html.EscapeString(ch.Title), ch.Number))
			}
		}
	}
	return strings.Join(links, ", ")
}

// dirID is a directory's anchor on the source index.
func dirID(dir string) string {
	return "d-" + strings.Trim(strings.NewReplacer("/", "-", ".", "-").Replace(dir), "-")
}

var backticked = regexp.MustCompile("`([^`]+)`")

// codeHTML escapes a description and sets its `code` as code.
func codeHTML(s string) string {
	return backticked.ReplaceAllString(html.EscapeString(s), "<code>$1</code>")
}
