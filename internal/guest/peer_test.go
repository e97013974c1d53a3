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
	// The checksum names the content, whatever the file's time.
	sum, err := fileSum(in)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(in, later, later); err != nil {
		t.Fatal(err)
	}
	if again, err := fileSum(in); err != nil || again != sum {
		t.Fatalf("fileSum: %q then %q (%v) for the same bytes", sum, again, err)
	}
	if err := os.WriteFile(in, append(data, '!'), 0o755); err != nil {
		t.Fatal(err)
	}
	if changed, err := fileSum(in); err != nil || changed == sum {
		t.Fatalf("fileSum: %q for changed bytes, as before (%v)", changed, err)
	}
	// A binary that is not there leaves no archive behind.
	if err := gzipFile(filepath.Join(dir, "missing"), filepath.Join(dir, "missing.gz")); err == nil {
		t.Fatal("gzipFile of a missing file: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.gz")); !os.IsNotExist(err) {
		t.Fatalf("gzipFile of a missing file wrote an archive: %v", err)
	}
}
