// Command mkbook builds the book: it reads the chapter sources in book/src/,
// replaces every placeholder with a figure measured by the prototype (read
// from the logs in prototype/.build/), and renders one HTML page per
// chapter into book/site/.
//
// Usage:
//
//	mkbook [flags] build     check, then render the site
//	mkbook [flags] check     resolve every placeholder; write nothing
//	mkbook [flags] figures   print every figure the chapters use, with its provenance
//
// A placeholder is {{fig SUITE:KEY [FIELD]}}, {{log SUITE:KEY}} or
// {{run SUITE FIELD}}; see placeholder.go.  Any that does not resolve is an
// error naming the chapter file and line, and then nothing is written.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

type config struct {
	root string // repository root; the other paths are relative to it
	logs string
	src  string
	out  string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mkbook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.root, "root", ".", "repository root")
	fs.StringVar(&c.logs, "logs", "prototype/.build", "directory of the prototype's logs")
	fs.StringVar(&c.src, "src", "book/src", "directory of the chapter sources")
	fs.StringVar(&c.out, "out", "book/site", "directory the site is written to")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mkbook [flags] build|check|figures")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cmd := "build"
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	if fs.NArg() == 1 {
		cmd = fs.Arg(0)
	}
	b, err := load(c)
	if err != nil {
		fmt.Fprintf(stderr, "mkbook: %v\n", err)
		return 1
	}
	switch cmd {
	case "check":
		fmt.Fprintf(stdout, "mkbook: %d chapters, %d figures: ok\n", len(b.chapters), b.nfigures())
	case "figures":
		b.printFigures(stdout)
	case "build":
		if err := b.render(); err != nil {
			fmt.Fprintf(stderr, "mkbook: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "mkbook: %d chapters, %d figures written to %s\n", len(b.chapters), b.nfigures(), c.out)
	default:
		fs.Usage()
		return 2
	}
	return 0
}
