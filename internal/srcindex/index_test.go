package srcindex

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// defLine is a definition as the tests write it: name kind start-end
// [container].
func defLine(d *Def) string {
	s := fmt.Sprintf("%s %s %d-%d", d.Name, d.Kind, d.Start, d.End)
	if d.Container != "" {
		s += " [" + d.Container + "]"
	}
	return s
}

func TestScanC(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"function, return type above", "static long\nev_map(int a,\n\tint b)\n{\n\treturn a + b;\n}\n",
			[]string{"ev_map function 1-6"}},
		{"one-line function", "static inline long yield(void) { return 0; }\n",
			[]string{"yield function 1-1"}},
		{"prototype and definition", "long f(void);\nlong f(void)\n{\n}\n",
			[]string{"f declaration 1-1", "f function 2-4"}},
		{"attributes", "__printf(2, 3) void ev_log(int x, const char *fmt, ...);\nstatic int __init ev_init(void)\n{\n}\nstatic u64 hot __read_mostly;\n",
			[]string{"ev_log declaration 1-1", "ev_init function 2-4", "hot variable 5-5"}},
		{"struct with members", "struct ev_vm {\n\tstruct mutex lock;\n\tlong (*map)(long va, int prot);\n\tu64 a, b[4];\n\tunsigned int bit : 1;\n\tunion {\n\t\tint x;\n\t\tlong y;\n\t};\n\tstruct ev_inner {\n\t\tint z;\n\t} in;\n};\n",
			[]string{"ev_vm struct 1-13", "lock member 2-2 [struct ev_vm]", "map member 3-3 [struct ev_vm]",
				"a member 4-4 [struct ev_vm]", "b member 4-4 [struct ev_vm]", "bit member 5-5 [struct ev_vm]",
				"x member 7-7 [struct ev_vm]", "y member 8-8 [struct ev_vm]", "ev_inner struct 10-12",
				"z member 11-11 [struct ev_inner]", "in member 12-12 [struct ev_vm]"}},
		{"enum", "enum kl_prio {\n\tKL_LOW,\n\tKL_HIGH = 2,\n\tKL_NR\n};\nenum { ANON_A, ANON_B };\n",
			[]string{"kl_prio enum 1-5", "KL_LOW enum constant 2-2 [enum kl_prio]", "KL_HIGH enum constant 3-3 [enum kl_prio]",
				"KL_NR enum constant 4-4 [enum kl_prio]", "ANON_A enum constant 6-6", "ANON_B enum constant 6-6"}},
		{"macros", "#define EV_A 1\n#define EV_B(x)\t\\\n\tdo { (x); } while (0)\n# define EV_C\n#ifndef X\n#endif\n",
			[]string{"EV_A macro 1-1", "EV_B macro 2-3", "EV_C macro 4-4"}},
		{"typedefs", "typedef long (*ev_fn)(void *);\ntypedef struct {\n\tint a;\n} ev_pair_t;\ntypedef unsigned long u64;\n",
			[]string{"ev_fn typedef 1-1", "a member 3-3", "ev_pair_t typedef 2-4", "u64 typedef 5-5"}},
		{"globals", "static int a = 1, b;\nconst struct ops ev_ops = {\n\t.f = g,\n\t.h = { 1, 2 },\n};\nextern long ext;\nstruct fwd;\nchar *names[] = { \"x\", \"}\" };\n",
			[]string{"a variable 1-1", "b variable 1-1", "ev_ops variable 2-5", "ext declaration 6-6", "names variable 8-8"}},
		{"Linux's macros", "DEFINE_PER_CPU(struct ev_vcpu *, ev_cur);\nstatic DEFINE_MUTEX(ev_lock);\nstatic LIST_HEAD(ev_list);\nDECLARE_PER_CPU(struct ev_vcpu *, ev_cur);\nstatic DECLARE_RWSEM(ev_sem);\nmodule_init(ev_init);\nEXPORT_SYMBOL_GPL(ev_init);\n",
			[]string{"ev_cur variable 1-1", "ev_lock variable 2-2", "ev_list variable 3-3", "ev_cur declaration 4-4", "ev_sem variable 5-5"}},
		{"comments and strings hide braces", "/* struct no { */\nstatic const char *s = \"{ int no; }\"; // {\nchar c = '{';\nint f(void)\n{\n\tif (1) { /* } */ }\n\treturn '}';\n}\n",
			[]string{"s variable 2-2", "c variable 3-3", "f function 4-8"}},
		{"a struct variable", "static struct {\n\tint n;\n} counts[4];\n",
			[]string{"n member 2-2", "counts variable 1-3"}},
		{"tests a kernel names", "void f(void)\n{\n\tcheck(\"kick_race\", ok);\n\t/* check(\"said\", 1) */\n\texpect(\"kick_race\", 1);\n\tprint(\"check(\\\"no\\\")\");\n}\n",
			[]string{"kick_race test 3-3", "f function 1-7"}},
		{"macros within a function", "int f(void)\n{\n#define INNER 1\n\treturn INNER;\n}\n",
			[]string{"INNER macro 3-3", "f function 1-5"}},
		{"an #if 0 block, and the first branch of an #if", "#if 0\nint g(void) {\n#define GONE 1\n#else\n#define KEPT 1\n#endif\nint f(void)\n{\n}\n#ifdef A\nint h(int a) {\n#elif B\nint h(long b) {\n#else\nint h(void) {\n#define NOT 1\n#endif\n\treturn 0;\n}\nint after;\n",
			[]string{"KEPT macro 5-5", "f function 7-9", "h function 11-19", "after variable 20-20"}},
		{"extern \"C\"", "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\nint g(void)\n{\n}\n#ifdef __cplusplus\n}\n#endif\nint after;\n",
			[]string{"f declaration 4-4", "g function 5-7", "after variable 11-11"}},
		{"declarators in parentheses", "void (*ev_handler(int sig, void (*fn)(int)))(int)\n{\n}\nvoid (*ev_signal(int))(int);\nint (*tab[3])(void);\ntypedef int (ev_fn_t)(void);\n",
			[]string{"ev_handler function 1-3", "ev_signal declaration 4-4", "tab variable 5-5", "ev_fn_t typedef 6-6"}},
		{"a macro's call without a semicolon before a definition", "DEFINE_THING(ev_thing)\nstatic int ev_after(void)\n{\n}\nDEFINE_ONE(a)\nDEFINE_TWO(b)\nint ev_var;\n",
			[]string{"ev_after function 2-4", "ev_var variable 7-7"}},
		{"a line comment continued by a backslash", "// not code \\\nint hidden(void) { }\nint f(void) { return 0; }\n",
			[]string{"f function 3-3"}},
		{"a named struct inside a typedef, a macro whose body has braces", "#define EV_INIT { .a = 1, }\ntypedef struct ev_pair {\n\tint a;\n} ev_pair_t, *ev_pair_p;\nstatic ev_pair_t ev_one = EV_INIT;\n",
			[]string{"EV_INIT macro 1-1", "ev_pair struct 2-4", "a member 3-3 [struct ev_pair]", "ev_pair_t typedef 2-4", "ev_pair_p typedef 2-4", "ev_one variable 5-5"}},
		{"functions definition macros make, as Linux's cross-referencers read SYSCALL_DEFINE",
			"EV_SERVICE_DEFINE2(mem_alloc, unsigned long, size, unsigned long, flags)\n{\n\treturn 0;\n}\n" +
				"EV_SERVICE_DEFINE0(nop)\n{\n}\nSYSCALL_DEFINE3(ev_kill, pid_t, pid, int, sig,\n\t\tint, flags)\n{\n}\n" +
				"DEFINE_THING(x)\nstatic int after(void) { return 0; }\nLX_SYSCALL_DEFINE0(getpid)\n{\n}\n",
			[]string{"ev_svc_mem_alloc function 1-4", "ev_svc_nop function 5-7", "sys_ev_kill function 8-11", "after function 13-13",
				"lx_sys_getpid function 14-16"}},
		{"the list of the services", "/* EV_SERVICE(9, GONE, gone, 0) */\nEV_SERVICE(0, NOP, nop, 0)\t/* (): 0 */\n#if 0\nEV_SERVICE(1, OLD, old, 0)\n#endif\nEV_SERVICE(1, VM_MAP, vm_map, 2)\t/* (vm, va): 0 */\n",
			[]string{"EV_SVC_NOP enum constant 2-2", "nop service 2-2", "EV_SVC_VM_MAP enum constant 6-6", "vm_map service 6-6"}},
		{"a brace not closed at the end", "struct ev_half {\n\tint a;\n",
			[]string{"ev_half struct 1-2", "a member 2-2 [struct ev_half]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range ScanC(tt.src) {
				got = append(got, defLine(d))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

func TestScanOthers(t *testing.T) {
	asm := `#include "x.h"
#define TENANT(name) \
	.globl tenant_##name
.macro EV_UNWIND
	popq %rbx
.endm
	.text
SYM_FUNC_START(ev_enter)
	ret
SYM_FUNC_END(ev_enter)

SYM_CODE_START(ev_resume)
	jmp 1f /* } */
1:	ret
SYM_CODE_END(ev_resume)
	.globl	first
	.globl	second
first:
	nop
local:
	nop

second:
	ret
	.size second, .-second
after:
	.type	helper, @function
helper:
.Lagain:
	jmp	.Lagain
	.size	helper, .-helper
SYM_FUNC_START_LOCAL(ev_local)
2:	ret
SYM_FUNC_END(ev_local)
ENTRY(ev_old)
	ret
END(ev_old)
`
	gosrc := `package p

// F does.
func F() {
}

type T struct{ a int }

func (t *T) M() {}

var (
	V = 1
	W = 2
)

const C = 3

type Stack[T any] struct{ s []T }

func (s *Stack[T]) Push(v T) {}

func (m Pair[K, V]) Get(k K) V {
	var v V
	return v
}
`
	shell := "#!/bin/sh\nfail() {\n\techo x\n\t{ nested; }\n}\none() { true; }\n"
	mk := ".PHONY: all\nall: book\n\nbook hello:\n\tgo run x \\\n\t  y\n$(BUILD)/x.log:\n\ttrue\nV := 1\n"
	gd, err := ScanGo("p.go", []byte(gosrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		defs []*Def
		want []string
	}{
		{"asm", ScanAsm(asm), []string{"TENANT macro 2-3", "EV_UNWIND asm macro 4-6", "ev_enter asm symbol 8-10",
			"ev_resume asm symbol 12-15", "first asm symbol 18-21", "second asm symbol 23-25",
			"helper asm symbol 28-31", "ev_local asm symbol 32-34", "ev_old asm symbol 35-37"}},
		{"go", gd, []string{"F function 4-5", "T type 7-7", "M method 9-9 [T]", "V variable 12-12", "W variable 13-13", "C const 16-16",
			"Stack type 18-18", "Push method 20-20 [Stack]", "Get method 22-25 [Pair]"}},
		{"shell", scanShell(strings.Split(shell, "\n")), []string{"fail shell function 2-5", "one shell function 6-6"}},
		{"make", scanMake(strings.Split(mk, "\n")), []string{"all make target 2-2", "book make target 4-6", "hello make target 4-6"}},
	} {
		var got []string
		for _, d := range tt.defs {
			got = append(got, defLine(d))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got\n\t%s\nwant\n\t%s", tt.name, strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
		}
	}
}

func TestLookup(t *testing.T) {
	ix := &Index{ByName: map[string][]*Def{}}
	for _, d := range []*Def{
		{Name: "ev_vm", Kind: KindStruct, File: "a/vm.c"},
		{Name: "lock", Kind: KindMember, File: "a/vm.c", Container: "struct ev_vm"},
		{Name: "lock", Kind: KindMember, File: "a/vcpu.h", Container: "struct ev_vcpu"},
		{Name: "run", Kind: KindFunc, File: "a/x.c"},
		{Name: "run", Kind: KindDecl, File: "a/x.h"},
		{Name: "check", Kind: KindMethod, File: "c/m.go", Container: "book", Pkg: "main"},
		{Name: "Within", Kind: KindFunc, File: "t/f.go", Pkg: "figlog"},
		{Name: "only_tag", Kind: KindStruct, File: "a/t.h"},
		{Name: "ev_vm", Kind: KindFunc, File: "a/f.c"},
	} {
		ix.ByName[d.Name] = append(ix.ByName[d.Name], d)
	}
	names := func(ds []*Def) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.String())
		}
		return strings.Join(s, "; ")
	}
	for _, tt := range []struct{ name, qual, want string }{
		{"struct ev_vm", "", "struct ev_vm at a/vm.c:0"},
		{"ev_vm", "", "ev_vm at a/f.c:0"},
		{"only_tag", "", "struct only_tag at a/t.h:0"},
		{"run()", "", "run at a/x.c:0"},
		{"lock", "", "lock in struct ev_vm at a/vm.c:0; lock in struct ev_vcpu at a/vcpu.h:0"},
		{"lock", "struct ev_vcpu", "lock in struct ev_vcpu at a/vcpu.h:0"},
		{"lock", "vm.c", "lock in struct ev_vm at a/vm.c:0"},
		{"lock", "a/", "lock in struct ev_vm at a/vm.c:0; lock in struct ev_vcpu at a/vcpu.h:0"},
		{"book.check", "", "book.check at c/m.go:0"},
		{"figlog.Within", "", "Within at t/f.go:0"},
		{"union ev_vm", "", ""},
	} {
		got := Best(ix.Lookup(tt.name))
		if tt.qual != "" {
			got = Qualified(got, tt.qual)
		}
		if names(got) != tt.want {
			t.Errorf("%s in %q: got %q, want %q", tt.name, tt.qual, names(got), tt.want)
		}
	}
	if c := Closest("ev_stub_crosss", []string{"ev_stub_cross", "ev_stub_enter", "vm_map"}); len(c) == 0 || c[0] != "ev_stub_cross" {
		t.Errorf("closest: %q", c)
	}
}

// TestIndexOfTheTree reads the repository's own sources: every C function
// body that opens with a brace at the start of a line is a definition
// found, from a line that names it to a line that closes it, and the
// listings' candidates are where they are.
func TestIndexOfTheTree(t *testing.T) {
	ix, err := Build("../..")
	if err != nil {
		t.Fatal(err)
	}
	opening := regexp.MustCompile(`(?m)^\{`)
	for _, p := range ix.Paths {
		f := ix.Files[p]
		if f.Lang != "c" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../..", p))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range ix.InFile(p) {
			if d.Kind == KindFunc && d.Start != d.End {
				n++
				head := strings.Join(f.Lines[d.Start-1:min(d.Start+2, len(f.Lines))], "\n")
				// A definition macro names its function without the
				// prefix: EV_SERVICE_DEFINE1(vm_destroy, ...) defines
				// ev_svc_vm_destroy.
				named := strings.Contains(head, d.Name)
				for _, df := range definers {
					short, ok := strings.CutPrefix(d.Name, df.prefix)
					named = named || ok && (strings.Contains(head, "("+short+")") || strings.Contains(head, "("+short+","))
				}
				if !named || !strings.HasPrefix(f.Lines[d.End-1], "}") {
					t.Errorf("%s: %s spans %d-%d, from %q to %q", p, d.Name, d.Start, d.End, f.Lines[d.Start-1], f.Lines[d.End-1])
				}
			}
		}
		if want := len(opening.FindAllIndex(data, -1)); n != want {
			t.Errorf("%s: %d functions found, but %d bodies open at a line's start", p, n, want)
		}
	}
	for _, tt := range []struct{ file, name, kind string }{
		{"prototype/stub/cross.S", "ev_stub_cross", KindAsm},
		{"prototype/endovisor/vcpu.c", "ev_cur_vcpu", KindVar},
		{"prototype/endovisor/registry.c", "ev_registry_lock", KindVar},
		{"prototype/kernelet/sched.c", "kl_schedule", KindFunc},
		{"internal/guest/build.go", "buildTenants", KindFunc},
		{"Makefile", "bench", KindTarget},
	} {
		found := false
		for _, d := range ix.Lookup(tt.name) {
			found = found || d.File == tt.file && d.Kind == tt.kind
		}
		if !found {
			t.Errorf("%s: no %s %s", tt.file, tt.kind, tt.name)
		}
	}
	t.Logf("%d files, %d definitions", len(ix.Paths), len(ix.Defs))
}

// TestIndexSkips: a file below the roots that is too big, not text, or a
// symbolic link is no source, and the index says why.
func TestIndexSkips(t *testing.T) {
	root := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("prototype/ok.c", []byte("int ev_ok(void)\n{\n}\n"))
	write("prototype/big.c", []byte(strings.Repeat("int a;\n", maxSourceFile/7+1)))
	write("prototype/bin.c", []byte("int f(void);\n\x00\x01"))
	write("prototype/latin1.c", []byte("/* caf\xe9 */\n"))
	write("prototype/testdata/fixture.c", []byte("int fixture;\n"))
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "prototype/out.c")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "prototype/etc")); err != nil {
		t.Fatal(err)
	}
	ix, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ix.Paths, " ") != "prototype/ok.c" {
		t.Errorf("sources %q, want only prototype/ok.c", ix.Paths)
	}
	for name, why := range map[string]string{
		"prototype/big.c": "over 1 MiB", "prototype/bin.c": "not UTF-8", "prototype/latin1.c": "not UTF-8",
		"prototype/out.c": "symbolic link", "prototype/etc": "symbolic link",
	} {
		if !strings.Contains(ix.Skipped[name], why) {
			t.Errorf("%s skipped for %q, want %q", name, ix.Skipped[name], why)
		}
	}
}
