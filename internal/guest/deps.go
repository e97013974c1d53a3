package guest

import (
	"crypto/md5"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// busyboxPath is the busybox that Debian's busybox-static installed, checked
// byte for byte against the package's own md5sums: the linux kernel proper
// runs it as a tenant, and it must be the binary the package ships, not
// whatever a machine happens to have in /bin.
func busyboxPath() (string, error) {
	return packageFile("busybox-static", "/bin/busybox")
}

// packageFile finds the file of the installed Debian package pkg whose path
// ends in suffix and checks it against dpkg's record of the package's
// md5sums.
func packageFile(pkg, suffix string) (string, error) {
	out, err := exec.Command("dpkg-query", "-L", pkg).Output()
	if err != nil {
		return "", fmt.Errorf("%s is not installed (dpkg-query -L: %v)", pkg, err)
	}
	path := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(l, suffix) {
			path = l
			break
		}
	}
	if path == "" {
		return "", fmt.Errorf("%s installs no file ending in %s", pkg, suffix)
	}
	sums, _ := filepath.Glob("/var/lib/dpkg/info/" + pkg + "*.md5sums")
	want := ""
	for _, name := range sums {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			sum, file, ok := strings.Cut(l, "  ")
			if ok && "/"+strings.TrimPrefix(file, "/") == path {
				want = sum
			}
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	got := fmt.Sprintf("%x", md5.Sum(data))
	if want == "" || got != want {
		return "", fmt.Errorf("%s is not as %s ships it (md5 %s, the package's %q)", path, pkg, got, want)
	}
	return path, nil
}

var deps = []dep{
	{"qemu-system-x86", onPath("qemu-system-x86_64")},
	{"busybox-static", staticBusybox},
	{"user-mode-linux", fileExists("/usr/bin/linux.uml")},
	{"gcc", onPath("gcc")},
	{"make", onPath("make")},
	{"libc6-dev", fileExists("/usr/lib/x86_64-linux-gnu/libc.a")},
	{"libelf1", fileExists("/usr/lib/x86_64-linux-gnu/libelf.so.1")},
	{"debian-archive-keyring", fileExists("/usr/share/keyrings/debian-archive-keyring.gpg")},
	{"sparse", onPath("sparse")},
	{"xz-utils", onPath("xz")},
	{"shellcheck", onPath("shellcheck")},
}

// kernelBuildDeps are what building a kernel from source needs beyond
// deps (make debug-kernel): Kconfig's lexer and parser, the headers of
// objtool's libelf, and bc for the generated timeconst.h.  The module
// signing key needs openssl's headers.
var kernelBuildDeps = []dep{
	{"flex", onPath("flex")},
	{"bison", onPath("bison")},
	{"bc", onPath("bc")},
	{"libelf-dev", fileExists("/usr/include/libelf.h")},
	{"libssl-dev", fileExists("/usr/include/openssl/evp.h")},
}

// ensureDeps installs the packages of want that are missing, when run as
// root, and otherwise says exactly what to install.
func (p *Pipeline) ensureDeps(want []dep) error {
	var missing []string
	for _, d := range want {
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
	for _, d := range want {
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
