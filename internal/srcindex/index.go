// Package srcindex is the definition index: every name the sources
// define, with its file and lines, read from prototype/, cmd/, internal/,
// tools/ and the top Makefile (not tests, fixtures or the build's
// output).  mkbook's listings ({{code}}) and the code names of the prose
// resolve through it.  C and assembly are read by a scanner at file scope
// (cdefs.go, asmdefs.go), Go by go/parser (godefs.go), shell scripts and
// makefiles line by line (scriptdefs.go).
package srcindex

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// The kinds of definition.
const (
	KindFunc      = "function"
	KindStruct    = "struct"
	KindUnion     = "union"
	KindEnum      = "enum"
	KindMember    = "member"
	KindEnumConst = "enum constant"
	KindMacro     = "macro"
	KindTypedef   = "typedef"
	KindVar       = "variable"
	KindDecl      = "declaration" // a prototype or an extern: loses to a definition
	KindAsm       = "asm symbol"
	KindAsmMacro  = "asm macro"
	KindMethod    = "method"
	KindType      = "type"
	KindConst     = "const"
	KindShell     = "shell function"
	KindTarget    = "make target"
	KindService   = "service"
	KindTest      = "test" // a kernel's test, by the name its log reports
)

// TagKind: a struct, union or enum tag, named "struct X" and not "X".
var TagKind = map[string]bool{KindStruct: true, KindUnion: true, KindEnum: true}

type Def struct {
	Name       string
	Kind       string
	File       string // slash path from the root
	Start, End int    // lines, both inclusive
	Container  string // "struct ev_vm" for its member, the receiver type of a Go method
	Pkg        string // a Go definition's package
}

// String names a definition as the errors do: "struct ev_vm at prototype/endovisor/endovisor.h:40".
func (d *Def) String() string {
	return fmt.Sprintf("%s at %s:%d", d.Display(), d.File, d.Start)
}

// Display is how the prose would write the name.
func (d *Def) Display() string {
	switch {
	case TagKind[d.Kind]:
		return d.Kind + " " + d.Name
	case d.Kind == KindMethod:
		return d.Container + "." + d.Name
	case d.Container != "":
		return d.Name + " in " + d.Container
	}
	return d.Name
}

// File is a source file: its lines, and the language it is highlighted as.
type File struct {
	Path  string
	Lines []string
	Lang  string // a chroma lexer's name; "" for plain text
}

type Index struct {
	Files    map[string]*File
	Paths    []string // sorted
	Defs     []*Def
	ByName   map[string][]*Def
	Skipped  map[string]string // a file below the roots that is no source, and why
	Packages map[string]bool   // the Go packages' names
}

// maxSourceFile bounds a source file the index reads; a larger one, or
// one that is not UTF-8 text, is no source of the book's.
const maxSourceFile = 1 << 20

// sourceRoots are where the index looks, below the root.
var sourceRoots = []string{"prototype", "cmd", "internal", "tools", "Makefile"}

// isSourcePath: a file the index reads, by its slash path from the root.
func isSourcePath(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if strings.HasPrefix(part, ".") && part != "." || part == "testdata" {
			return false
		}
	}
	return !strings.HasSuffix(p, "_test.go")
}

// Build reads every source file below root.
func Build(root string) (*Index, error) {
	ix := &Index{Files: map[string]*File{}, ByName: map[string][]*Def{}, Skipped: map[string]string{}, Packages: map[string]bool{}}
	for _, top := range sourceRoots {
		start := filepath.Join(root, top)
		if _, err := os.Lstat(start); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(start, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, name)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if name != start && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if !isSourcePath(rel) {
				return nil
			}
			if !d.Type().IsRegular() {
				ix.Skipped[rel] = "it is a symbolic link or a special file"
				return nil
			}
			return ix.addFile(name, rel)
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(ix.Paths)
	for _, d := range ix.Defs {
		ix.ByName[d.Name] = append(ix.ByName[d.Name], d)
		if d.Pkg != "" {
			ix.Packages[d.Pkg] = true
		}
	}
	return ix, nil
}

func (ix *Index) addFile(name, rel string) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if st.Size() > maxSourceFile {
		ix.Skipped[rel] = fmt.Sprintf("it is over %d MiB", maxSourceFile>>20)
		return nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		ix.Skipped[rel] = "it is not UTF-8 text"
		return nil
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	f := &File{Path: rel, Lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n"), Lang: langOf(rel)}
	ix.Files[rel] = f
	ix.Paths = append(ix.Paths, rel)
	var defs []*Def
	switch f.Lang {
	case "c":
		defs = ScanC(text)
	case "gas":
		defs = ScanAsm(text)
	case "go":
		defs, err = ScanGo(rel, data)
		if err != nil {
			return err
		}
	case "bash":
		defs = scanShell(f.Lines)
	case "makefile":
		defs = scanMake(f.Lines)
	}
	for _, d := range defs {
		d.File = rel
		ix.Defs = append(ix.Defs, d)
	}
	return nil
}

// listedService is a line of the one list of the services
// (prototype/abi/ev_services.h), its comment blanked:
// EV_SERVICE(10, VM_MAP, vm_map, 4).
var listedService = regexp.MustCompile(`^\s*EV_SERVICE\(\s*([0-9]+)\s*,\s*([A-Z][A-Z0-9_]*)\s*,\s*([a-z][a-z0-9_]*)\s*,\s*([0-9]+)\s*\)\s*$`)

// listedServices reads the list of the services in blanked C: each line
// defines the service (vm_map) and the constant that numbers it
// (EV_SVC_VM_MAP), which the ABI's header makes from the list.  A line
// in a comment, or in an #if 0 block, is blank already.
func listedServices(blanked []string) []*Def {
	var defs []*Def
	for n, l := range blanked {
		m := listedService.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		defs = append(defs,
			&Def{Name: "EV_SVC_" + m[2], Kind: KindEnumConst, Start: n + 1, End: n + 1},
			&Def{Name: m[3], Kind: KindService, Start: n + 1, End: n + 1})
	}
	return defs
}

// langOf names the chroma lexer a file is highlighted with.
func langOf(p string) string {
	base := path.Base(p)
	switch path.Ext(p) {
	case ".c", ".h":
		return "c"
	case ".S", ".s":
		return "gas"
	case ".go":
		return "go"
	case ".sh":
		return "bash"
	case ".mk":
		return "makefile"
	case ".html":
		return "html"
	case ".css":
		return "css"
	case ".js":
		return "javascript"
	case ".svg":
		return "xml"
	}
	switch base {
	case "Makefile", "Kbuild":
		return "makefile"
	case "init":
		return "bash"
	}
	return ""
}

// Lookup finds the definitions a name stands for, as the prose or a
// listing writes it: "x", "x()", "struct x" (union, enum), or "T.M" (a Go
// method, or a package's name).  A bare name is looked for among the
// ordinary names first, then among the tags.
func (ix *Index) Lookup(name string) []*Def {
	name = strings.TrimSuffix(name, "()")
	var out []*Def
	if kind, tag, ok := strings.Cut(name, " "); ok {
		for _, d := range ix.ByName[tag] {
			if d.Kind == kind && TagKind[kind] {
				out = append(out, d)
			}
		}
		return out
	}
	if t, m, ok := strings.Cut(name, "."); ok {
		for _, d := range ix.ByName[m] {
			if d.Container == t && d.Kind == KindMethod || d.Pkg == t && d.Container == "" {
				out = append(out, d)
			}
		}
		return out
	}
	var tags []*Def
	for _, d := range ix.ByName[name] {
		if TagKind[d.Kind] {
			tags = append(tags, d)
		} else {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return tags
	}
	return out
}

// Best drops the declarations when there is a definition: what is left
// is what the name means, ambiguous if more than one.
func Best(defs []*Def) []*Def {
	var out []*Def
	for _, d := range defs {
		if d.Kind != KindDecl {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return defs
	}
	return out
}

// Qualified keeps the definitions a qualifier names: a file's path, or
// its end (main.c, mem/main.c), a directory's path ending in /, or a
// container.
func Qualified(defs []*Def, q string) []*Def {
	var out []*Def
	for _, d := range defs {
		if strings.HasSuffix("/"+d.File, "/"+q) || d.Container == q ||
			strings.HasSuffix(q, "/") && strings.HasPrefix(d.File, q) {
			out = append(out, d)
		}
	}
	return out
}

// InFile is the names a file defines, for suggestions.
func (ix *Index) InFile(file string) []*Def {
	var out []*Def
	for _, d := range ix.Defs {
		if d.File == file {
			out = append(out, d)
		}
	}
	return out
}

// Closest are up to three of names nearest to s, nearest first.
func Closest(s string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if d <= len(s)/2+1 || len(n) >= 4 && len(s) >= 4 && (strings.Contains(n, s) || strings.Contains(s, n)) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].name < cs[j].name })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// GoType: is name a Go type or package of the sources?
func (ix *Index) GoType(name string) bool {
	for _, d := range ix.ByName[name] {
		if d.Kind == KindType {
			return true
		}
	}
	return ix.Packages[name]
}

// Names is every name the sources define, for suggestions.
func (ix *Index) Names() []string {
	var names []string
	for n := range ix.ByName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
