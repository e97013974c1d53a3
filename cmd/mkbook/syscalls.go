package main

import (
	"fmt"
	"html"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"endovisor/internal/srcindex"
)

// {{syscalls DIR}}, alone on its line, is the table of the system calls
// the linux kernel proper in DIR defines, generated from its sources so
// that it cannot drift from them: each call a definition macro makes
// (LX_SYSCALL_DEFINE2(kill, ...) defines lx_sys_kill, srcindex's
// definers), linked to its definition, with the file it is in and its
// support.  A call is partial when the line
//
//	LX_PARTIAL(kill, "what it lacks");
//
// stands before its definition, in code (not in a comment or an #if 0
// block), and full otherwise.  A note for a call DIR does not define, a
// second note for one call, or one the parser cannot read fails with its
// file:line.

var (
	partialStart = regexp.MustCompile(`^\s*LX_PARTIAL\b`)
	partialLine  = regexp.MustCompile(`^\s*LX_PARTIAL\(\s*([a-z_][a-z0-9_]*)\s*,\s*("(?:[^"\\]|\\.)*")\s*\)\s*;\s*$`)
)

// lxPrefix is the prefix of the functions LX_SYSCALL_DEFINEn makes.
const lxPrefix = "lx_sys_"

type syscallRow struct {
	def  *srcindex.Def
	note string // "" for a call that does what Linux's does
}

type syscallsKind struct{}

func (syscallsKind) usage() string                    { return "{{syscalls DIR}}" }
func (syscallsKind) block() bool                      { return true }
func (syscallsKind) suites(config, []string) []string { return nil }
func (k syscallsKind) resolve(b *book, args []string) (use, error) {
	if len(args) != 1 {
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	dir := strings.TrimSuffix(args[0], "/")
	rows, err := readSyscalls(b.index, dir)
	if err != nil {
		return use{}, err
	}
	var body strings.Builder
	partial := 0
	for _, r := range rows {
		name := strings.TrimPrefix(r.def.Name, lxPrefix)
		support := "full"
		if r.note != "" {
			support = "partial: " + svcWords(r.note)
			partial++
		}
		l := defLink(r.def)
		fmt.Fprintf(&body, "<tr><td><a class=\"code\" href=\"%s\" title=\"%s\"><code>%s</code></a></td><td><code>%s</code></td><td>%s</td></tr>\n",
			html.EscapeString(l.href), html.EscapeString(l.title), html.EscapeString(name),
			html.EscapeString(path.Base(r.def.File)), support)
	}
	out := "<table class=\"syscalls\">\n<thead><tr><th>call</th><th>file</th><th>support</th></tr></thead>\n<tbody>\n" +
		body.String() + "</tbody>\n</table>"
	return use{text: fmt.Sprintf("%d calls, %d partial", len(rows), partial), out: out}, nil
}

// readSyscalls is every call the files below dir define, by name, each
// with its LX_PARTIAL note if it has one.
func readSyscalls(ix *srcindex.Index, dir string) ([]*syscallRow, error) {
	byName := map[string]*syscallRow{}
	var files []string
	for _, p := range ix.Paths {
		if strings.HasPrefix(p, dir+"/") {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no sources below %s", dir)
	}
	var rows []*syscallRow
	for _, d := range ix.Defs {
		if strings.HasPrefix(d.File, dir+"/") && d.Kind == srcindex.KindFunc && strings.HasPrefix(d.Name, lxPrefix) &&
			d.Name != lxPrefix+"ni_syscall" && definedByMacro(ix.Files[d.File], d) {
			if prev := byName[d.Name]; prev != nil {
				return nil, fmt.Errorf("%s:%d: %s is defined twice, and at %s:%d", d.File, d.Start, d.Name, prev.def.File, prev.def.Start)
			}
			r := &syscallRow{def: d}
			byName[d.Name], rows = r, append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no call below %s is defined with LX_SYSCALL_DEFINEn", dir)
	}
	noted := map[string]string{}
	for _, p := range files {
		f := ix.Files[p]
		if f.Lang != "c" {
			continue
		}
		for i, code := range codeLines(f) {
			if !partialStart.MatchString(code) {
				continue
			}
			at := fmt.Sprintf("%s:%d", p, i+1)
			m := partialLine.FindStringSubmatch(f.Lines[i])
			if m == nil {
				return nil, fmt.Errorf(`%s: cannot read this note: want LX_PARTIAL(name, "what it lacks"); on one line`, at)
			}
			note, err := strconv.Unquote(m[2])
			if err != nil || strings.TrimSpace(note) == "" {
				return nil, fmt.Errorf("%s: LX_PARTIAL(%s, ...): want a note that says what the call lacks", at, m[1])
			}
			r := byName[lxPrefix+m[1]]
			if r == nil {
				return nil, fmt.Errorf("%s: LX_PARTIAL(%s, ...): no call %s is defined below %s", at, m[1], m[1], dir)
			}
			if prev, ok := noted[m[1]]; ok {
				return nil, fmt.Errorf("%s: a second LX_PARTIAL for %s, after %s's", at, m[1], prev)
			}
			noted[m[1]], r.note = at, note
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].def.Name < rows[j].def.Name })
	return rows, nil
}

// definedByMacro: is d made by a definition macro (its first line is
// the macro's call), not written out as a function?
func definedByMacro(f *srcindex.File, d *srcindex.Def) bool {
	if f == nil || d.Start < 1 || d.Start > len(f.Lines) {
		return false
	}
	head, _, _ := strings.Cut(strings.TrimSpace(f.Lines[d.Start-1]), "(")
	_, ok := srcindex.Definer(head)
	return ok
}
