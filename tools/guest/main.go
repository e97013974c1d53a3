// Command guest is the prototype's guest pipeline. It fetches the pinned
// Debian guest kernel, builds the endovisor, the sandbox kernels and the
// guest programs against it, packs an initramfs, and boots QEMU, writing
// each boot's console to a log under prototype/.build/.
//
// Usage:
//
//	guest deps                 check the Debian packages (installs them as root)
//	guest kernel               fetch and unpack the pinned guest kernel
//	guest build                build the modules, programs and initramfs
//	guest run [-boots N] [-out DIR/SUITE.log] SUITE
//	                           build, then boot N times running SUITE
//	guest survey [-boots N] MODEL...
//	                           boot the hello suite N times per CPU model
//	guest soak [-rounds N] SUITE...
//	                           boot each SUITE once per round, N rounds,
//	                           reporting every boot that failed and why
//
// Every command runs the ones before it that it needs; each step is cheap
// when its output is already up to date.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// paths names everything the pipeline reads and writes, relative to the
// repository root.
type paths struct {
	root  string // repository root
	proto string // prototype/
	build string // prototype/.build/
}

func newPaths(root string) paths {
	abs, err := filepath.Abs(root)
	if err != nil {
		fatalf("%v", err)
	}
	proto := filepath.Join(abs, "prototype")
	return paths{root: abs, proto: proto, build: filepath.Join(proto, ".build")}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "guest: "+format+"\n", args...)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "guest: "+format+"\n", args...)
}

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: guest [-root DIR] deps|kernel|build|run|survey|soak [args]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	p := newPaths(*root)
	if err := os.MkdirAll(p.build, 0o755); err != nil {
		fatalf("%v", err)
	}
	args := flag.Args()[1:]
	unlock, err := lockBuild(p)
	if err != nil {
		fatalf("%v", err)
	}
	defer unlock()
	switch flag.Arg(0) {
	case "deps":
		err = ensureDeps()
	case "kernel":
		_, err = prepare(p, false)
	case "build":
		_, err = prepare(p, true)
	case "run":
		err = cmdRun(p, args)
	case "survey":
		err = cmdSurvey(p, args)
	case "soak":
		err = cmdSoak(p, args)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		unlock()
		fatalf("%v", err)
	}
}

// lockBuild takes the build directory for this process alone: two guest
// runs at once would build over each other, and their boots would share two
// processors and perturb each other's measurements.
func lockBuild(p paths) (func(), error) {
	f, err := os.OpenFile(filepath.Join(p.build, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		logf("waiting for another guest run to finish")
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return nil, err
		}
	}
	return func() { f.Close() }, nil
}

// prepare runs the steps every boot needs: packages, kernel and, if
// build is set, modules, programs and the initramfs.
func prepare(p paths, build bool) (*kernel, error) {
	if err := ensureDeps(); err != nil {
		return nil, err
	}
	k, err := fetchKernel(p)
	if err != nil || !build {
		return k, err
	}
	if err := buildAll(p, k); err != nil {
		return nil, err
	}
	return k, nil
}
