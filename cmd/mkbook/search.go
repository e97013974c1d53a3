package main

import (
	"encoding/json"
	"regexp"
	"strings"

	"endovisor/internal/srcindex"
)

// The search index: built here, loaded by searchindex.js as a plain script
// (not fetched as JSON, so that search works from file://).  Each
// document is one section of a chapter, and the index holds its text
// once, as the reader sees it: book.js splits it into words when the
// index loads, ranks by those words (BM25, with the section's and the
// chapter's titles boosted) and cuts its snippets from the same text, so
// that what is ranked and what is shown cannot disagree.  Storing the
// text and not a word list keeps the index about the size of the book's
// prose.
type searchDoc struct {
	Chapter int    // index into the chapters
	Anchor  string // the section's id
	Title   string // the section's heading; "" for the chapter's own first section
	Text    string
}

var (
	sectionStart = regexp.MustCompile(`<h[12] id="([^"]+)">(.*?)</h[12]>`)
	// What a section's text is not: the chapter's own contents, the
	// headings' links to themselves, and the words inside a diagram or a
	// plot (a diagram's caption stays).
	notText = regexp.MustCompile(`(?s)<nav class="toc".*?</nav>|<a class="anchor"[^>]*>#</a>|<svg[ >].*?</svg>`)
)

// sectionDocs splits a rendered chapter at its headings.
func sectionDocs(n int, body string) []searchDoc {
	body = notText.ReplaceAllString(body, "")
	var docs []searchDoc
	starts := sectionStart.FindAllStringSubmatchIndex(body, -1)
	for i, s := range starts {
		end := len(body)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		title := strings.TrimSpace(stripTags(body[s[4]:s[5]]))
		if i == 0 {
			title = ""
		}
		text := strings.Join(strings.Fields(stripTags(body[s[1]:end])), " ")
		docs = append(docs, searchDoc{Chapter: n, Anchor: body[s[2]:s[3]], Title: title, Text: text})
	}
	return docs
}

// searchIndex writes window.BOOK_SEARCH = {c: [[page, title], ...],
// d: [[chapter, anchor, title, text], ...], and the definitions of the
// sources: f: [file, ...], k: [kind, ...], s: [[name, kind, file, line],
// ...]}, so that a reader who searches a name finds where it is defined.
// A definition is a name, its kind and its place, a few bytes each: the
// members of structs and the declarations are left out, as their structs
// and their definitions are there.
func searchIndex(chapters []*chapter, docs []searchDoc, ix *srcindex.Index) ([]byte, error) {
	var idx struct {
		C [][2]string `json:"c"`
		D [][4]any    `json:"d"`
		F []string    `json:"f"`
		K []string    `json:"k"`
		S [][4]any    `json:"s"`
	}
	for _, ch := range chapters {
		idx.C = append(idx.C, [2]string{ch.Page, ch.Title})
	}
	for _, d := range docs {
		idx.D = append(idx.D, [4]any{d.Chapter, d.Anchor, d.Title, d.Text})
	}
	files, kinds := map[string]int{}, map[string]int{}
	number := func(m map[string]int, list *[]string, v string) int {
		n, ok := m[v]
		if !ok {
			n = len(*list)
			m[v] = n
			*list = append(*list, v)
		}
		return n
	}
	for _, d := range ix.Defs {
		if d.Kind == srcindex.KindMember || d.Kind == srcindex.KindDecl {
			continue
		}
		idx.S = append(idx.S, [4]any{d.Display(), number(kinds, &idx.K, d.Kind), number(files, &idx.F, d.File), d.Start})
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return nil, err
	}
	return append(append([]byte("window.BOOK_SEARCH = "), data...), ";\n"...), nil
}
