package guest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The debug guest kernel (GUEST_KERNEL=debug, make debug-kernel): the
// pinned kernel's own source, Debian's linux-source package of the
// guest's version, configured as the pinned cloud kernel with every
// module off and prototype/guest/debug.config on top (KASAN, lockdep,
// UBSAN and the rest), and built once into .build/debug-kernel/KEY, KEY a
// hash of the version, the cloud config and the fragment: a change of any
// of them builds another.  The prototype's modules build against its tree
// as they build against the pinned headers.

// debugKernel builds the debug kernel if it is not built, and returns it.
func debugKernel(p *Pipeline, stock *kernel) (*kernel, error) {
	pn, err := readPin(p)
	if err != nil {
		return nil, err
	}
	base, err := os.ReadFile(stock.config())
	if err != nil {
		return nil, err
	}
	fragName := filepath.Join(p.proto, "guest", "debug.config")
	frag, err := os.ReadFile(fragName)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(pn.version + "\n" + string(base) + string(frag)))
	key := fmt.Sprintf("%x", sum[:6])
	dir := filepath.Join(p.cache, "debug-kernel", key)
	tree := filepath.Join(dir, "linux-source-"+pn.series())
	k := &kernel{
		version: pn.version + "+evdebug." + key,
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
	if err := os.WriteFile(filepath.Join(tree, ".config"), []byte(modulesOff(string(base))+string(frag)), 0o644); err != nil {
		return nil, err
	}
	if err := run(tree, nil, "make", "olddefconfig"); err != nil {
		return nil, err
	}
	if err := checkFragment(filepath.Join(tree, ".config"), fragName); err != nil {
		return nil, err
	}
	logName := filepath.Join(dir, "build.log")
	p.logf("building the debug kernel in %s (on two cores, the better part of an hour; its output in %s)", tree, logName)
	start := time.Now()
	if err := makeLogged(tree, logName, "-j2", "all"); err != nil {
		return nil, err
	}
	took := time.Since(start).Round(time.Second)
	if err := os.WriteFile(built, []byte(fmt.Sprintf("built in %s\n", took)), 0o644); err != nil {
		return nil, err
	}
	p.logf("debug kernel %s built in %s", k.version, took)
	return k, nil
}

// DebugKernel builds the debug kernel, if it is not built.
func (p *Pipeline) DebugKernel() error {
	if !p.debug {
		return fmt.Errorf("debug-kernel: set GUEST_KERNEL=debug")
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

// checkFragment fails naming each line of the fragment that the .config
// olddefconfig wrote does not hold (an option a dependency turned off).
func checkFragment(config, fragName string) error {
	have := map[string]bool{}
	b, err := os.ReadFile(config)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	lines, err := settingLines(fragName)
	if err != nil {
		return err
	}
	var missing []string
	for _, l := range lines {
		if !have[l.text] {
			missing = append(missing, fmt.Sprintf("%s:%d: %s", fragName, l.n, l.text))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the debug kernel's config does not hold:\n%s", strings.Join(missing, "\n"))
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
