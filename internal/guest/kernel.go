package guest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// kernel is the unpacked pinned guest kernel.
type kernel struct {
	version string // Debian package version, 6.12.95-1~bpo12+1
	abi     string // 6.12.95+deb12
	kdir    string // the headers tree Kbuild builds against
	vmlinuz string
	debug   bool // the debug kernel (debugkernel.go)
}

// systemMap is the kernel's symbol table: in the debug kernel's tree, or
// beside the pinned kernel's image.
func (k *kernel) systemMap() string {
	if k.debug {
		return filepath.Join(k.kdir, "System.map")
	}
	return strings.Replace(k.vmlinuz, "/boot/vmlinuz-", "/boot/System.map-", 1)
}

// config is the pinned kernel's own config, in its unpacked image.
func (k *kernel) config() string {
	return strings.Replace(k.vmlinuz, "/boot/vmlinuz-", "/boot/config-", 1)
}

type pin struct {
	abi, version, suite, flavour string
}

func readPin(p *Pipeline) (pin, error) {
	name := filepath.Join(p.proto, "guest", "kernel.pin")
	lines, err := settingLines(name)
	if err != nil {
		return pin{}, err
	}
	kv := map[string]string{}
	for _, l := range lines {
		k, v, ok := strings.Cut(l.text, "=")
		if !ok {
			return pin{}, fmt.Errorf("%s:%d: want key=value", name, l.n)
		}
		kv[k] = v
	}
	pn := pin{kv["abi"], kv["version"], kv["suite"], kv["flavour"]}
	if pn.abi == "" || pn.version == "" || pn.suite == "" || pn.flavour == "" {
		return pin{}, fmt.Errorf("%s: needs abi, version, suite and flavour", name)
	}
	return pn, nil
}

// series is the kernel's major and minor version, 6.12, as Debian's
// linux-source package names it.
func (pn pin) series() string {
	return strings.Join(strings.SplitN(pn.abi, ".", 3)[:2], ".")
}

func (pn pin) packages() []string {
	return []string{
		"linux-image-" + pn.abi + "-" + pn.flavour + "-unsigned",
		"linux-headers-" + pn.abi + "-" + pn.flavour,
		"linux-headers-" + pn.abi + "-common",
		"linux-kbuild-" + pn.abi,
	}
}

// debianMirror takes the Debian mirror from the machine's own apt sources,
// so that the private fetch uses whatever mirror this machine can reach.
func debianMirror() string {
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	lists, _ := filepath.Glob("/etc/apt/sources.list.d/*.list")
	files = append(append(files, "/etc/apt/sources.list"), lists...)
	uri := regexp.MustCompile(`(?:^URIs:\s*|^deb\s+(?:\[[^]]*\]\s+)?)(\S+)`)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			m := uri.FindStringSubmatch(strings.TrimSpace(line))
			if m != nil && strings.HasSuffix(strings.TrimRight(m[1], "/"), "/debian") {
				return strings.TrimRight(m[1], "/")
			}
		}
	}
	return "http://deb.debian.org/debian"
}

// fetchKernel downloads the pinned .debs (aptDownload) and unpacks them
// into one tree.
func fetchKernel(p *Pipeline) (*kernel, error) {
	pn, err := readPin(p)
	if err != nil {
		return nil, err
	}
	kroot := filepath.Join(p.cache, "kernel")
	k := &kernel{
		version: pn.version,
		abi:     pn.abi,
		kdir:    filepath.Join(kroot, "usr/src/linux-headers-"+pn.abi+"-"+pn.flavour),
		vmlinuz: filepath.Join(kroot, "boot/vmlinuz-"+pn.abi+"-"+pn.flavour),
	}
	stamp := filepath.Join(kroot, "PINNED")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == pn.version {
		return k, nil
	}

	debs, err := aptDownload(p, pn, pn.packages()...)
	if err != nil {
		return nil, err
	}

	if err := os.RemoveAll(kroot); err != nil {
		return nil, err
	}
	for _, pkg := range pn.packages() {
		matches, _ := filepath.Glob(filepath.Join(debs, pkg+"_*.deb"))
		if len(matches) != 1 {
			return nil, fmt.Errorf("want one .deb for %s in %s, have %d", pkg, debs, len(matches))
		}
		if err := run("", nil, "dpkg", "-x", matches[0], kroot); err != nil {
			return nil, err
		}
	}
	// The headers' top Makefile includes the common tree by absolute path.
	mk := filepath.Join(k.kdir, "Makefile")
	b, err := os.ReadFile(mk)
	if err != nil {
		return nil, err
	}
	fixed := strings.ReplaceAll(string(b), "include /usr/src/", "include "+filepath.Join(kroot, "usr/src")+"/")
	if err := os.WriteFile(mk, []byte(fixed), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stamp, []byte(pn.version+"\n"), 0o644); err != nil {
		return nil, err
	}
	p.logf("guest kernel %s unpacked in %s", pn.version, kroot)
	return k, nil
}

// aptDownload downloads the pinned version of each package into
// .build/apt/debs with apt-get, using a sources list and state directory
// of its own so that the machine's apt setup is never touched, and
// returns that directory.
func aptDownload(p *Pipeline, pn pin, pkgs ...string) (string, error) {
	apt := filepath.Join(p.cache, "apt")
	debs := filepath.Join(apt, "debs")
	for _, d := range []string{"lists/partial", "cache/archives/partial", "debs"} {
		if err := os.MkdirAll(filepath.Join(apt, d), 0o755); err != nil {
			return "", err
		}
	}
	mirror := debianMirror()
	list := filepath.Join(apt, "sources.list")
	src := fmt.Sprintf("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n", mirror, pn.suite)
	if err := os.WriteFile(list, []byte(src), 0o644); err != nil {
		return "", err
	}
	opts := []string{
		"-o", "Dir::Etc::SourceList=" + list,
		"-o", "Dir::Etc::SourceParts=/dev/null",
		"-o", "Dir::State::Lists=" + filepath.Join(apt, "lists"),
		"-o", "Dir::Cache=" + filepath.Join(apt, "cache"),
		"-o", "APT::Sandbox::User=root",
	}
	p.logf("fetching %s %s from %s %s", strings.Join(pkgs, ", "), pn.version, mirror, pn.suite)
	if _, err := output("", nil, "apt-get", append(opts, "-q", "update")...); err != nil {
		return "", err
	}
	var want []string
	for _, pkg := range pkgs {
		want = append(want, pkg+"="+pn.version)
	}
	if out, err := output(debs, nil, "apt-get", append(append(opts, "-q", "download"), want...)...); err != nil {
		return "", fmt.Errorf("the mirror does not serve the pinned kernel %s (%s); it serves: %s\n%s",
			pn.version, filepath.Join(p.proto, "guest", "kernel.pin"), newestServed(opts), out)
	}
	return debs, nil
}

// kernelSource is the pinned kernel's source tarball, from Debian's
// linux-source-6.12 package of the guest's version, unpacked from its
// .deb once into .build/kernel-source.
func kernelSource(p *Pipeline, pn pin) (string, error) {
	pkg := "linux-source-" + pn.series()
	dir := filepath.Join(p.cache, "kernel-source")
	tarball := filepath.Join(dir, "usr/src", pkg+".tar.xz")
	stamp := filepath.Join(dir, "PINNED")
	if b, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(b)) == pn.version {
		return tarball, nil
	}
	debs, err := aptDownload(p, pn, pkg)
	if err != nil {
		return "", err
	}
	matches, _ := filepath.Glob(filepath.Join(debs, pkg+"_"+debVersion(pn.version)+"_*.deb"))
	if len(matches) != 1 {
		return "", fmt.Errorf("want one .deb for %s %s in %s, have %d", pkg, pn.version, debs, len(matches))
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := run("", nil, "dpkg", "-x", matches[0], dir); err != nil {
		return "", err
	}
	if _, err := os.Stat(tarball); err != nil {
		return "", fmt.Errorf("%s holds no %s: %w", matches[0], tarball, err)
	}
	if err := os.WriteFile(stamp, []byte(pn.version+"\n"), 0o644); err != nil {
		return "", err
	}
	return tarball, nil
}

// unpackSource unpacks members (paths in the source tree, wildcards
// allowed) of the pinned kernel's source into dir, with the tarball's
// first strip components of each path dropped, whole or not at all: into
// dir.tmp first, then renamed.
func unpackSource(p *Pipeline, pn pin, dir string, strip int, members ...string) error {
	src, err := kernelSource(p, pn)
	if err != nil {
		return err
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	top := strings.TrimSuffix(filepath.Base(src), ".tar.xz")
	args := []string{"-xJf", src, "-C", tmp, fmt.Sprintf("--strip-components=%d", strip), "--wildcards"}
	for _, m := range members {
		args = append(args, top+"/"+m)
	}
	if err := run("", nil, "tar", args...); err != nil {
		return fmt.Errorf("unpacking %s from %s: %w", strings.Join(members, ", "), src, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// debVersion is a version as apt names its .deb file: an epoch's colon
// is written %3a.
func debVersion(v string) string { return strings.ReplaceAll(v, ":", "%3a") }

// newestServed names the 6.12 cloud kernel images the mirror serves, newest
// last, for the message that asks for the pin to be moved.
func newestServed(opts []string) string {
	out, err := output("", nil, "apt-cache", append(opts, "search", "--names-only", `^linux-image-6\.12\..*-cloud-amd64-unsigned$`)...)
	if err != nil {
		return "(apt-cache search failed)"
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no 6.12 cloud kernel"
	}
	return strings.Join(names, ", ")
}
