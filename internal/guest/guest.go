// Package guest is the prototype's guest pipeline. It installs the Debian
// packages it needs, fetches the pinned Debian guest kernel, builds the
// endovisor, the sandbox kernels and the guest programs against it, packs
// an initramfs, and boots QEMU, writing each boot's console to a log under
// prototype/.build/. A boot the emulator broke is booted again
// (emulatorFault). The command tools/guest and mkbook both drive it, and
// hear how it goes through a Progress, not by reading its output.
//
// Every step runs the ones before it that it needs; each is cheap when its
// output is already up to date.
package guest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A Progress hears what the pipeline does as it goes.  Its methods are
// called from the goroutine that called the pipeline.
type Progress interface {
	// Step reports a step of the preparation or of a survey: packages
	// installed, the kernel fetched, the modules built, the accelerator
	// chosen, a wait for another run's lock.
	Step(msg string)
	// Booted reports a boot that passed; its console is b.Log.
	Booted(b Boot)
	// Retried reports a boot the emulator broke (b.Emulator says how),
	// which is booted again; its console is kept in b.Log.
	Retried(b Boot)
}

// A Boot is one boot of a suite, as a Progress hears of it.
type Boot struct {
	Suite    string
	N, Of    int // boot N of Of
	Attempt  int // 1, or more for a boot tried again
	Elapsed  time.Duration
	Log      string // its console
	Err      error  // why it failed, for a boot that did
	Emulator string // why the failure is the emulator's, if it is
}

// A Pipeline is the guest pipeline of one repository.
type Pipeline struct {
	root     string // repository root
	proto    string // prototype/
	build    string // prototype/.build/, or .build/FLAVOUR/ for a debug kernel
	cache    string // prototype/.build/: the fetched packages and kernels
	flavour  string // the debug kernel's, or "" for the pinned one (GUEST_KERNEL, debugkernel.go)
	fuzz     string // the fuzz suite's settings on the kernel command line, or ""
	progress Progress
}

// New returns the pipeline of the repository at root, reporting to
// progress, and makes its build directory.  GUEST_KERNEL=debug (or kcsan)
// in the environment boots that flavour of the debug kernel
// (debugkernel.go) instead of the pinned one, and keeps what it builds
// and logs in .build/debug/ (or .build/kcsan/), apart.
// FUZZ_SEED and FUZZ_MS set the fuzz suite's seed (to draw a failed run
// again) and how long each of its runs calls services.
func New(root string, progress Progress) (*Pipeline, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	proto := filepath.Join(abs, "prototype")
	cache := filepath.Join(proto, ".build")
	p := &Pipeline{root: abs, proto: proto, build: cache, cache: cache, progress: progress}
	switch k := os.Getenv("GUEST_KERNEL"); k {
	case "", "stock":
	default:
		if debugFlavours[k] == nil {
			return nil, fmt.Errorf("GUEST_KERNEL=%s: want stock, %s", k, strings.Join(flavourNames(), " or "))
		}
		p.flavour, p.build = k, filepath.Join(cache, k)
	}
	for _, v := range []struct{ env, param string }{
		{"FUZZ_SEED", "ev.fuzz_seed"}, {"FUZZ_MS", "ev.fuzz_ms"},
	} {
		s := os.Getenv(v.env)
		if s == "" {
			continue
		}
		if n, err := strconv.ParseUint(s, 10, 32); err != nil || n == 0 {
			return nil, fmt.Errorf("%s=%s: want a whole number from 1 to %d", v.env, s, uint32(math.MaxUint32))
		}
		p.fuzz += " " + v.param + "=" + s
	}
	if err := os.MkdirAll(p.build, 0o755); err != nil {
		return nil, err
	}
	return p, nil
}

// BuildDir is prototype/.build/, where the pipeline writes what it builds
// and the logs of its boots.
func (p *Pipeline) BuildDir() string { return p.build }

func (p *Pipeline) logf(format string, args ...any) {
	p.progress.Step(fmt.Sprintf(format, args...))
}

// Lock takes the build directory for this process alone, waiting for
// another run to finish if it must: two runs at once would build over each
// other, and their boots would share two processors and perturb each
// other's measurements.  The function it returns gives it back.
func (p *Pipeline) Lock() (func(), error) {
	f, err := os.OpenFile(filepath.Join(p.build, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		p.logf("waiting for another guest run to finish")
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, err
		}
	}
	return func() { f.Close() }, nil
}

// Deps checks the Debian packages the pipeline needs, installing the
// missing ones when run as root.
func (p *Pipeline) Deps() error { return p.ensureDeps(deps) }

// Kernel fetches and unpacks the pinned guest kernel, if it is not yet.
func (p *Pipeline) Kernel() error {
	_, err := p.prepare(false)
	return err
}

// Build builds the modules, the guest programs and the initramfs.
func (p *Pipeline) Build() error {
	_, err := p.prepare(true)
	return err
}

// prepare runs the steps every boot needs: packages, kernel and, if
// build is set, modules, programs and the initramfs.
func (p *Pipeline) prepare(build bool) (*kernel, error) {
	if err := p.ensureDeps(deps); err != nil {
		return nil, err
	}
	k, err := fetchKernel(p)
	if err == nil && p.flavour != "" {
		k, err = debugKernel(p, k)
	}
	if err != nil || !build {
		return k, err
	}
	if err := buildAll(p, k); err != nil {
		return nil, err
	}
	return k, nil
}
