package main

import (
	"bytes"
	"os"
	"path"
	"strings"
	"testing"
)

// runsMargin is the least a strict claim ("<" or ">") may hold by, as a
// fraction of the larger side, in every boot of the project's own runs.
const runsMargin = "0.05"

// TestStoredRuns checks the book against each of the project's own
// runs, kept in book/runs/RUN by make runs (the developers' and CI's):
// every claim holds in every boot it can be paired in, and every strict
// one by runsMargin at least, so that the next run on a machine like
// these does not toss a sentence near its bound.  It boots nothing.
func TestStoredRuns(t *testing.T) {
	runs, err := os.ReadDir("../../book/runs")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range runs {
		if !r.IsDir() {
			continue
		}
		n++
		logs := path.Join("book/runs", r.Name())
		t.Run(r.Name(), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run([]string{"-root", "../..", "-logs", logs, "-logs-only", "-margin", runsMargin, "margins"}, &out, &errs)
			if code != 0 {
				var fragile []string
				for _, l := range strings.Split(out.String(), "\n") {
					if strings.HasPrefix(l, "FRAGILE") {
						fragile = append(fragile, l)
					}
				}
				t.Fatalf("mkbook margins over %s: exit %d\n%s%s", logs, code, errs.String(), strings.Join(fragile, "\n"))
			}
		})
	}
	if n == 0 {
		t.Fatal("book/runs holds no run")
	}
}
