package main

import (
	"bytes"
	"strings"
	"testing"
)

// runsMargin is the least a strict claim ("<" or ">") may hold by, as a
// fraction of the larger side, in every boot of the project's own runs.
const runsMargin = "0.05"

// TestStoredRuns checks the book against the project's own runs, kept in
// book/runs/RUN by make runs (the developers' and CI's), pooled: every
// claim holds in every boot it can be paired in, every strict one by
// runsMargin at least, and none has a tail that reaches toward its bound
// (margins.go), so that the next run on a machine like these does not
// toss a sentence near its bound.  It boots nothing.
func TestStoredRuns(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-root", "../..", "-runs", "book/runs", "-margin", runsMargin, "margins"}, &out, &errs)
	if code != 0 {
		var fragile []string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "FRAGILE") {
				fragile = append(fragile, l)
			}
		}
		t.Fatalf("mkbook margins over book/runs: exit %d\n%s%s", code, errs.String(), strings.Join(fragile, "\n"))
	}
}
