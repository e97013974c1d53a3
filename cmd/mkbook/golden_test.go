package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmdtest"
)

var update = flag.Bool("update", false, "rewrite the .ct files with the output mkbook gives now")

// TestGolden runs testdata/golden/*.ct: mkbook's command output on the
// fixture books of testdata/golden/, copied into a scratch directory first.
func TestGolden(t *testing.T) {
	ts, err := cmdtest.Read("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	ts.Commands["mkbook"] = cmdtest.InProcessProgram("mkbook", func() int {
		return run(os.Args[1:], os.Stdout, os.Stderr)
	})
	fixtures, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	ts.Setup = func(root string) error {
		return os.CopyFS(root, os.DirFS(fixtures))
	}
	ts.Run(t, *update)
}

// fixture copies a fixture book of testdata/golden into a scratch directory.
func fixture(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata/golden", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}
