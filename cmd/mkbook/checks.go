package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"endovisor/internal/srcindex"
)

// The checks of the book against the code, each failure naming a file and
// line, besides those of the placeholders and the code names, made when
// they were resolved (load, codenames.go):
//
//   - book/src/external.txt lists no name the sources define;
//   - no retired design's word outside a history aside (retired.go), no
//     constant typed beside its name (const.go), no two timings of one
//     suite compared by separate medians and no "in every boot" over
//     claims of the medians (claim.go);
//   - every chapter renders, every placeholder where its page can show it;
//   - INDEX.md is what mkbook index writes (index.go).

func (b *book) check() error {
	if err := b.checkExternal(); err != nil {
		return err
	}
	for _, ch := range b.chapters {
		// Rendering finds a placeholder where the page cannot show it.
		if _, _, err := chapterHTML(ch, ""); err != nil {
			return err
		}
	}
	return b.checkIndex()
}

// checkExternal keeps book/src/external.txt honest: a name it lists as
// Linux's, OSTD's or the C library's is not one the sources define.
func (b *book) checkExternal() error {
	ext, err := b.externalNames()
	if err != nil {
		return err
	}
	ix := b.index
	var names []string
	for n := range ext {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return ext[names[i]] < ext[names[j]] })
	for _, n := range names {
		for _, d := range ix.Lookup(n) {
			if d.Kind != srcindex.KindDecl {
				return fmt.Errorf("%s:%d: %s is defined in the sources, at %s:%d: the list is of names that are not",
					filepath.Join(b.c.src, "external.txt"), ext[n], n, d.File, d.Start)
			}
		}
	}
	return nil
}

// externalNames reads book/src/external.txt, once: a name (struct NAME
// for a tag), then what it is; each name with its line.
func (b *book) externalNames() (map[string]int, error) {
	if b.external != nil {
		return b.external, nil
	}
	names := map[string]int{}
	name := filepath.Join(b.c.src, "external.txt")
	f, err := os.Open(b.path(name))
	if os.IsNotExist(err) {
		b.external = names
		return names, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) > 2 && (fields[0] == "struct" || fields[0] == "union" || fields[0] == "enum") {
			fields = append([]string{fields[0] + " " + fields[1]}, fields[2:]...)
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s:%d: want a name and what it is", name, n)
		}
		if first, ok := names[fields[0]]; ok {
			return nil, fmt.Errorf("%s:%d: %s is listed already, on line %d", name, n, fields[0], first)
		}
		names[fields[0]] = n
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	b.external = names
	return names, nil
}

// prototypeDirs lists prototype's directories that hold files: each top
// one, and each kernel under kernels/.
func prototypeDirs(proto string) ([]string, error) {
	var dirs []string
	entries, err := os.ReadDir(proto)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.Name() == "kernels" {
			ks, err := os.ReadDir(filepath.Join(proto, "kernels"))
			if err != nil {
				return nil, err
			}
			for _, k := range ks {
				if k.IsDir() {
					dirs = append(dirs, "kernels/"+k.Name())
				}
			}
			continue
		}
		if files, _ := os.ReadDir(filepath.Join(proto, e.Name())); len(files) > 0 {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}
