package guest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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

// packInitramfs writes .build/initramfs.cpio: busybox, /init and the suites
// from prototype/guest/, the guest programs in /bin and the modules in
// /lib/ev.
func packInitramfs(p *Pipeline, kos, progs []string) error {
	bb, err := busyboxPath()
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
	for _, d := range []string{"bin", "dev", "proc", "sys", "tmp", "lib", "lib/ev", "suites"} {
		c.entry(d, modeDir|0o755, 0, 0, nil)
	}
	c.entry("dev/console", modeChr|0o600, 5, 1, nil)
	c.file("init", filepath.Join(p.proto, "guest", "init"), 0o755)
	c.file("bin/busybox", bb, 0o755)
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
