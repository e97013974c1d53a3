package main

import (
	"fmt"
	"html"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"endovisor/internal/figlog"
	"endovisor/internal/srcindex"
)

// The prose's code names, paths and chapter numbers, resolved and linked:
//
//   - a backticked name (`ev_walk`, `ev_walk()`, `struct ev_vm`, a Go
//     `Type.Method`) that looks like code (it has an underscore, ends in
//     (), is a struct, union or enum, or is a name the sources define)
//     must resolve through the definition index to one definition, and
//     links to it; a name of Linux, OSTD or the C library is listed, with
//     what it is, in book/src/external.txt instead, and is not linked.
//     A name with two definitions takes a qualifier, the span after " in "
//     (`lock` in `struct ev_vm`, `run` in `mem/main.c`): a file's path or
//     its end, a directory, or a container.  A definition beats a
//     declaration; nothing else is preferred.  A word without an
//     underscore that only members of structs, Go methods or tests have
//     (`mm`, `ctx`, `value`) is taken for a word of the prose unless it is
//     qualified (a method also as `Type.Method`).  A
//     service (`vm_map`) is defined by its line in the list of the
//     services, EV_SERVICE(10, VM_MAP, vm_map, 4), as the constant that
//     numbers it (EV_SVC_VM_MAP) is; a function a definition macro makes
//     (`ev_svc_vm_map`, from EV_SERVICE_DEFINE4(vm_map, ...)) by the
//     macro's call; a kernel's test (`kick_race`) by the first call that
//     names it, check("kick_race", ...) or expect(...).
//   - `make X` names a target of the Makefile;
//   - a path (`prototype/stub/cross.S`) links to the file's page, a
//     directory to its group on the source index, a chapter's source to
//     the chapter; one that does not exist is an error;
//   - "chapter N", "chapters N and M", "chapters N to M" link to the
//     chapters, which must exist.
//
// A link is made with two markers around the span (splice.go), so that
// the span itself is still rendered by Markdown as code, and nothing of
// the chapter becomes HTML.  An identifier without an underscore that the
// sources do not define (an instruction, a register) stays plain code.

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\(\))?$`)
	tagName    = regexp.MustCompile(`^(struct|union|enum) ([A-Za-z_][A-Za-z0-9_]*)$`)
	dotted     = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(\(\))?$`)
	makeTarget = regexp.MustCompile(`^make ([A-Za-z0-9_.-]+)$`)
	pathName   = regexp.MustCompile(`^(prototype|tools|cmd|internal|book|testdata)/[^\s]*$`)
	chapterRef = regexp.MustCompile(`(?i)\bchapters?\s+(\d+)((?:(?:,\s+|,?\s+and\s+|\s+to\s+)\d+)*)`)
)

// edit is a change to a chapter's Markdown: the bytes [start, stop)
// become text (an insertion if they are none).
type edit struct {
	start, stop int
	text        string
}

// link is where a code name, path or chapter number links to.
type link struct {
	class, href, title string
	ref                *srcRef // the place of the sources it names, if any
}

// wrap puts markers around the bytes [start, stop) of a chapter, which
// become a link: the markers' HTML is the link's tags, and nothing inside
// a link's text, where a link would split the other.
func (ch *chapter) wrap(at, what string, start, stop int, l *link) []edit {
	open := fmt.Sprintf(`<a class="%s" href="%s" title="%s">`, l.class, html.EscapeString(l.href), html.EscapeString(l.title))
	ch.spliced = append(ch.spliced, spliced{at: at, ph: what, html: open})
	first := marker(len(ch.spliced) - 1)
	ch.spliced = append(ch.spliced, spliced{at: at, ph: what, html: "</a>"})
	return []edit{{start, start, first}, {stop, stop, marker(len(ch.spliced) - 1)}}
}

// linkNames resolves a chapter's code names, paths and chapter numbers,
// and returns the markers that make each a link.
func (b *book) linkNames(ch *chapter) ([]edit, error) {
	s := ch.source
	var edits []edit
	// Does [i, j) overlap a placeholder?  Asked of spans in order, so
	// the marks before i are passed once for all.
	next := 0
	inMark := func(i, j int) bool {
		for next < len(s.marks) && s.marks[next].stop <= i {
			next++
		}
		return next < len(s.marks) && s.marks[next].start < j
	}
	prose := s.prose()
	for i, cs := range s.spans {
		if len(cs.segs) == 0 || inMark(cs.start, cs.stop) {
			continue
		}
		at := fmt.Sprintf("%s:%d", ch.src, s.line(cs.segs[0].start))
		text := strings.Join(strings.Fields(cs.text), " ")
		qual := ""
		if i+1 < len(s.spans) && len(s.spans[i+1].segs) > 0 && s.spans[i+1].start >= cs.stop {
			if gap := strings.Fields(s.text[cs.stop:s.spans[i+1].start]); len(gap) == 1 && gap[0] == "in" {
				qual = strings.Join(strings.Fields(s.spans[i+1].text), " ")
			}
		}
		l, err := b.codeName(text, qual)
		if err != nil {
			return nil, fmt.Errorf("%s: `%s`: %w", at, text, err)
		}
		if l == nil {
			continue
		}
		if err := b.typedConstant(text, qual, s.text[cs.stop:min(len(s.text), cs.stop+48)], sentenceAt(prose, cs.start, cs.stop)); err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		if l.ref != nil {
			ch.refs = append(ch.refs, *l.ref)
		}
		b.ncodenames++
		if !cs.image {
			edits = append(edits, ch.wrap(at, "`"+text+"`", cs.start, cs.stop, l)...)
		}
	}
	// A chapter is named by its file, {{chapter NAME}}, never by a typed
	// number, which a chapter moved would leave pointing elsewhere.
	if m := chapterRef.FindStringSubmatchIndex(prose); m != nil {
		at := fmt.Sprintf("%s:%d", ch.src, s.line(m[0]))
		words := strings.Join(strings.Fields(prose[m[0]:m[1]]), " ")
		k, _ := strconv.Atoi(prose[m[2]:m[3]])
		if k < 1 || k > len(b.chapters) {
			return nil, fmt.Errorf("%s: %q: the book has chapters 1 to %d", at, words, len(b.chapters))
		}
		return nil, fmt.Errorf("%s: %q types a chapter's number: write {{chapter %s}} for %s (chapter %d today)",
			at, words, b.chapters[k-1].name(), b.chapters[k-1].Title, k)
	}
	return edits, nil
}

// codeName resolves a backticked span: nil if it is no code name.
func (b *book) codeName(text, qual string) (*link, error) {
	ix := b.index
	if m := makeTarget.FindStringSubmatch(text); m != nil {
		for _, d := range ix.Lookup(m[1]) {
			if d.Kind == srcindex.KindTarget && d.File == "Makefile" {
				return defLink(d), nil
			}
		}
		return nil, fmt.Errorf("the Makefile has no target %s", m[1])
	}
	if pathName.MatchString(text) || ix.Files[text] != nil {
		return b.pathLink(text)
	}
	// A word without an underscore (mm, lock, hello) that names only
	// members of structs or tests is a word of the prose unless it is
	// qualified.
	name, generic := "", false
	switch {
	case tagName.MatchString(text):
		name = text
	case dotted.MatchString(text):
		m := dotted.FindStringSubmatch(text)
		if len(ix.Lookup(text)) == 0 && !ix.GoType(m[1]) {
			return nil, nil // a figure's key, a file's name: not Go
		}
		name = strings.TrimSuffix(text, "()")
	case identifier.MatchString(text):
		name = strings.TrimSuffix(text, "()")
		generic = !strings.Contains(text, "_") && !strings.HasSuffix(text, "()")
		if generic && len(ix.Lookup(name)) == 0 {
			return nil, nil // an instruction, a register, a word
		}
	default:
		return b.fileEndLink(text), nil
	}
	ext, err := b.externalNames()
	if err != nil {
		return nil, err
	}
	if _, ok := ext[name]; ok {
		return nil, nil
	}
	ds := srcindex.Best(ix.Lookup(name))
	if generic && qual == "" {
		ds = notWords(ds)
		if len(ds) == 0 {
			return nil, nil
		}
	}
	if len(ds) > 1 && qual != "" {
		q := srcindex.Qualified(ds, qual)
		if len(q) == 0 {
			return nil, fmt.Errorf("%s has %d definitions, and none is in `%s`: %s", name, len(ds), qual, defList(ds))
		}
		ds = q
	}
	switch len(ds) {
	case 0:
		hint := ""
		if c := srcindex.Closest(name, ix.Names()); len(c) > 0 {
			hint = " (did you mean " + strings.Join(c, ", ") + "?)"
		}
		return nil, fmt.Errorf("no definition in the sources%s, and not listed in %s",
			hint, filepath.ToSlash(filepath.Join(b.c.src, "external.txt")))
	case 1:
		return defLink(ds[0]), nil
	}
	return nil, fmt.Errorf("%s is ambiguous, with %d definitions: %s; qualify it, as `%s` in `%s`",
		name, len(ds), defList(ds), text, qualifierFor(ds[0], ds))
}

// notWords drops the members, the Go methods and the tests, whose names
// without an underscore are words of the prose too.
func notWords(ds []*srcindex.Def) []*srcindex.Def {
	var out []*srcindex.Def
	for _, d := range ds {
		if d.Kind != srcindex.KindMember && d.Kind != srcindex.KindMethod && d.Kind != srcindex.KindTest {
			out = append(out, d)
		}
	}
	return out
}

func defList(ds []*srcindex.Def) string {
	var s []string
	for _, d := range ds {
		s = append(s, fmt.Sprintf("%s (%s) at %s:%d", d.Display(), d.Kind, d.File, d.Start))
	}
	return strings.Join(s, ", ")
}

// qualifierFor is a qualifier that tells d from the others: its
// container, its file's base name, the base name with its directory, or
// its path.
func qualifierFor(d *srcindex.Def, ds []*srcindex.Def) string {
	for _, q := range []string{d.Container, path.Base(d.File), path.Join(path.Base(path.Dir(d.File)), path.Base(d.File)), d.File} {
		if q != "" && len(srcindex.Qualified(ds, q)) == 1 {
			return q
		}
	}
	return d.File
}

func defLink(d *srcindex.Def) *link {
	title := d.Kind + " " + d.Display()
	if srcindex.TagKind[d.Kind] {
		title = d.Display()
	}
	return &link{class: "code", href: fmt.Sprintf("%s#L%d", srcPage(d.File), d.Start),
		title: fmt.Sprintf("%s, %s:%d", title, d.File, d.Start),
		ref:   &srcRef{file: d.File, start: d.Start, end: d.End}}
}

// pathLink links a path: a source file to its page, a directory to its
// group on the source index, a chapter's source to the chapter.
func (b *book) pathLink(p string) (*link, error) {
	ix := b.index
	if ix.Files[p] != nil {
		return &link{class: "path", href: srcPage(p), title: fmt.Sprintf("%s, %d lines", p, len(ix.Files[p].Lines)),
			ref: &srcRef{file: p}}, nil
	}
	if bare := strings.TrimSuffix(p, "/"); path.Clean(bare) != bare || !filepath.IsLocal(bare) {
		return nil, fmt.Errorf("write a path from the repository's top, with no . or .. in it")
	}
	full := b.path(filepath.FromSlash(b.inLogs(strings.TrimSuffix(p, "/"))))
	st, err := os.Stat(full)
	if err != nil && b.c.predates[logfileSuite(b.c, b.inLogs(p)+":1")] {
		return nil, nil // the log of a suite a stored run predates
	}
	if err != nil {
		return nil, fmt.Errorf("no such file or directory")
	}
	if _, in := figlog.Within(b.path("."), full); !in {
		return nil, fmt.Errorf("a symbolic link out of the repository")
	}
	for _, ch := range b.chapters {
		if filepath.ToSlash(ch.src) == p {
			return &link{class: "chapref", href: ch.Page, title: ch.Title}, nil
		}
	}
	if !st.IsDir() {
		return nil, nil // a file of the repository with no page: a log, a test
	}
	dir := strings.TrimSuffix(p, "/") + "/"
	// The described directory that holds it, or else the first it holds.
	home := homeDir(b.srcGroups, dir)
	for _, g := range b.srcGroups {
		for _, d := range g.dirs {
			if home == nil && strings.HasPrefix(d.path, dir) {
				home = d
			}
		}
	}
	if home == nil {
		return nil, nil
	}
	return &link{class: "path", href: "src/index.html#" + dirID(home.path), title: home.path + " on the index of the sources",
		ref: &srcRef{file: dir}}, nil
}

// fileEndLink links the end of a file's path (`cross.S`, `mem/main.c`)
// to the file's page, if one source file's path ends so.
func (b *book) fileEndLink(name string) *link {
	if !strings.Contains(name, ".") || strings.ContainsAny(name, " ") {
		return nil
	}
	var found []string
	for _, p := range b.index.Paths {
		if strings.HasSuffix("/"+p, "/"+name) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return nil
	}
	l, _ := b.pathLink(found[0])
	return l
}
