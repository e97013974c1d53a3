// Command guest runs the prototype's guest pipeline (internal/guest) from
// the command line: make's targets call it, and it prints how the pipeline
// goes on stderr.
//
// Usage:
//
//	guest deps                 check the Debian packages (installs them as root)
//	guest kernel               fetch and unpack the pinned guest kernel
//	guest build                build the modules, programs and initramfs
//	guest sparse               build, then run sparse over every module's
//	                           sources; any warning fails
//	guest debug-kernel         build the debug kernel (GUEST_KERNEL=debug or kcsan)
//	guest checkpatch           run the pinned kernel's checkpatch.pl --strict
//	                           over the kernel-mode sources; any finding
//	                           prototype/guest/checkpatch.allow does not list fails
//	guest layers               build, then read who calls whom among the
//	                           endovisor's files; a cycle of more than three
//	                           that prototype/guest/layers.allow does not list fails
//	guest run [-boots N] [-timeout D] [-out DIR/SUITE.log] SUITE
//	                           build, then boot N times running SUITE (the
//	                           suite's own number and bound by default,
//	                           guest.PlanOf), and print its figures
//	guest survey [-boots N] MODEL...
//	                           boot the hello suite N times per CPU model
//	guest soak [-rounds N] [-timeout D] [-keep] SUITE...
//	                           boot each SUITE once per round, N rounds,
//	                           reporting every boot that failed and why;
//	                           -keep keeps every boot's console
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"endovisor/internal/guest"
)

// stderrProgress prints the pipeline's progress, a line each, on stderr.
type stderrProgress struct{}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "guest: "+format+"\n", args...)
}

func (stderrProgress) Step(msg string) { say("%s", msg) }

func (stderrProgress) Booted(b guest.Boot) {
	say("%s boot %d/%d ok in %.1fs: %s", b.Suite, b.N, b.Of, b.Elapsed.Seconds(), b.Log)
}

func (stderrProgress) Retried(b guest.Boot) {
	say("%s boot %d/%d failed, and %s (%s); its console is in %s; booting again",
		b.Suite, b.N, b.Of, b.Emulator, strings.SplitN(b.Err.Error(), "\n", 2)[0], b.Log)
}

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: guest [-root DIR] deps|kernel|debug-kernel|build|sparse|checkpatch|layers|run|survey|soak [args]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	p, err := guest.New(*root, stderrProgress{})
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	unlock, err := p.Lock()
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	err = command(p, flag.Arg(0), flag.Args()[1:])
	unlock()
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
}

func command(p *guest.Pipeline, name string, args []string) error {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	switch name {
	case "deps":
		return p.Deps()
	case "kernel":
		return p.Kernel()
	case "build":
		return p.Build()
	case "sparse":
		return p.Sparse()
	case "checkpatch":
		return p.Checkpatch()
	case "layers":
		return p.Layers()
	case "debug-kernel":
		return p.DebugKernel()
	case "run":
		boots := fs.Int("boots", 0, "number of boots (default: the suite's)")
		timeout := fs.Duration("timeout", 0, "bound on one boot (default: the suite's)")
		out := fs.String("out", "", "log file, named SUITE.log (default prototype/.build/SUITE.log)")
		fs.Parse(args)
		if fs.NArg() != 1 || *boots < 0 {
			return fmt.Errorf("usage: guest run [-boots N] [-timeout D] [-out FILE] SUITE")
		}
		suite := fs.Arg(0)
		plan := guest.PlanOf(suite)
		if *boots > 0 {
			plan.Boots = *boots
		}
		if *timeout > 0 {
			plan.Timeout = *timeout
		}
		log, err := p.Run(suite, plan, *out)
		if err != nil {
			return err
		}
		return guest.PrintSummary(os.Stdout, filepath.Dir(log), suite)
	case "survey":
		boots := fs.Int("boots", 10, "boots per model")
		fs.Parse(args)
		if fs.NArg() == 0 || *boots < 1 {
			return fmt.Errorf("usage: guest survey [-boots N] MODEL [MODEL ...]")
		}
		return p.Survey(fs.Args(), *boots, os.Stdout)
	case "soak":
		rounds := fs.Int("rounds", 20, "boots of each suite")
		timeout := fs.Duration("timeout", 15*time.Minute, "bound on one boot")
		keep := fs.Bool("keep", false, "keep every boot's console in .build/soak/, not only a failed one's")
		fs.Parse(args)
		if fs.NArg() == 0 || *rounds < 1 {
			return fmt.Errorf("usage: guest soak [-rounds N] [-timeout D] [-keep] SUITE [SUITE ...]")
		}
		return p.Soak(fs.Args(), *rounds, *timeout, *keep, os.Stdout)
	}
	flag.Usage()
	os.Exit(2)
	return nil
}
