package main

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The search index: built here, loaded by searchindex.js as a plain script
// (not fetched as JSON, so that search works from file://).  Each
// document is one section of a chapter; the index maps every word, folded
// to lower case, to the documents that hold it.  Words are runs of letters
// and digits of any script, so non-Latin text is searchable too.
type searchDoc struct {
	Page   string `json:"p"`
	Anchor string `json:"a"`
	Title  string `json:"t"`
	Text   string `json:"-"`
	Lead   string `json:"b"` // the first words, shown with the hit
}

var sectionStart = regexp.MustCompile(`<h[12] id="([^"]+)">(.*?)</h[12]>`)

// sectionDocs splits a rendered chapter at its headings.
func sectionDocs(ch *chapter, body string) []searchDoc {
	var docs []searchDoc
	starts := sectionStart.FindAllStringSubmatchIndex(body, -1)
	for i, s := range starts {
		end := len(body)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		title := strings.TrimSpace(strings.TrimSuffix(stripTags(body[s[4]:s[5]]), "#"))
		text := strings.Join(strings.Fields(stripTags(body[s[1]:end])), " ")
		lead := text
		if r := []rune(lead); len(r) > 160 {
			lead = string(r[:160]) + "…"
		}
		full := ch.Title
		if i > 0 {
			full += " › " + title
		}
		docs = append(docs, searchDoc{Page: ch.Page, Anchor: body[s[2]:s[3]], Title: full,
			Text: title + " " + text, Lead: lead})
	}
	return docs
}

func searchWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func searchIndex(docs []searchDoc) ([]byte, error) {
	words := map[string][]int{}
	for i, d := range docs {
		seen := map[string]bool{}
		for _, w := range searchWords(d.Text) {
			if len([]rune(w)) < 2 || seen[w] {
				continue
			}
			seen[w] = true
			words[w] = append(words[w], i)
		}
	}
	for _, ids := range words {
		sort.Ints(ids)
	}
	data, err := json.Marshal(struct {
		Docs  []searchDoc      `json:"docs"`
		Words map[string][]int `json:"words"`
	}{docs, words})
	if err != nil {
		return nil, err
	}
	return append(append([]byte("window.BOOK_SEARCH = "), data...), ";\n"...), nil
}
