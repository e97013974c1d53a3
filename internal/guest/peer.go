package guest

import (
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The peers linux-perf times the benchmark binary under, beside Linux and
// the sandbox: User-Mode Linux as Debian packages it, and gVisor's runsc,
// which Debian does not package, built from the Go module proxy.

// A guestFile is a file of this machine's, checked against its Debian
// package, and where the guest's initramfs puts it.
type guestFile struct{ guest, host string }

// umlFiles are User-Mode Linux's kernel, as Debian's user-mode-linux
// ships it, and the C library it is linked against, where its program
// headers look for them.
func umlFiles() ([]guestFile, error) {
	var files []guestFile
	for _, f := range []struct{ pkg, path, guest string }{
		{"user-mode-linux", "/usr/bin/linux.uml", "bin/linux.uml"},
		{"libc6", "/x86_64-linux-gnu/ld-linux-x86-64.so.2", "lib64/ld-linux-x86-64.so.2"},
		{"libc6", "/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/libc.so.6"},
	} {
		path, err := packageFile(f.pkg, f.path)
		if err != nil {
			return nil, err
		}
		files = append(files, guestFile{f.guest, path})
	}
	return files, nil
}

// buildRunsc builds gVisor's runsc at the version prototype/peers/gvisor
// pins (its go.sum checks every module the proxy serves), static, so that
// the initramfs needs no C library for it, and returns
// .build/peers/runsc.gz: compressed, since the binary is some 80 MB and
// the guest has 512 MB; only linux-perf unpacks it.  The Go build cache
// makes a second build quick, and the checksum spares a second compression.
func buildRunsc(p *Pipeline) (string, error) {
	out := filepath.Join(p.build, "peers")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	exe := filepath.Join(out, "runsc")
	env := []string{"CGO_ENABLED=0", "GOFLAGS=-mod=readonly", "GOWORK=off"}
	if o, err := output(filepath.Join(p.proto, "peers", "gvisor"), env, "go", "build",
		"-trimpath", "-ldflags=-s -w", "-o", exe, "gvisor.dev/gvisor/runsc"); err != nil {
		return "", fmt.Errorf("building gVisor's runsc:\n%s", o)
	}
	gz := exe + ".gz"
	sum, err := fileSum(exe)
	if err != nil {
		return "", err
	}
	// go build writes the binary anew even when nothing changed, so the
	// archive is kept by the binary's checksum, not by its time.
	stamp := gz + ".sha256"
	if old, err := os.ReadFile(stamp); err == nil && string(old) == sum {
		if _, err := os.Stat(gz); err == nil {
			return gz, nil
		}
	}
	p.logf("compressing %s", exe)
	if err := gzipFile(exe, gz); err != nil {
		return "", err
	}
	return gz, os.WriteFile(stamp, []byte(sum), 0o644)
}

// fileSum is the SHA-256 of the file name, in hex.
func fileSum(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// gzipFile writes in, compressed, to out, through a temporary file, so
// that a build stopped half-way leaves no half-written out.
func gzipFile(in, out string) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	zw := gzip.NewWriter(f)
	_, err = io.Copy(zw, src)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
