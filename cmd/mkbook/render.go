package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

//go:embed site/page.html
var pageTemplate string

//go:embed site/style.css
var styleCSS []byte

//go:embed site/book.js
var bookJS []byte

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithAttribute()),
	// Placeholders become HTML links, so raw HTML must pass through.
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

type pageData struct {
	Title    string
	Chapter  *chapter
	Chapters []*chapter
	Content  template.HTML
}

// render writes the whole site into a fresh directory beside the output
// and only then moves it into place, so that a failure leaves the old site
// as it was.
func (b *book) render() error {
	out := b.path(b.c.out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".site-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := b.writeSite(tmp); err != nil {
		return err
	}
	old := out + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(out); err == nil {
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

func (b *book) writeSite(dir string) error {
	tpl, err := template.New("page").Parse(pageTemplate)
	if err != nil {
		return err
	}
	for _, ch := range b.chapters {
		var body bytes.Buffer
		if err := md.Convert([]byte(ch.body), &body); err != nil {
			return fmt.Errorf("%s: %v", ch.src, err)
		}
		var page bytes.Buffer
		err := tpl.Execute(&page, pageData{Title: ch.Title, Chapter: ch, Chapters: b.chapters,
			Content: template.HTML(body.String())})
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, ch.Page), page.Bytes(), 0o644); err != nil {
			return err
		}
	}
	// The front page is the first chapter.
	first, err := os.ReadFile(filepath.Join(dir, b.chapters[0].Page))
	if err != nil {
		return err
	}
	var figs bytes.Buffer
	b.printFigures(&figs)
	files := map[string][]byte{"index.html": first, "style.css": styleCSS, "book.js": bookJS,
		"figures.txt": figs.Bytes()}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return b.writeLogs(filepath.Join(dir, "logs"))
}

// writeLogs renders every log a figure came from as a page with one anchor
// per line, so that a figure's link lands on the line it was read from.
func (b *book) writeLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var names []string
	for name := range b.logs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		var page strings.Builder
		rel := html.EscapeString(b.rel(name))
		fmt.Fprintf(&page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>"+
			"<link rel=\"stylesheet\" href=\"../style.css\"></head><body class=\"log\"><h1>%s</h1><pre>", rel, rel)
		for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			fmt.Fprintf(&page, "<span id=\"L%d\"><a class=\"ln\" href=\"#L%d\">%5d</a> %s</span>\n",
				i+1, i+1, i+1, html.EscapeString(line))
		}
		page.WriteString("</pre></body></html>\n")
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)+".html"), []byte(page.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
