package guest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// maxLines bounds a source file in prototype/ and cmd/: past it a file
// holds more than one concern, and is split as vm.c and mkbook were.
const maxLines = 700

// TestNoLongFiles fails on a source file longer than maxLines.
func TestNoLongFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, top := range []string{"prototype", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".build" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			switch filepath.Ext(path) {
			case ".c", ".h", ".S", ".go", ".sh":
			default:
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if n := bytes.Count(data, []byte("\n")); n > maxLines {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %d lines, over %d: split it by concern", filepath.ToSlash(rel), n, maxLines)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
