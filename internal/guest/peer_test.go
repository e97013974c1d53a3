package guest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGzipFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "runsc")
	out := in + ".gz"
	data := bytes.Repeat([]byte("the Sentry "), 10000)
	if err := os.WriteFile(in, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if fresh(out, in) {
		t.Fatal("fresh: an archive that does not exist is fresh")
	}
	if err := gzipFile(in, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("gzipFile: read back %d bytes (%v), want the %d written", len(got), err, len(data))
	}
	if _, err := os.Stat(out + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("gzipFile left its temporary file: %v", err)
	}
	// The archive is fresh until the binary changes after it.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(out, later, later); err != nil {
		t.Fatal(err)
	}
	if !fresh(out, in) {
		t.Fatal("fresh: an archive written after its binary is stale")
	}
	later = later.Add(time.Minute)
	if err := os.Chtimes(in, later, later); err != nil {
		t.Fatal(err)
	}
	if fresh(out, in) {
		t.Fatal("fresh: an archive older than its binary is fresh")
	}
	// A binary that is not there leaves no archive behind.
	if err := gzipFile(filepath.Join(dir, "missing"), filepath.Join(dir, "missing.gz")); err == nil {
		t.Fatal("gzipFile of a missing file: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.gz")); !os.IsNotExist(err) {
		t.Fatalf("gzipFile of a missing file wrote an archive: %v", err)
	}
}
