// Command mkbook builds the book: it reads the chapter sources in book/src/,
// replaces every placeholder with a figure measured by the prototype (read
// from the logs in prototype/.build/, running the suites that have none)
// or a listing of the sources, resolves every code name of the prose to
// its definition (internal/srcindex, codenames.go), checks the prose against the
// code, and renders the site into book/site/: a page per chapter, one per
// source file, one per log, the provenance and the whole book to print.
//
// Usage:
//
//	mkbook [flags] build     run missing suites, check, then render the site
//	mkbook [flags] check     resolve and check everything, and fail on a claim
//	                         the logs contradict; run and write nothing.  Its
//	                         last line counts the chapters, figures, listings,
//	                         diagrams, code names linked and claims
//	mkbook [flags] figures   print every figure the chapters use, with its provenance
//	mkbook [flags] margins   print every claim and the boots it holds in, the
//	                         fragile ones first (margins.go); with -runs DIR,
//	                         over every run kept under DIR; with -margin F,
//	                         a strict claim that holds by less than F in
//	                         some boot is fragile too, and any fragile
//	                         claim fails
//	mkbook [flags] index     write INDEX.md, the map of the chapters and the
//	                         sources (index.go), which check compares
//
// A placeholder is {{fig SUITE:KEY [FIELD]}}, {{log SUITE:KEY}},
// {{logfile PATH:LINE}}, {{ratio A B}}, {{diff A B}}, {{run SUITE FIELD}},
// {{const NAME}}, {{chapter NAME}} (chapref.go),
// {{table SUITE KEY...}}, {{quote SUITE TEXT}}, {{claim ...}}, a listing
// {{code PATH SYMBOL [/FROM/ /TO/] [omit /A/ /B/]}} or {{code PATH /FROM/
// /TO/}}, {{diagram NAME CAPTION}} or {{services HEADER}}; see
// placeholder.go, claim.go, listing.go, diagram.go and services.go.  Any
// that does not resolve, any code name with no definition or more than
// one, and any failed check (checks.go), is an error naming the chapter
// file and line, and then nothing is written.  Logs and chapters are both
// taken as untrusted: nothing from either runs on the site, and the site
// replaces only a site mkbook wrote (site.go).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"endovisor/internal/figlog"
)

// defaultLogs is where make leaves the logs, and where chapters name them.
const defaultLogs = "prototype/.build"

type config struct {
	root   string // repository root; the other paths are relative to it
	logs   string
	runs   string // margins: pool the runs kept under this directory
	src    string
	out    string
	margin float64 // margins: the least a strict claim may hold by
	// predates: the suites a stored run has no logs of, since it was kept
	// before they were written (margins -runs only); their placeholders
	// are left out of that run's trials.
	predates map[string]bool
	// runDate: the day a stored run was kept (its directory's name
	// begins with it), "" for the logs of a build; a claim written with
	// since= a later day is left out of that run's trials.
	runDate string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mkbook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.root, "root", ".", "repository root")
	fs.StringVar(&c.logs, "logs", defaultLogs, "directory of the prototype's logs")
	fs.StringVar(&c.src, "src", "book/src", "directory of the chapter sources")
	fs.StringVar(&c.out, "out", "book/site", "directory the site is written to")
	fs.StringVar(&c.runs, "runs", "", "margins: pool every run kept under this directory (one directory of logs each)")
	fs.Float64Var(&c.margin, "margin", 0, "margins: fail on a strict claim that holds by less than this fraction in any boot")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mkbook [flags] build|check|figures|margins|index")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmd := "build"
	var intr *interrupt
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	if fs.NArg() == 1 {
		cmd = fs.Arg(0)
	}
	switch cmd {
	case "build", "check", "figures", "margins", "index":
	default:
		fs.Usage()
		return 2
	}
	if cmd == "margins" && c.runs != "" {
		return marginsOfRuns(c, stdout, stderr)
	}
	if cmd == "build" {
		intr = onInterrupt(stderr)
		defer intr.stop()
	}
	b, err := load(c)
	if err == nil && cmd == "index" {
		if err = b.writeIndex(); err == nil {
			fmt.Fprintf(stdout, "mkbook: INDEX.md written: %d chapters, %d listings, %d code names linked\n",
				len(b.chapters), b.nlistings(), b.ncodenames)
			return 0
		}
	}
	if err == nil {
		err = b.check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "mkbook: %v\n", err)
		return 1
	}
	contra := b.contradicted()
	counts := fmt.Sprintf("%d chapters, %d figures, %d listings, %d diagrams, %d code names linked, %d claims (%d contradicted)",
		len(b.chapters), b.nfigures(), b.nlistings(), len(b.diagrams), b.ncodenames, b.nclaims(), len(contra))
	switch cmd {
	case "check":
		// A claim the logs contradict fails the check, every one named.
		if len(contra) > 0 {
			for _, f := range contra {
				fmt.Fprintf(stderr, "mkbook: %s\n", f)
			}
			fmt.Fprintf(stderr, "mkbook: %s\n", counts)
			return 1
		}
		fmt.Fprintf(stdout, "mkbook: %s: ok\n", counts)
	case "figures":
		b.printFigures(stdout)
	case "margins":
		// Every claim, with the boots it holds in: those a boot
		// contradicts, first, may fail on the next run's logs.
		n := printMargins(stdout, [][]trial{b.trials()}, c.margin)
		fmt.Fprintf(stdout, "mkbook: %s; %d of them fragile\n", counts, n)
		if c.margin > 0 && n > 0 {
			return 1
		}
	case "build":
		if err := b.render(intr, stderr); err != nil {
			fmt.Fprintf(stderr, "mkbook: %v\n", err)
			return 1
		}
		// A reader's slower machine still gets its book, with each
		// contradicted sentence marked on its page and listed here.
		for _, f := range contra {
			fmt.Fprintf(stderr, "mkbook: marked on its page, as the logs contradict it: %s\n", f)
		}
		fmt.Fprintf(stdout, "mkbook: %s, %d source pages: written to %s\n", counts, len(b.index.Paths), c.out)
	}
	return 0
}

// marginsOfRuns is margins over every run kept under c.runs, each read as
// the logs of one check; a run whose logs the book cannot read fails it,
// named.
func marginsOfRuns(c config, stdout, stderr io.Writer) int {
	dirs, err := runDirs(c.root, c.runs)
	if err != nil {
		fmt.Fprintf(stderr, "mkbook: %v\n", err)
		return 1
	}
	// A run kept before a suite was written has no logs of it: its other
	// claims are judged, and the suite's on the runs that have it, of
	// which there must be one.
	suites, err := referencedSuites(c)
	if err != nil {
		fmt.Fprintf(stderr, "mkbook: %v\n", err)
		return 1
	}
	kept := map[string]bool{}
	predates := make([]map[string]bool, len(dirs))
	for i, d := range dirs {
		predates[i] = map[string]bool{}
		for _, s := range suites {
			if names, err := figlog.SuiteLogs(filepath.Join(c.root, d), s); err == nil && len(names) > 0 {
				kept[s] = true
			} else {
				predates[i][s] = true
			}
		}
	}
	for _, s := range suites {
		if !kept[s] {
			fmt.Fprintf(stderr, "mkbook: no run under %s has logs of suite %s\n", c.runs, s)
			return 1
		}
	}
	var runs [][]trial
	for i, d := range dirs {
		rc := c
		rc.logs = d
		rc.predates = predates[i]
		rc.runDate = runDay.FindString(filepath.Base(d))
		b, err := load(rc)
		if err == nil {
			err = b.check()
		}
		if err != nil {
			fmt.Fprintf(stderr, "mkbook: run %s: %v\n", d, err)
			return 1
		}
		runs = append(runs, b.trials())
	}
	n := printMargins(stdout, runs, c.margin)
	fmt.Fprintf(stdout, "mkbook: %d runs, %d claims; %d of them fragile\n", len(runs), len(pool(runs)), n)
	if c.margin > 0 && n > 0 {
		return 1
	}
	return 0
}
