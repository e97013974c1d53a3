package main

import (
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
)

// cite is a section of a chapter that links to a figure's provenance.
type cite struct {
	Page, Anchor, Title string
}

// citeWords is what the chapter says just before it first gives a figure,
// the words of its sentence or its table row, for the provenance entry's
// heading.
func citeWords(body string, at int) string {
	before := body[:at]
	if i := strings.LastIndex(before, "<"); i >= 0 {
		before = before[:i] // the link's own tag
	}
	start := 0
	for _, tag := range []string{"<p>", "<li>", "<td>", "<th>", "<tr>", "</h1>", "</h2>", "</h3>"} {
		if i := strings.LastIndex(before, tag); i+len(tag) > start && i >= 0 {
			start = i + len(tag)
		}
	}
	if row := strings.LastIndex(before, "<tr>"); row >= 0 && strings.LastIndex(before, "</tr>") < row && strings.LastIndex(before, "<p>") < row {
		// In a table, the row's first cell names what the row measures.
		start = row
		before, _, _ = strings.Cut(before[row:], "</td>")
		before = before + " "
	} else {
		before = before[start:]
	}
	words := strings.Fields(stripTags(before))
	if len(words) > 10 {
		words = append([]string{"…"}, words[len(words)-10:]...)
	}
	return strings.TrimRight(strings.Join(words, " "), ",;:(")
}

var citeRE = regexp.MustCompile(`<h[1-4] id="([^"]+)">(.*?)</h[1-4]>|href="provenance\.html#([^"]+)"`)

// noteCites records, for every figure a rendered chapter links to, the
// section it is cited in, once a section, and the words it is first
// cited with.
func noteCites(cites map[string][]cite, said map[string]string, ch *chapter, body string) {
	at := cite{Page: ch.Page, Title: ch.Title}
	for _, ix := range citeRE.FindAllStringSubmatchIndex(body, -1) {
		m := make([]string, 4)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = body[ix[2*i]:ix[2*i+1]]
			}
		}
		if m[1] != "" {
			at = cite{Page: ch.Page, Anchor: m[1], Title: ch.Title}
			if t := strings.TrimSpace(strings.TrimSuffix(stripTags(m[2]), "#")); t != ch.Title {
				at.Title += " › " + t
			}
			continue
		}
		k := html.UnescapeString(m[3])
		if _, ok := said[k]; !ok {
			said[k] = citeWords(body, ix[0])
		}
		if cs := cites[k]; len(cs) == 0 || cs[len(cs)-1] != at {
			cites[k] = append(cs, at)
		}
	}
}

// citedIn is the line under a provenance entry's heading: the sections
// that cite the figure, each a link.
func citedIn(cs []cite) string {
	if len(cs) == 0 {
		return ""
	}
	var s strings.Builder
	s.WriteString("<p class=\"cited\">Cited in ")
	for i, c := range cs {
		if i > 0 {
			s.WriteString(", ")
		}
		href := c.Page
		if c.Anchor != "" {
			href += "#" + c.Anchor
		}
		fmt.Fprintf(&s, "<a href=\"%s\">%s</a>", html.EscapeString(href), html.EscapeString(c.Title))
	}
	s.WriteString(".</p>\n")
	return s.String()
}

// figureIndex lists every figure's entry, by suite, at the head of the
// provenance.
func figureIndex(keys []string, suiteOf func(string) (suite, key string)) string {
	var s strings.Builder
	s.WriteString("<nav class=\"figindex\" aria-label=\"Index of the figures\">\n<h2 id=\"index\">Index</h2>\n")
	last := ""
	sort.Strings(keys)
	for _, k := range keys {
		suite, key := suiteOf(k)
		if suite != last {
			if last != "" {
				s.WriteString("</p>\n")
			}
			fmt.Fprintf(&s, "<p><strong>%s</strong>: ", html.EscapeString(suite))
			last = suite
		} else {
			s.WriteString(" · ")
		}
		fmt.Fprintf(&s, "<a href=\"#%s\">%s</a>", html.EscapeString(k), html.EscapeString(key))
	}
	if last != "" {
		s.WriteString("</p>\n")
	}
	s.WriteString("</nav>\n")
	return s.String()
}
