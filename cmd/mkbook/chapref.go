package main

import (
	"fmt"
	"html"
	"strings"
)

// {{chapter NAME}} is the number of the chapter whose file is NAME.md,
// linked to it: "chapter {{chapter fork}}'s fork" reads "chapter 12's
// fork".  Chapters refer to each other only this way (linkNames refuses
// a typed number), so that moving a chapter renumbers every reference to
// it, and a reference says in the Markdown which chapter it means.

type chapterKind struct{}

func (chapterKind) usage() string                    { return "{{chapter NAME}}, NAME.md a chapter of SUMMARY.md" }
func (chapterKind) block() bool                      { return false }
func (chapterKind) suites(config, []string) []string { return nil }
func (k chapterKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 1 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	to := b.chapterNamed(args[0])
	if to == nil {
		var names []string
		for _, ch := range b.chapters {
			names = append(names, ch.name())
		}
		return use{}, fmt.Errorf("no chapter %s.md: the chapters are %s", args[0], strings.Join(names, ", "))
	}
	text := fmt.Sprint(to.Number)
	return use{text: text, out: fmt.Sprintf(`<a class="chapref" href="%s" title="%s">%s</a>`,
		html.EscapeString(to.Page), html.EscapeString(to.Title), text)}, nil
}

// name is the chapter's file without .md, as {{chapter NAME}} names it.
func (ch *chapter) name() string { return strings.TrimSuffix(ch.Page, ".html") }

// chapterNamed is the chapter whose file is name.md, or nil.
func (b *book) chapterNamed(name string) *chapter {
	for _, ch := range b.chapters {
		if ch.name() == name {
			return ch
		}
	}
	return nil
}
