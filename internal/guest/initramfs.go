package guest

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// cpio writes an initramfs in the kernel's "newc" cpio format: no cpio
// tool, no root, and device nodes cost nothing to write.
type cpio struct {
	w   *bufio.Writer
	ino int
	err error
}

const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeChr  = 0o020000
	modeLink = 0o120000
)

func (c *cpio) entry(name string, mode uint32, rdevMajor, rdevMinor int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	nlink := 1
	if mode&modeDir != 0 {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdevMajor, rdevMinor, len(name)+1, 0)
	c.write([]byte(hdr + name + "\x00"))
	c.pad(len(hdr) + len(name) + 1)
	c.write(data)
	c.pad(len(data))
}

func (c *cpio) write(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

func (c *cpio) pad(n int) {
	c.write(make([]byte, (4-n%4)%4))
}

func (c *cpio) file(name, src string, mode uint32) {
	data, err := os.ReadFile(src)
	if err != nil && c.err == nil {
		c.err = err
	}
	c.entry(name, modeFile|mode, 0, 0, data)
}

// finish ends the archive, writes it out to f, the file at tmp, and puts
// it in place at name: the first error of them all, or nil.
func (c *cpio) finish(f *os.File, tmp, name string) error {
	c.entry("TRAILER!!!", 0, 0, 0, nil)
	if c.err == nil {
		c.err = c.w.Flush()
	}
	if err := f.Close(); c.err == nil {
		c.err = err
	}
	if c.err != nil {
		return c.err
	}
	return os.Rename(tmp, name)
}

// packInitramfs writes .build/initramfs.cpio: busybox, /init and the suites
// from prototype/guest/, the guest programs in /bin, the modules in
// /lib/ev, and the peers linux-perf measures beside the sandbox (gVisor's
// runsc compressed, in /lib/peers).
func packInitramfs(p *Pipeline, kos, progs []string) error {
	bb, err := busyboxPath()
	if err != nil {
		return err
	}
	peer, err := umlFiles()
	if err != nil {
		return err
	}
	runsc, err := buildRunsc(p)
	if err != nil {
		return err
	}
	name := filepath.Join(p.build, "initramfs.cpio")
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	c := &cpio{w: bufio.NewWriter(f)}
	for _, d := range []string{"bin", "dev", "proc", "sys", "tmp", "lib", "lib/ev", "suites",
		"lib64", "lib/x86_64-linux-gnu", "lib/peers"} {
		c.entry(d, modeDir|0o755, 0, 0, nil)
	}
	c.entry("dev/console", modeChr|0o600, 5, 1, nil)
	c.file("init", filepath.Join(p.proto, "guest", "init"), 0o755)
	c.file("bin/busybox", bb, 0o755)
	for _, pf := range peer {
		c.file(pf.guest, pf.host, 0o755)
	}
	c.file("lib/peers/runsc.gz", runsc, 0o644)
	suites, _ := filepath.Glob(filepath.Join(p.proto, "guest", "suites", "*.sh"))
	sort.Strings(suites)
	for _, s := range suites {
		c.file("suites/"+filepath.Base(s), s, 0o644)
	}
	for _, pr := range progs {
		c.file("bin/"+filepath.Base(pr), pr, 0o755)
	}
	for _, ko := range kos {
		c.file("lib/ev/"+filepath.Base(ko), ko, 0o644)
	}
	return c.finish(f, tmp, name)
}

// linkApplets links each of busybox's applets in bin/ to it, as the
// guest's /init does with busybox --install -s /bin, so that a program
// that runs a command by its name or path (/bin/sh for popen and system,
// echo for posix_spawnp) finds it where it would on the guest's Linux; a
// name taken stays as it is.
func linkApplets(c *cpio, bb string, seen map[string]bool) error {
	list, err := output("", nil, bb, "--list")
	if err != nil {
		return err
	}
	for _, name := range strings.Fields(list) {
		if !seen["bin/"+name] {
			c.entry("bin/"+name, modeLink|0o777, 0, 0, []byte("busybox"))
			seen["bin/"+name] = true
		}
	}
	return nil
}

// buildLinuxPrograms builds each prototype/linuxabi/NAME.c with the guest
// toolchain's C library, twice: NAME, static, and NAME-pie, static-PIE, so
// that the linux kernel proper's loader meets both kinds.  A program that
// needs more of the linker (its own entry point) says so in its source
// (sourceLDFlags). The conformance suite's two programs go with them
// (buildConformance).
func buildLinuxPrograms(p *Pipeline) ([]string, error) {
	out := filepath.Join(p.build, "linuxabi")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	srcs, _ := filepath.Glob(filepath.Join(p.proto, "linuxabi", "*.c"))
	var built []string
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		ldflags, err := sourceLDFlags(src)
		if err != nil {
			return nil, err
		}
		for _, v := range []struct{ suffix, flag string }{{"", "-static"}, {"-pie", "-static-pie"}} {
			exe := filepath.Join(out, name+v.suffix)
			args := []string{v.flag, "-O2", "-Wall", "-Wextra", "-Werror",
				"-I", filepath.Join(p.proto, "guest"), "-I", filepath.Join(p.proto, "abi"),
				"-o", exe, src}
			if o, err := output("", nil, "gcc", append(args, ldflags...)...); err != nil {
				return nil, fmt.Errorf("building %s:\n%s", exe, o)
			}
			built = append(built, exe)
		}
	}
	conf, err := buildConformance(p, out)
	if err != nil {
		return nil, err
	}
	return append(built, conf...), nil
}

// sourceLDFlags returns the linker options a C program asks for in its
// own comments, on a line " * ldflags: OPTION..." (each one -Wl,...), so
// that what builds it is written beside what needs it.
func sourceLDFlags(src string) ([]string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	var flags []string
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "* ldflags:")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			if !strings.HasPrefix(f, "-Wl,") {
				return nil, fmt.Errorf("%s: ldflags: %q is not a -Wl, option", src, f)
			}
			flags = append(flags, f)
		}
	}
	return flags, nil
}

// packRootfs writes .build/tenants/rootfs.cpio, the linux kernel proper's
// file system's first contents: every directory, file and symbolic link
// under prototype/rootfs/, Debian's busybox as /bin/busybox with a link
// to it for each applet, the devices and /tmp.
// The linux kernel's module carries it (kernels/linux/rootfs.S).
func packRootfs(p *Pipeline) (string, error) {
	bb, err := busyboxPath()
	if err != nil {
		return "", err
	}
	src := filepath.Join(p.proto, "rootfs")
	out := filepath.Join(p.build, "tenants", "rootfs.cpio")
	f, err := os.Create(out + ".tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(out + ".tmp")
	c := &cpio{w: bufio.NewWriter(f)}
	seen := map[string]bool{}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == src {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		seen[rel] = true
		switch {
		case d.IsDir():
			c.entry(rel, modeDir|0o755, 0, 0, nil)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			c.entry(rel, modeLink|0o777, 0, 0, []byte(target))
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			c.file(rel, path, uint32(info.Mode().Perm()))
		default:
			return fmt.Errorf("%s: only directories, files and links go into the image", path)
		}
		return nil
	})
	if err != nil {
		f.Close()
		return "", err
	}
	for _, d := range []string{"bin", "dev"} {
		if !seen[d] {
			c.entry(d, modeDir|0o755, 0, 0, nil)
		}
	}
	c.file("bin/busybox", bb, 0o755)
	seen["bin/busybox"] = true
	progs, err := buildLinuxPrograms(p)
	if err != nil {
		f.Close()
		return "", err
	}
	for _, pr := range progs {
		c.file("bin/"+filepath.Base(pr), pr, 0o755)
		seen["bin/"+filepath.Base(pr)] = true
	}
	if err := linkApplets(c, bb, seen); err != nil {
		f.Close()
		return "", err
	}
	// The devices the kernel proper has (kernels/linux/dev.c), by Linux's numbers.
	for _, d := range []struct {
		name         string
		major, minor int
	}{{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9},
		{"tty", 5, 0}, {"console", 5, 1}} {
		c.entry("dev/"+d.name, modeChr|0o666, d.major, d.minor, nil)
	}
	// Where programs make their files, writable by all as Linux's are.
	for _, d := range []string{"tmp", "dev/shm"} {
		if !seen[d] {
			c.entry(d, modeDir|0o1777, 0, 0, nil)
		}
	}
	if err := c.finish(f, out+".tmp", out); err != nil {
		return "", err
	}
	return out, nil
}
