package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// INDEX.md, the map of the book and the code, is written by mkbook index
// from the same data as the site's source index: for each chapter, the
// files it shows (listings) and names (code names, paths); for each
// directory of book/src/directories.txt, what it is and the chapters that
// show or name its files.  mkbook check fails when INDEX.md is not what
// mkbook index would write, so it cannot drift from the book.

const indexIntro = `# Index

Every chapter, with the files it shows in listings and names in its
prose; then every directory of the prototype and of the tools, with what
it is and the chapters that show or name its files. ` + "`go run ./cmd/mkbook index`" + `
writes this file from the chapters and ` + "`book/src/directories.txt`" + ` (where each
directory's description is kept); ` + "`mkbook check`" + ` fails when it is out of
date. The book's site has the same map, with a page for every file:
` + "`book/site/src/index.html`" + `.
`

// indexMD is INDEX.md as mkbook index writes it.
func (b *book) indexMD() (string, error) {
	if err := b.describedDirs(); err != nil {
		return "", err
	}
	var s strings.Builder
	s.WriteString(indexIntro)
	s.WriteString("\n## Chapters\n\n| chapter | source | shows | names |\n| --- | --- | --- | --- |\n")
	for _, ch := range b.chapters {
		shows, names := chapterFiles(ch)
		fmt.Fprintf(&s, "| %d. %s | `%s` | %s | %s |\n", ch.Number, ch.Title, filepath.ToSlash(ch.src),
			codeList(shows), codeList(names))
	}
	for _, g := range b.srcGroups {
		if g.id == otherGroup {
			continue
		}
		what := "directory"
		for _, d := range g.dirs {
			if !strings.HasSuffix(d.path, "/") {
				what = "directory or file"
			}
		}
		fmt.Fprintf(&s, "\n## %s\n\n| %s | what it is | chapters |\n| --- | --- | --- |\n", g.title, what)
		for _, d := range g.dirs {
			var nums []string
			for _, ch := range b.chapters {
				if b.cites(ch, d) {
					nums = append(nums, strconv.Itoa(ch.Number))
				}
			}
			fmt.Fprintf(&s, "| `%s` | %s | %s |\n", d.path, d.about, strings.Join(nums, ", "))
		}
	}
	return s.String(), nil
}

// chapterFiles are the files (and directories) a chapter shows in
// listings and, apart from those, names.
func chapterFiles(ch *chapter) (shows, names []string) {
	shown, named := map[string]bool{}, map[string]bool{}
	for _, r := range ch.refs {
		if r.listing {
			shown[r.file] = true
		}
	}
	for _, r := range ch.refs {
		if !r.listing && !shown[r.file] {
			named[r.file] = true
		}
	}
	return sortedKeys(shown), sortedKeys(named)
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func codeList(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return "`" + strings.Join(files, "`, `") + "`"
}

// cites: does the chapter show or name a file of the directory, the
// directory, or one within it?
func (b *book) cites(ch *chapter, d *srcDir) bool {
	for _, r := range ch.refs {
		if home := homeDir(b.srcGroups, r.file); home == d || strings.HasSuffix(r.file, "/") && strings.HasPrefix(d.path, r.file) {
			return true
		}
	}
	return false
}

// describedDirs: with a directories.txt, every directory of the
// prototype has its line there.
func (b *book) describedDirs() error {
	described := map[string]bool{}
	for _, g := range b.srcGroups {
		for _, d := range g.dirs {
			if g.id != otherGroup {
				described[d.path] = true
			}
		}
	}
	if len(described) == 0 {
		return nil // no directories.txt
	}
	dirs, err := prototypeDirs(b.path("prototype"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !described["prototype/"+d+"/"] {
			return fmt.Errorf("%s: no line for the directory prototype/%s/: add it, with what it is",
				filepath.Join(b.c.src, dirsFile), d)
		}
	}
	return nil
}

// writeIndex is mkbook index: INDEX.md, written afresh.
func (b *book) writeIndex() error {
	text, err := b.indexMD()
	if err != nil {
		return err
	}
	return os.WriteFile(b.path("INDEX.md"), []byte(text), 0o644)
}

// checkIndex: INDEX.md is what mkbook index would write.  A book whose
// sources lie outside the root (a scratch book built from some of the
// chapters) is not the repository's, and its index is not checked.
func (b *book) checkIndex() error {
	if rel := b.rel(b.path(b.c.src)); filepath.IsAbs(rel) {
		return nil
	}
	want, err := b.indexMD()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(b.path("INDEX.md"))
	if err != nil {
		return fmt.Errorf("INDEX.md: %w: run go run ./cmd/mkbook index", err)
	}
	if have := string(data); have != want {
		hl, wl := strings.Split(have, "\n"), strings.Split(want, "\n")
		n := 0
		for n < len(hl) && n < len(wl) && hl[n] == wl[n] {
			n++
		}
		return fmt.Errorf("INDEX.md:%d: not what mkbook index writes from the chapters and %s: run go run ./cmd/mkbook index",
			n+1, filepath.ToSlash(filepath.Join(b.c.src, dirsFile)))
	}
	return nil
}
