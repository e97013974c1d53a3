package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmdtest"
)

var update = flag.Bool("update", false, "rewrite the .ct files with the output mkbook gives now")

// TestGolden runs testdata/golden/*.ct: mkbook's command output on the
// fixture books of testdata/golden/, copied into a scratch directory first,
// each compared whole with the output the file holds.  Exact output is
// tested here; what a command does across files (what it writes, and what
// it leaves alone) is tested by the scripts of testdata/scripts/.
func TestGolden(t *testing.T) {
	ts, err := cmdtest.Read("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	ts.Commands["mkbook"] = cmdtest.InProcessProgram("mkbook", func() int {
		return run(os.Args[1:], os.Stdout, os.Stderr)
	})
	// cp FROM TO puts a case's file in place in a fixture book.
	ts.Commands["cp"] = func(args []string, _ string) ([]byte, error) {
		if len(args) != 2 {
			return nil, errors.New("usage: cp FROM TO")
		}
		data, err := os.ReadFile(args[0])
		if err != nil {
			return nil, err
		}
		return nil, os.WriteFile(args[1], data, 0o644)
	}
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
