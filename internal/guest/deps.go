package guest

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// A dep is one Debian package the pipeline needs and how to tell it is
// there without asking dpkg (the machine may have the file from elsewhere).
type dep struct {
	pkg     string
	present func() bool
}

func onPath(name string) func() bool {
	return func() bool { _, err := exec.LookPath(name); return err == nil }
}

func fileExists(name string) func() bool {
	return func() bool { _, err := os.Stat(name); return err == nil }
}

// staticBusybox reports whether busybox is a static binary: the initramfs
// has no C library for a dynamic one.
func staticBusybox() bool {
	path, err := busyboxPath()
	if err != nil {
		return false
	}
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

func busyboxPath() (string, error) {
	for _, p := range []string{"/bin/busybox", "/usr/bin/busybox"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("busybox not found")
}

var deps = []dep{
	{"qemu-system-x86", onPath("qemu-system-x86_64")},
	{"busybox-static", staticBusybox},
	{"gcc", onPath("gcc")},
	{"make", onPath("make")},
	{"libc6-dev", fileExists("/usr/lib/x86_64-linux-gnu/libc.a")},
	{"libelf1", fileExists("/usr/lib/x86_64-linux-gnu/libelf.so.1")},
	{"debian-archive-keyring", fileExists("/usr/share/keyrings/debian-archive-keyring.gpg")},
}

// ensureDeps installs the missing packages when run as root, and otherwise
// says exactly what to install.
func (p *Pipeline) ensureDeps() error {
	var missing []string
	for _, d := range deps {
		if !d.present() {
			missing = append(missing, d.pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("missing Debian packages; run as root: apt-get install --no-install-recommends %s",
			strings.Join(missing, " "))
	}
	p.logf("installing %s", strings.Join(missing, " "))
	install := func() error {
		return run("", nil, "apt-get", append([]string{"install", "-y", "-q", "--no-install-recommends"}, missing...)...)
	}
	if err := install(); err != nil {
		if err := run("", nil, "apt-get", "update", "-q"); err != nil {
			return err
		}
		if err := install(); err != nil {
			return err
		}
	}
	for _, d := range deps {
		if !d.present() {
			return fmt.Errorf("%s installed but still not usable", d.pkg)
		}
	}
	return nil
}

// run runs a command with its output on stderr, in dir with extra
// environment env.
func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "DEBIAN_FRONTEND=noninteractive")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// output runs a command and returns its combined output.
func output(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
