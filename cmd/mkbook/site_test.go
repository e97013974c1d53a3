package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSwapPutsBack: when the new site cannot be moved into place, the old
// one goes back where it was.
func TestSwapPutsBack(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "site")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "index.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := onInterrupt(io.Discard)
	defer c.stop()
	if err := c.swap(out, filepath.Join(dir, "no-such-site"), filepath.Join(dir, "old")); err == nil {
		t.Fatal("swap in of a missing site succeeded")
	}
	if data, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || string(data) != "old" {
		t.Fatalf("the old site is not back in place: %q, %v", data, err)
	}
}
