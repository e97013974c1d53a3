// Package testenv decides what a test does on a machine that lacks a
// program it needs: outside CI it is skipped, with a message naming the
// Debian package to install; in CI (the CI variable set, as .ci/run sets
// it) it fails, since CI installs everything and a skip there would hide
// a test that never ran.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// InCI reports whether the tests run in CI.
func InCI() bool { return os.Getenv("CI") != "" }

// Missing is the message for a program that is not there: what it is and
// the Debian package that has it.
func Missing(program, pkg string) string {
	return fmt.Sprintf("no %s: install Debian's %s package (apt-get install --no-install-recommends %s; .ci/run does)",
		program, pkg, pkg)
}

// Need skips t, or fails it in CI, unless present.
func Need(t testing.TB, present bool, program, pkg string) {
	t.Helper()
	if present {
		return
	}
	if InCI() {
		t.Fatalf("%s; CI must run this test", Missing(program, pkg))
	}
	t.Skip(Missing(program, pkg))
}
