package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The checks of the book against the code, each failure naming a file and
// line:
//
//   - every code name the prose puts in backticks exists: a make target
//     (`make sched-fair`) in the Makefile; a path (`prototype/stub/cross.S`)
//     in the tree; an identifier with an underscore or a struct tag
//     (`vm_map`, `EV_RUN_VCPU`, `struct ev_vcpu`) somewhere in prototype/,
//     tools/, cmd/ or the Makefile, or else in book/src/external.txt, the
//     list of names that belong to Linux, OSTD or the C library;
//   - every "chapter N" names a chapter that exists;
//   - INDEX.md lists every chapter's source and every directory of the
//     prototype.
//
// The placeholders were checked when they were resolved (load).

var (
	identifier  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\(\))?$`)
	structTag   = regexp.MustCompile(`^struct ([A-Za-z_][A-Za-z0-9_]*)$`)
	makeTarget  = regexp.MustCompile(`^make ([A-Za-z0-9_.-]+)$`)
	pathName    = regexp.MustCompile(`^(prototype|tools|cmd|book|testdata)/[^\s]*$`)
	chapterRef  = regexp.MustCompile(`(?i)\bchapters? (\d+)((?:(?:, | and | to )\d+)*)`)
	wordRE      = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	ruleRE      = regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:([^=]|$)`)
	sourceFiles = map[string]bool{".c": true, ".h": true, ".S": true, ".sh": true, ".mk": true, ".go": true, ".pin": true}
)

func (b *book) check() error {
	words, err := b.codeWords()
	if err != nil {
		return err
	}
	targets, err := b.makeTargets()
	if err != nil {
		return err
	}
	external, err := b.externalNames()
	if err != nil {
		return err
	}
	for _, ch := range b.chapters {
		if err := b.checkChapter(ch, words, targets, external); err != nil {
			return err
		}
		// Rendering finds a placeholder where the page cannot show it.
		if _, _, err := chapterHTML(ch, ""); err != nil {
			return err
		}
	}
	return b.checkIndex()
}

// checkChapter checks the code names of a chapter's inline code and the
// "chapter N" of its prose, as the Markdown parser splits the two.
func (b *book) checkChapter(ch *chapter, words, targets, external map[string]bool) error {
	s := ch.source
	for _, cs := range s.spans {
		at := fmt.Sprintf("%s:%d", ch.src, s.line(cs.segs[0].start))
		if err := b.checkCodeName(at, cs.text, words, targets, external); err != nil {
			return err
		}
	}
	for i, line := range strings.Split(s.prose(), "\n") {
		at := fmt.Sprintf("%s:%d", ch.src, i+1)
		for _, m := range chapterRef.FindAllStringSubmatch(line, -1) {
			nums := append([]string{m[1]}, regexp.MustCompile(`\d+`).FindAllString(m[2], -1)...)
			for _, n := range nums {
				k, _ := strconv.Atoi(n)
				if k < 1 || k > len(b.chapters) {
					return fmt.Errorf("%s: %q: the book has chapters 1 to %d", at, m[0], len(b.chapters))
				}
			}
		}
	}
	return nil
}

func (b *book) checkCodeName(at, span string, words, targets, external map[string]bool) error {
	if m := makeTarget.FindStringSubmatch(span); m != nil {
		b.ncodenames++
		if !targets[m[1]] {
			return fmt.Errorf("%s: `%s`: the Makefile has no target %s", at, span, m[1])
		}
		return nil
	}
	if pathName.MatchString(span) {
		b.ncodenames++
		if _, err := os.Stat(b.path(strings.TrimSuffix(span, "/"))); err != nil {
			return fmt.Errorf("%s: `%s`: no such file or directory", at, span)
		}
		return nil
	}
	name := ""
	if m := structTag.FindStringSubmatch(span); m != nil {
		name = m[1]
	} else if identifier.MatchString(span) && strings.Contains(span, "_") {
		name = strings.TrimSuffix(span, "()")
	}
	if name == "" {
		return nil
	}
	b.ncodenames++
	if !words[name] && !external[name] {
		return fmt.Errorf("%s: `%s`: no such name in prototype/, tools/ or cmd/, and not listed in %s",
			at, span, filepath.Join(b.c.src, "external.txt"))
	}
	return nil
}

// codeWords collects every identifier of the code and the Makefile.
func (b *book) codeWords() (map[string]bool, error) {
	words := map[string]bool{}
	build := b.path(b.c.logs)
	for _, dir := range []string{"prototype", "tools", "cmd"} {
		if _, err := os.Stat(b.path(dir)); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(b.path(dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path == build || strings.HasPrefix(d.Name(), ".") && path != b.path(dir) {
					return filepath.SkipDir
				}
				return nil
			}
			if !sourceFiles[filepath.Ext(path)] && d.Name() != "Kbuild" && d.Name() != "init" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, w := range wordRE.FindAllString(string(data), -1) {
				words[w] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(b.path("Makefile"))
	if err != nil {
		return nil, err
	}
	for _, w := range wordRE.FindAllString(string(data), -1) {
		words[w] = true
	}
	return words, nil
}

func (b *book) makeTargets() (map[string]bool, error) {
	f, err := os.Open(b.path("Makefile"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	targets := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if m := ruleRE.FindStringSubmatch(sc.Text()); m != nil {
			for _, t := range strings.Fields(m[1]) {
				targets[t] = true
			}
		}
	}
	return targets, nil
}

// externalNames reads book/src/external.txt: a name, then what it is.
func (b *book) externalNames() (map[string]bool, error) {
	names := map[string]bool{}
	name := filepath.Join(b.c.src, "external.txt")
	f, err := os.Open(b.path(name))
	if os.IsNotExist(err) {
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
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s:%d: want a name and what it is", name, n)
		}
		names[fields[0]] = true
	}
	return names, sc.Err()
}

// checkIndex: INDEX.md names every chapter source and every prototype
// directory.  A book whose sources lie outside the root (a scratch book
// built from some of the chapters) is not the repository's, and its index
// is not checked.
func (b *book) checkIndex() error {
	if rel := b.rel(b.path(b.c.src)); filepath.IsAbs(rel) {
		return nil
	}
	data, err := os.ReadFile(b.path("INDEX.md"))
	if err != nil {
		return fmt.Errorf("INDEX.md: %v", err)
	}
	text := string(data)
	last := strings.Count(text, "\n")
	for _, ch := range b.chapters {
		if !strings.Contains(text, "`"+filepath.ToSlash(ch.src)+"`") {
			return fmt.Errorf("INDEX.md:%d: no entry for chapter %d, `%s`", last, ch.Number, ch.src)
		}
	}
	dirs, err := prototypeDirs(b.path("prototype"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !strings.Contains(text, "`prototype/"+d+"/`") {
			return fmt.Errorf("INDEX.md:%d: no entry for the directory `prototype/%s/`", last, d)
		}
	}
	return nil
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
