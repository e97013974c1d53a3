package guest

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A module is one Kbuild file in prototype/ and the module it builds.
type module struct {
	name   string // evk_hello
	kbuild string // prototype/kernels/hello/Kbuild
	dir    string // its build directory under .build/kbuild/
}

var objM = regexp.MustCompile(`(?m)^obj-m\s*:=\s*(\S+)\.o\s*$`)

// findModules lists the endovisor first (the others link against its
// symbols), then every sandbox kernel in prototype/kernels/.
func findModules(p *Pipeline) ([]module, error) {
	kbuilds, _ := filepath.Glob(filepath.Join(p.proto, "kernels", "*", "Kbuild"))
	sort.Strings(kbuilds)
	kbuilds = append([]string{filepath.Join(p.proto, "endovisor", "Kbuild")}, kbuilds...)
	var mods []module
	for _, kb := range kbuilds {
		b, err := os.ReadFile(kb)
		if err != nil {
			return nil, err
		}
		m := objM.FindSubmatch(b)
		if m == nil {
			return nil, fmt.Errorf("%s: no 'obj-m := NAME.o' line", kb)
		}
		name := string(m[1])
		mods = append(mods, module{name: name, kbuild: kb, dir: filepath.Join(p.build, "kbuild", name)})
	}
	return mods, nil
}

// mirror fills dir with a link to every C, assembly, header and make
// fragment of prototype/, and every shell script (a module may generate a
// header with one), at the same relative path, so that Kbuild writes its
// objects into dir and never into the source tree.
func mirror(p *Pipeline, dir string) error {
	want := map[string]bool{}
	err := filepath.WalkDir(p.proto, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == p.build || path == p.cache {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".c", ".S", ".h", ".mk", ".sh":
		default:
			return nil
		}
		rel, _ := filepath.Rel(p.proto, path)
		want[rel] = true
		link := filepath.Join(dir, rel)
		if cur, err := os.Readlink(link); err == nil && cur == path {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			return err
		}
		os.Remove(link)
		return os.Symlink(path, link)
	})
	if err != nil {
		return err
	}
	// Drop links to sources that no longer exist.
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !want[rel] {
			return os.Remove(path)
		}
		return nil
	})
}

// buildModule runs Kbuild for one module; a compiler, objtool or modpost
// warning fails the build, as an error would.
func buildModule(p *Pipeline, k *kernel, m module, extraSymbols string, tenants []string) error {
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return err
	}
	if err := mirror(p, m.dir); err != nil {
		return err
	}
	if err := placeTenants(m.dir, tenants); err != nil {
		return err
	}
	kb, err := os.ReadFile(m.kbuild)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(m.dir, "Kbuild"), kb, 0o644); err != nil {
		return err
	}
	return kbuild(k, m, extraSymbols)
}

// kbuild runs Kbuild's modules target for one module whose sources are in
// place, with extra make variables; a warning fails it, as an error would.
func kbuild(k *kernel, m module, extraSymbols string, extra ...string) error {
	args := []string{"-C", k.kdir, "M=" + m.dir, "CONFIG_DEBUG_INFO_BTF_MODULES=", "-j2", "modules"}
	if extraSymbols != "" {
		args = append(args, "KBUILD_EXTRA_SYMBOLS="+extraSymbols)
	}
	out, err := output("", nil, "make", append(args, extra...)...)
	if err != nil {
		return fmt.Errorf("building %s:\n%s", m.name, out)
	}
	if w := warnings(out); w != "" {
		forgetWarned(w)
		return fmt.Errorf("building %s: warnings are errors here:\n%s", m.name, w)
	}
	return nil
}

// warnedSource matches a compiler's diagnostic: the C file it is about.
var warnedSource = regexp.MustCompile(`^(/\S+)\.c:\d+:\d+: `)

// forgetWarned removes the object of each C file the compiler warned
// about.  Make keeps an object whose compiler only warned, so without
// this the next build would find it up to date and pass in silence.
func forgetWarned(w string) {
	for _, l := range strings.Split(w, "\n") {
		if m := warnedSource.FindStringSubmatch(l); m != nil {
			os.Remove(m[1] + ".o")
		}
	}
}

// Sparse runs sparse, the kernel's checker of its own annotations (__user,
// __rcu and __iomem address spaces, lock contexts, endianness), over every
// module's sources as Kbuild compiles them (C=2: each file, built or not),
// against the pinned headers; a warning or error of its fails, as a
// compiler's does.
func (p *Pipeline) Sparse() error {
	k, err := p.prepare(true)
	if err != nil {
		return err
	}
	mods, err := findModules(p)
	if err != nil {
		return err
	}
	symvers := ""
	for i, m := range mods {
		if err := kbuild(k, m, symvers, "C=2", "CHECK=sparse"); err != nil {
			return fmt.Errorf("sparse: %w", err)
		}
		if i == 0 {
			symvers = filepath.Join(m.dir, "Module.symvers")
		}
	}
	p.logf("sparse: %d modules, no warnings", len(mods))
	return nil
}

func warnings(out string) string {
	var w []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "warning:") || strings.Contains(l, "WARNING:") || strings.Contains(l, "error:") {
			w = append(w, l)
		}
	}
	return strings.Join(w, "\n")
}

// sandboxImports are the only undefined symbols a sandbox kernel's module
// may have: its registration with the endovisor, the crossings it calls
// every service through (ev_stub_cross and ev_stub_cross_NAME, the
// endovisor's), and the Spectre thunks the compiler calls.  The string
// functions the compiler may call for a struct's copy are vOSTD's own,
// in the module (vostd/string.c).  Anything else would be a call into
// Linux that bypasses the crossings.
var sandboxImports = regexp.MustCompile(`^(ev_register_kernel|ev_unregister_kernel|ev_stub_cross(_[a-z_]+)?|__x86_indirect_thunk_r\w+|__x86_return_thunk)$`)

// checkSandboxImports fails if a sandbox kernel's module would link against
// anything of Linux's.
func checkSandboxImports(ko string) error {
	f, err := elf.Open(ko)
	if err != nil {
		return err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return err
	}
	var bad []string
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF && s.Name != "" && !sandboxImports.MatchString(s.Name) {
			bad = append(bad, s.Name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s imports %s from Linux; a sandbox kernel reaches Linux only through the crossings",
			filepath.Base(ko), strings.Join(bad, ", "))
	}
	return nil
}

// buildAll builds every module, every guest program and the initramfs.
func buildAll(p *Pipeline, k *kernel) error {
	mods, err := findModules(p)
	if err != nil {
		return err
	}
	out := filepath.Join(p.build, "modules")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tenants, err := buildTenants(p)
	if err != nil {
		return err
	}
	rootfs, err := packRootfs(p)
	if err != nil {
		return err
	}
	tenants = append(tenants, rootfs)
	var kos []string
	symvers := ""
	for i, m := range mods {
		if err := buildModule(p, k, m, symvers, tenants); err != nil {
			return err
		}
		ko := filepath.Join(m.dir, m.name+".ko")
		if i == 0 {
			symvers = filepath.Join(m.dir, "Module.symvers")
		} else if err := checkSandboxImports(ko); err != nil {
			return err
		}
		kos = append(kos, ko)
	}
	p.logf("built %d modules against %s", len(mods), k.version)
	progs, err := buildPrograms(p)
	if err != nil {
		return err
	}
	// The linux kernel proper's C programs run on Linux too, in the same boot.
	linuxProgs, _ := filepath.Glob(filepath.Join(p.build, "linuxabi", "*"))
	progs = append(progs, linuxProgs...)
	return packInitramfs(p, kos, progs)
}

// tenantFlags build a tenant: a static user-mode executable with no C
// library, linked in the tenant region (prototype/tenants/abi.h), its code
// not position-independent, since the proc kernel loads it at the addresses
// its program headers name; their stacks and mmap areas are above 4 GiB, hence the large
// code model.
var tenantFlags = []string{"-static", "-nostdlib", "-ffreestanding", "-fno-pie", "-no-pie",
	"-mcmodel=large", "-fno-stack-protector", "-fcf-protection=none", "-O2",
	"-Wall", "-Wextra", "-Werror", "-Wl,--build-id=none", "-Wl,-z,noexecstack",
	"-Wl,-z,max-page-size=4096", "-Wl,-Ttext-segment=0x800000"}

// buildTenants builds every prototype/tenants/*.c, with the tenants'
// library, into .build/tenants/NAME.elf, and returns those paths.
func buildTenants(p *Pipeline) ([]string, error) {
	dir := filepath.Join(p.proto, "tenants")
	out := filepath.Join(p.build, "tenants")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	lib, _ := filepath.Glob(filepath.Join(dir, "lib", "*.[cS]"))
	progs, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	var built []string
	for _, src := range progs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		elf := filepath.Join(out, name+".elf")
		args := append(append([]string{}, tenantFlags...), "-o", elf, src)
		args = append(args, lib...)
		if out, err := output("", nil, "gcc", args...); err != nil {
			return nil, fmt.Errorf("building tenant %s:\n%s", name, out)
		}
		built = append(built, elf)
	}
	return built, nil
}

// placeTenants copies the tenant images into a module's build tree, where
// blobs.S includes them, and removes the objects that include them, which
// Kbuild would not know to rebuild when only an image changed.
func placeTenants(dir string, tenants []string) error {
	for _, t := range tenants {
		b, err := os.ReadFile(t)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "tenants", filepath.Base(t)), b, 0o644); err != nil {
			return err
		}
	}
	blobs, _ := filepath.Glob(filepath.Join(dir, "kernels", "*", "blobs.o"))
	rootfs, _ := filepath.Glob(filepath.Join(dir, "kernels", "*", "rootfs.o"))
	blobs = append(blobs, rootfs...)
	for _, b := range blobs {
		os.Remove(b)
	}
	return nil
}

// A program is a static guest binary built from one directory's C files.
type program struct {
	name string // its name in the guest's /bin
	dir  string // under prototype/
}

var programs = []program{
	{"launcher", "launcher"},
	{"baseline", "baseline"},
	{"killwait", "killwait"},
	{"stopwait", "stopwait"},
	{"scale", "scale"},
}

func buildPrograms(p *Pipeline) ([]string, error) {
	bin := filepath.Join(p.build, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	var built []string
	for _, pr := range programs {
		srcs, _ := filepath.Glob(filepath.Join(p.proto, pr.dir, "*.c"))
		if len(srcs) == 0 {
			return nil, fmt.Errorf("no C sources in %s", filepath.Join(p.proto, pr.dir))
		}
		exe := filepath.Join(bin, pr.name)
		args := append([]string{"-static", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread",
			"-I", filepath.Join(p.proto, "abi"), "-o", exe}, srcs...)
		if out, err := output("", nil, "gcc", args...); err != nil {
			return nil, fmt.Errorf("building %s:\n%s", pr.name, out)
		}
		built = append(built, exe)
	}
	return built, nil
}
