package main

import (
	"fmt"
	"html"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// The print view: the whole book on one page, for paper and PDF.  It has
// a title page (the commit it was built from and the dates of the logs),
// a contents page, chapters numbered as the text calls them, and the
// provenance as an appendix; every link between chapters, or to the
// provenance, is an anchor of the page itself, so that a PDF's links stay
// inside the PDF, and a reference to a log is its path and line.

// printID is the id a page's anchor has on the print page.
func printID(page, anchor string) string {
	p := strings.TrimSuffix(page, ".html")
	if anchor == "" {
		return p
	}
	return p + "--" + anchor
}

var siteHref = regexp.MustCompile(`href="([a-z0-9-]+\.html)(?:#([^"]*))?"`)

// A link to a log's, a record's or a source file's page.
var logLink = regexp.MustCompile(`<a (?:class="[^"]*" )?href="(?:logs|records|src)/[^"]*"[^>]*>(.*?)</a>`)

// printLinks turns links to the site's own pages into links within the
// print page, and a link to a log or a source file into its text, which
// names the file and the line (a PDF would make it an absolute file://
// address).
func printLinks(s string, pages map[string]bool) string {
	s = logLink.ReplaceAllString(s, "$1")
	return siteHref.ReplaceAllStringFunc(s, func(h string) string {
		m := siteHref.FindStringSubmatch(h)
		if !pages[m[1]] {
			return h
		}
		return `href="#` + printID(m[1], m[2]) + `"`
	})
}

// prefixIDs gives a page's ids, and its links to them, the page's prefix.
func prefixIDs(s, prefix string) string {
	s = strings.ReplaceAll(s, ` id="`, ` id="`+prefix)
	return strings.ReplaceAll(s, ` href="#`, ` href="#`+prefix)
}

func (b *book) printFront(body *strings.Builder) {
	commit := "an unknown commit"
	if out, err := exec.Command("git", "-C", b.path("."), "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		commit = "commit " + strings.TrimSpace(string(out))
	}
	var dates []string
	for _, l := range b.logs {
		if d := l.Run["date"]; len(d) >= 10 {
			dates = append(dates, d[:10])
		}
	}
	sort.Strings(dates)
	when := "logs of unknown date"
	if len(dates) > 0 {
		when = "logs of " + dates[0]
		if last := dates[len(dates)-1]; last != dates[0] {
			when += " to " + last
		}
	}
	fmt.Fprintf(body, "<section class=\"titlepage\">\n<h1 id=\"title\">The endovisor</h1>\n<p>Built from %s, with figures from the %s.</p>\n</section>\n",
		html.EscapeString(commit), html.EscapeString(when))
	body.WriteString("<nav class=\"contents\" aria-label=\"Contents\">\n<h2 id=\"contents\">Contents</h2>\n<ol>\n")
	for _, ch := range b.chapters {
		fmt.Fprintf(body, "<li><a href=\"#%s\">%s</a></li>\n", printID(ch.Page, ""), html.EscapeString(ch.Title))
	}
	body.WriteString("<li class=\"appendix\"><a href=\"#provenance\">Appendix: where every figure comes from</a></li>\n</ol>\n</nav>\n")
}

var selfLink = regexp.MustCompile(` <a class="anchor" href="#[^"]*" aria-label="link to this section">#</a>`)

// printChapter numbers a chapter's title as the text calls it; its
// headings lose their links to themselves, which paper cannot use.
func printChapter(ch *chapter, body string) string {
	return labelTitle(selfLink.ReplaceAllString(body, ""), fmt.Sprintf("Chapter %d.", ch.Number))
}

// labelTitle puts a label before the text of a page's title, "Chapter 3."
// or "Appendix.", which the PDF's outline shows too.
func labelTitle(body, label string) string {
	i := strings.Index(body, "<h1 id=\"")
	if i < 0 {
		return body
	}
	j := strings.Index(body[i:], ">") + i + 1
	return body[:j] + "<span class=\"chapnum\">" + html.EscapeString(label) + "</span> " + body[j:]
}
