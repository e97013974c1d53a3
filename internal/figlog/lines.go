package figlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Logs come from guests, or from whoever sent them, so reading one is
// bounded: a log is a regular file (a FIFO or a device would hang the
// reader, a directory is no log) of at most MaxLogBytes, in lines of at most
// MaxLineBytes.  The guest's logs are well under a megabyte.
const (
	MaxLogBytes  = 16 << 20
	MaxLineBytes = 1 << 20
)

// EachLine calls fn with every line of the log name, numbered from 1 (the
// numbering every page and link of the book uses), stopping at fn's first
// error.
func EachLine(name string, fn func(n int, line string) error) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", name)
	}
	if st.Size() > MaxLogBytes {
		return fmt.Errorf("%s is %d MiB; a log may be at most %d MiB", name, st.Size()>>20, MaxLogBytes>>20)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	// A file that grows while it is read stops at the bound.
	sc := bufio.NewScanner(io.LimitReader(f, MaxLogBytes))
	sc.Buffer(make([]byte, 64*1024), MaxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, sc.Text()); err != nil {
			return err
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Errorf("%s:%d: a line longer than %d KiB", name, n+1, MaxLineBytes>>10)
	}
	return sc.Err()
}

// Within resolves name, symlinks and all, and reports whether it lies in
// dir (itself resolved): a log, or a chapter, that links out of its
// directory would publish whatever it points at.
func Within(dir, name string) (string, bool) {
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	n, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", false
	}
	r, err := filepath.Rel(d, n)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") || r == "." {
		return n, false
	}
	return n, true
}
