package guest

import (
	"bufio"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Layers reads who calls whom among the endovisor's files, from the
// objects the build made, and fails on a cycle of more than three files
// that prototype/guest/layers.allow does not list as it stands: files
// that call each other in a ring cannot be read, tested or changed one
// at a time.  A call is a reference from one object to a function
// another defines; a shared variable (a per-CPU pointer, the live
// counts, the service table) is state, not a call, and is not counted.
// Nor is the stub (stub/cross.S): the endovisor calls it to enter sandbox
// code, and it calls services when sandbox code crosses back, so its
// calls begin and end outside the endovisor and order none of its files.
func (p *Pipeline) Layers() error {
	if _, err := p.prepare(true); err != nil {
		return err
	}
	mods, err := findModules(p)
	if err != nil {
		return err
	}
	objs, err := moduleObjects(mods[0])
	if err != nil {
		return err
	}
	g, err := readCalls(objs)
	if err != nil {
		return err
	}
	allowName := filepath.Join(p.proto, "guest", "layers.allow")
	allow, err := readLayersAllow(allowName)
	if err != nil {
		return err
	}
	var bad []string
	largest := 1
	for _, c := range g.cycles() {
		largest = max(largest, len(c))
		if len(c) <= maxCycle || allow[strings.Join(c, " ")] {
			continue
		}
		bad = append(bad, fmt.Sprintf("%d files call each other: %s\n%s", len(c), strings.Join(c, " "), g.describe(c)))
	}
	if len(bad) > 0 {
		return fmt.Errorf("layers: %s (a cycle of more than %d files, not as %s lists it)",
			strings.Join(bad, "\n"), maxCycle, allowName)
	}
	p.logf("layers: %d endovisor files; the largest set that calls itself in a cycle has %d", len(g.files), largest)
	return nil
}

// maxCycle is the most files a cycle of calls may hold unlisted.
const maxCycle = 3

// callGraph is which file calls which, and through which functions.
type callGraph struct {
	files []string
	calls map[string]map[string][]string // caller file -> callee file -> functions
}

// kbuildObjs are the objects of a Kbuild NAME-y list.
var kbuildObjs = regexp.MustCompile(`([A-Za-z0-9_/]+)\.o\b`)

// moduleObjects are the objects the module's Kbuild links into it from
// its own directory (the endovisor's C, not the stub's assembly).
func moduleObjects(m module) ([]string, error) {
	b, err := os.ReadFile(m.kbuild)
	if err != nil {
		return nil, err
	}
	list := regexp.MustCompile(`(?ms)^` + regexp.QuoteMeta(m.name) + `-y\s*:=(.*?)(?:^\S|\z)`).FindSubmatch(b)
	if list == nil {
		return nil, fmt.Errorf("%s: no '%s-y :=' list", m.kbuild, m.name)
	}
	var objs []string
	own := filepath.Base(filepath.Dir(m.kbuild)) + "/"
	for _, o := range kbuildObjs.FindAllSubmatch(list[1], -1) {
		if strings.HasPrefix(string(o[1]), own) {
			objs = append(objs, filepath.Join(m.dir, string(o[1])+".o"))
		}
	}
	return objs, nil
}

// readCalls reads each object's symbols: the functions it defines, and
// those it references undefined, which another object of the list may
// define.  A file is named by its object's base name.
func readCalls(objs []string) (*callGraph, error) {
	g := &callGraph{calls: map[string]map[string][]string{}}
	defines := map[string]string{}
	uses := map[string][]string{}
	for _, o := range objs {
		f, err := elf.Open(o)
		if err != nil {
			return nil, fmt.Errorf("layers: %w (build first)", err)
		}
		syms, err := f.Symbols()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("layers: %s: %w", o, err)
		}
		name := strings.TrimSuffix(filepath.Base(o), ".o")
		g.files = append(g.files, name)
		g.calls[name] = map[string][]string{}
		for _, s := range syms {
			bind := elf.ST_BIND(s.Info)
			if bind != elf.STB_GLOBAL && bind != elf.STB_WEAK {
				continue
			}
			switch {
			case s.Section == elf.SHN_UNDEF:
				uses[name] = append(uses[name], s.Name)
			case elf.ST_TYPE(s.Info) == elf.STT_FUNC:
				defines[s.Name] = name
			}
		}
	}
	for _, a := range g.files {
		for _, fn := range uses[a] {
			if b, ok := defines[fn]; ok && b != a {
				g.calls[a][b] = append(g.calls[a][b], fn)
			}
		}
	}
	return g, nil
}

// cycles are the graph's strongly connected components of more than one
// file (Tarjan's algorithm), each sorted, largest first.
func (g *callGraph) cycles() [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range slices.Sorted(maps.Keys(g.calls[v])) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			c = append(c, w)
			if w == v {
				break
			}
		}
		if len(c) > 1 {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	for _, v := range g.files {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// describe lists the calls between the files of cycle c, a line per
// caller and callee.
func (g *callGraph) describe(c []string) string {
	in := map[string]bool{}
	for _, f := range c {
		in[f] = true
	}
	var b strings.Builder
	for _, a := range c {
		for _, callee := range slices.Sorted(maps.Keys(g.calls[a])) {
			if in[callee] {
				fns := append([]string(nil), g.calls[a][callee]...)
				sort.Strings(fns)
				fmt.Fprintf(&b, "  %s -> %s: %s\n", a, callee, strings.Join(fns, ", "))
			}
		}
	}
	return b.String()
}

// readLayersAllow reads the cycles layers.allow keeps: a line each, its
// files (in any order) before a colon and why after it.
func readLayersAllow(name string) (map[string]bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	allow := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		files, why, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(why) == "" || len(strings.Fields(files)) <= maxCycle {
			return nil, fmt.Errorf("%s:%d: want 'FILE FILE FILE FILE ...: why', a cycle of more than %d files", name, n, maxCycle)
		}
		c := strings.Fields(files)
		sort.Strings(c)
		allow[strings.Join(c, " ")] = true
	}
	return allow, sc.Err()
}
