package main

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"endovisor/internal/srcindex"
)

// The directories of the sources, each with what it is, written by hand
// in book/src/directories.txt, which INDEX.md and the site's source index
// both group the files by:
//
//	## Prototype directories
//	prototype/abi/      the interface between the endovisor and ...
//	## Tools
//	cmd/mkbook/         the book tool: ...
//
// A "## " line starts a group; each other line is a directory (ending in
// a slash) or a file, then what it is.  A source file belongs to the
// longest directory that holds it.

const dirsFile = "directories.txt"

// otherGroup is the id of the group of the files in no directory of
// directories.txt.
const otherGroup = "g-other"

type srcGroup struct {
	id, title string
	dirs      []*srcDir
}

type srcDir struct {
	path, about string
	files       []string
	line        int // in directories.txt
}

// readDirs reads book/src/directories.txt; a book without one has none.
func (b *book) readDirs() ([]*srcGroup, error) {
	name := filepath.Join(b.c.src, dirsFile)
	f, err := os.Open(b.path(name))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var groups []*srcGroup
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
			continue
		case strings.HasPrefix(line, "## "):
			title := strings.TrimSpace(line[3:])
			groups = append(groups, &srcGroup{id: "g-" + strings.ToLower(strings.ReplaceAll(title, " ", "-")), title: title})
			continue
		}
		if len(groups) == 0 {
			return nil, fmt.Errorf("%s:%d: a directory before any group (## Title)", name, n)
		}
		p, about := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			p, about = line[:i], strings.TrimSpace(line[i:])
		}
		if about == "" {
			return nil, fmt.Errorf("%s:%d: want a directory or a file, then what it is", name, n)
		}
		if first, ok := seen[p]; ok {
			return nil, fmt.Errorf("%s:%d: %s is described already, on line %d", name, n, p, first)
		}
		seen[p] = n
		if bare := strings.TrimSuffix(p, "/"); path.Clean(bare) != bare || !filepath.IsLocal(bare) {
			return nil, fmt.Errorf("%s:%d: %s: write a path from the repository's top, with no . or .. in it", name, n, p)
		}
		if _, err := os.Stat(b.path(strings.TrimSuffix(p, "/"))); err != nil {
			return nil, fmt.Errorf("%s:%d: no such directory or file %s", name, n, p)
		}
		g := groups[len(groups)-1]
		g.dirs = append(g.dirs, &srcDir{path: p, about: about, line: n})
	}
	return groups, sc.Err()
}

// sourceGroups sorts the source files into the groups of
// directories.txt; a file in none of its directories goes to a last
// group, by its directory.
func (b *book) sourceGroups(ix *srcindex.Index) ([]*srcGroup, error) {
	groups, err := b.readDirs()
	if err != nil {
		return nil, err
	}
	other := &srcGroup{id: otherGroup, title: "Other files"}
	byDir := map[string]*srcDir{}
	for _, p := range ix.Paths {
		home := homeDir(groups, p)
		if home == nil {
			dir := path.Dir(p) + "/"
			if home = byDir[dir]; home == nil {
				home = &srcDir{path: dir}
				byDir[dir] = home
				other.dirs = append(other.dirs, home)
			}
		}
		home.files = append(home.files, p)
	}
	sort.Slice(other.dirs, func(i, j int) bool { return other.dirs[i].path < other.dirs[j].path })
	if len(other.dirs) > 0 {
		groups = append(groups, other)
	}
	return groups, nil
}

// homeDir is the directory of the groups that holds p, a file or a
// directory: the longest that does, or nil.
func homeDir(groups []*srcGroup, p string) *srcDir {
	var home *srcDir
	for _, g := range groups {
		for _, d := range g.dirs {
			holds := p == d.path || strings.HasSuffix(d.path, "/") && strings.HasPrefix(p, d.path)
			if holds && (home == nil || len(d.path) > len(home.path)) {
				home = d
			}
		}
	}
	return home
}
