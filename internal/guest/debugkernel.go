package guest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The debug guest kernels (GUEST_KERNEL=debug or kcsan, make
// debug-kernel): the pinned kernel's own source, Debian's linux-source
// package of the guest's version, configured as the pinned cloud kernel
// with every module off and the flavour's fragments of prototype/guest/
// on top (KASAN, lockdep, UBSAN and the rest), and built once into
// .build/FLAVOUR-kernel/KEY, KEY a hash of the version, the cloud config
// and the fragments: a change of any of them builds another.  The
// prototype's modules build against its tree as they build against the
// pinned headers.

// debugFlavours are the fragments each flavour puts on top of the cloud
// config, in order; a later fragment's setting of an option overrides an
// earlier one's, as Kconfig reads a .config.  KCSAN cannot be built
// beside KASAN, so it has a flavour of its own with the other checks.
var debugFlavours = map[string][]string{
	"debug": {"debug.config"},
	"kcsan": {"debug.config", "kcsan.config"},
}

// debugKernel builds the flavour's kernel if it is not built, and
// returns it.
func debugKernel(p *Pipeline, stock *kernel) (*kernel, error) {
	pn, err := readPin(p)
	if err != nil {
		return nil, err
	}
	base, err := os.ReadFile(stock.config())
	if err != nil {
		return nil, err
	}
	var frags []string
	var frag []byte
	for _, f := range debugFlavours[p.flavour] {
		name := filepath.Join(p.proto, "guest", f)
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		frags, frag = append(frags, name), append(frag, b...)
	}
	sum := sha256.Sum256([]byte(pn.version + "\n" + string(base) + string(frag)))
	key := fmt.Sprintf("%x", sum[:6])
	dir := filepath.Join(p.cache, p.flavour+"-kernel", key)
	tree := filepath.Join(dir, "linux-source-"+pn.series())
	k := &kernel{
		version: pn.version + "+ev" + p.flavour + "." + key,
		abi:     stock.abi,
		kdir:    tree,
		vmlinuz: filepath.Join(tree, "arch/x86/boot/bzImage"),
		debug:   true,
	}
	built := filepath.Join(dir, "BUILT")
	if _, err := os.Stat(built); err == nil {
		return k, nil
	}
	if _, err := os.Stat(filepath.Join(tree, "Makefile")); err != nil {
		src, err := kernelSource(p, pn)
		if err != nil {
			return nil, err
		}
		tmp := dir + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		p.logf("unpacking %s into %s", src, dir)
		if err := run("", nil, "tar", "-xJf", src, "-C", tmp); err != nil {
			return nil, err
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return nil, err
		}
	}
	if err := p.ensureDeps(kernelBuildDeps); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tree, ".config"), []byte(modulesOff(string(base))+string(frag)), 0o644); err != nil {
		return nil, err
	}
	if err := run(tree, nil, "make", "olddefconfig"); err != nil {
		return nil, err
	}
	if err := checkFragments(filepath.Join(tree, ".config"), frags); err != nil {
		return nil, err
	}
	logName := filepath.Join(dir, "build.log")
	p.logf("building the %s kernel in %s (on two cores, the better part of an hour; its output in %s)", p.flavour, tree, logName)
	start := time.Now()
	if err := makeLogged(tree, logName, "-j2", "all"); err != nil {
		return nil, err
	}
	took := time.Since(start).Round(time.Second)
	if err := os.WriteFile(built, []byte(fmt.Sprintf("built in %s\n", took)), 0o644); err != nil {
		return nil, err
	}
	p.logf("%s kernel %s built in %s", p.flavour, k.version, took)
	return k, nil
}

// DebugKernel builds the debug kernel of GUEST_KERNEL's flavour, if it
// is not built.
func (p *Pipeline) DebugKernel() error {
	if p.flavour == "" {
		return fmt.Errorf("debug-kernel: set GUEST_KERNEL=%s", strings.Join(flavourNames(), " or "))
	}
	_, err := p.prepare(false)
	return err
}

// modulesOff is a config with every module turned off: the guest loads
// only the prototype's own, which build against the tree.
func modulesOff(config string) string {
	mod := regexp.MustCompile(`(?m)^(CONFIG_[A-Za-z0-9_]+)=m$`)
	return mod.ReplaceAllString(config, "# $1 is not set")
}

// flavourNames are the debug kernel's flavours, sorted.
func flavourNames() []string {
	var names []string
	for n := range debugFlavours {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var (
	configSet    = regexp.MustCompile(`^(CONFIG_[A-Za-z0-9_]+)=`)
	configNotSet = regexp.MustCompile(`^# (CONFIG_[A-Za-z0-9_]+) is not set$`)
)

// checkFragments fails naming each setting of the fragments that the
// .config olddefconfig wrote does not hold (an option a dependency turned
// off): for each option, the fragments' last setting of it, "=VALUE" or
// "is not set".  A line that is neither a setting nor a comment is named
// too.
func checkFragments(config string, fragNames []string) error {
	have, set := map[string]bool{}, map[string]bool{}
	b, err := os.ReadFile(config)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		have[l] = true
		if m := configSet.FindStringSubmatch(l); m != nil {
			set[m[1]] = true
		}
	}
	type setting struct {
		at, text string
		on       bool
	}
	last := map[string]setting{}
	var order, bad []string
	for _, name := range fragNames {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			at := fmt.Sprintf("%s:%d", name, i+1)
			m, on := configSet.FindStringSubmatch(l), true
			if m == nil {
				m, on = configNotSet.FindStringSubmatch(l), false
			}
			switch {
			case m != nil:
				if _, ok := last[m[1]]; !ok {
					order = append(order, m[1])
				}
				last[m[1]] = setting{at, l, on}
			case l != "" && !strings.HasPrefix(l, "#"):
				bad = append(bad, fmt.Sprintf("%s: not a setting: %s", at, l))
			}
		}
	}
	for _, opt := range order {
		s := last[opt]
		if s.on && !have[s.text] || !s.on && set[opt] {
			bad = append(bad, fmt.Sprintf("%s: %s", s.at, s.text))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the debug kernel's config does not hold:\n%s", strings.Join(bad, "\n"))
	}
	return nil
}

// makeLogged runs make in dir with its output in logName, and on failure
// shows the output's end.
func makeLogged(dir, logName string, args ...string) error {
	f, err := os.Create(logName)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("make", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, f, f
	if err := cmd.Run(); err != nil {
		out, _ := os.ReadFile(logName)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("make %s in %s: %w\n%s", strings.Join(args, " "), dir, err,
			strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	return nil
}
