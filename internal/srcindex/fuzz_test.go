package srcindex

import (
	"strings"
	"testing"
)

// FuzzScan reads arbitrary text as C and as assembly: a source half
// edited (a brace not yet closed) must not stop mkbook, and every
// definition lies within the file, its first line before its last.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"struct {",
		"int f(void)\n{\n\tif (x) {\n",
		"typedef struct a { int b; struct { int c; } d; } e, *f;\n#define X \\\n\t{ 1 }\n",
		"#if 0\nint g(void) {\n#else\nint g(int x) {\n#endif\n\treturn 0;\n}\n",
		"enum { A = 1, B, };\nint (*tab[3])(void);\nvoid (*signal(int, void (*)(int)))(int)\n{\n}\n",
		"SYM_FUNC_START(x)\n\tret\nSYM_FUNC_END(x)\n\t.globl y\ny:\n.macro m\n.endm\n\t.type z, @function\nz:\n\t.size z, .-z\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		n := strings.Count(src, "\n") + 1
		for _, ds := range [][]*Def{ScanC(src), ScanAsm(src)} {
			for _, d := range ds {
				if d.Start < 1 || d.End < d.Start || d.End > n {
					t.Fatalf("%s %s spans lines %d-%d of %d", d.Kind, d.Name, d.Start, d.End, n)
				}
			}
		}
	})
}
