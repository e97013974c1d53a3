package guest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func graphOf(edges ...string) *callGraph {
	g := &callGraph{calls: map[string]map[string][]string{}}
	for _, e := range edges {
		a, b, _ := strings.Cut(e, ">")
		for _, f := range []string{a, b} {
			if g.calls[f] == nil {
				g.files = append(g.files, f)
				g.calls[f] = map[string][]string{}
			}
		}
		g.calls[a][b] = append(g.calls[a][b], "fn_"+b)
	}
	return g
}

func TestCycles(t *testing.T) {
	// a ring of four, a pair beside it, and a file below both.
	g := graphOf("a>b", "b>c", "c>d", "d>a", "a>low", "x>y", "y>x", "x>low")
	got := g.cycles()
	want := [][]string{{"a", "b", "c", "d"}, {"x", "y"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cycles = %v, want %v", got, want)
	}
	if d := g.describe(got[1]); d != "  x -> y: fn_y\n  y -> x: fn_x\n" {
		t.Errorf("describe = %q", d)
	}
	if c := graphOf("a>b", "b>c", "a>c").cycles(); len(c) != 0 {
		t.Errorf("a graph without a ring has cycles %v", c)
	}
}

func TestReadLayersAllow(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "layers.allow")
	os.WriteFile(name, []byte("# why\nd c b a: a ring\n"), 0o644)
	allow, err := readLayersAllow(name)
	if err != nil || !allow["a b c d"] {
		t.Fatalf("readLayersAllow = %v, %v", allow, err)
	}
	for _, bad := range []string{"a b c d\n", "a b c: three need no line\n", "a b c d:\n"} {
		os.WriteFile(name, []byte(bad), 0o644)
		if _, err := readLayersAllow(name); err == nil || !strings.Contains(err.Error(), "layers.allow:1:") {
			t.Errorf("%q: err = %v, want one naming line 1", bad, err)
		}
	}
}
