package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// siteMark is a file in every site mkbook writes, by which a later build
// knows that what it is about to replace is a site of its own and not
// somebody's directory.
const siteMark = ".mkbook-site"

// checkOut refuses to replace anything but a site: the output may be
// absent, an empty directory, or a directory mkbook wrote (with the mark,
// or, from before the mark, with its figures.txt and searchindex.js).  A
// file or a symlink there is somebody else's.
func checkOut(out string) error {
	st, err := os.Lstat(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is a %s, not a site mkbook wrote: move it away or choose another -out", out, kind(st.Mode()))
	}
	has := func(name string) bool { _, err := os.Lstat(filepath.Join(out, name)); return err == nil }
	if has(siteMark) || has("figures.txt") && has("searchindex.js") {
		return nil
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) == 0 {
		return nil
	}
	return fmt.Errorf("%s holds files, but not a site mkbook wrote: move it away or choose another -out", out)
}

func kind(m os.FileMode) string {
	if m&os.ModeSymlink != 0 {
		return "symlink"
	}
	return "file"
}

// render writes the whole site into a fresh directory beside the output
// and only then swaps it into place, so that a failure, or Ctrl-C, leaves
// the old site as it was and nothing else behind.  Once the new site is
// in place the build has succeeded; an old site that cannot be removed is
// reported, not a failure.
func (b *book) render(c *interrupt, stderr io.Writer) error {
	out := b.path(b.c.out)
	if err := checkOut(out); err != nil {
		return err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	// What a build killed outright (SIGKILL, a power cut) left behind.
	for _, pattern := range []string{".site-new-*", ".site-old-*"} {
		left, _ := filepath.Glob(filepath.Join(parent, pattern))
		for _, d := range left {
			os.RemoveAll(d)
		}
	}
	tmp, err := c.tempDir(parent, ".site-new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := b.writeSite(tmp); err != nil {
		return err
	}
	if err := checkLinks(tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, siteMark), []byte("written by mkbook; replaced by its next build\n"), 0o644); err != nil {
		return err
	}
	old, err := c.tempDir(parent, ".site-old-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(old)
	if err := c.swap(out, tmp, filepath.Join(old, "site")); err != nil {
		return err
	}
	if err := os.RemoveAll(old); err != nil {
		fmt.Fprintf(stderr, "mkbook: the new site is in place, but the old one is left in %s: %v\n", old, err)
	}
	return nil
}

// interrupt, set up for the whole of a build, removes on Ctrl-C or
// SIGTERM the directories the build has made, and exits; it waits for a swap under way to finish, so that the
// output is always a whole site, the old or the new.
type interrupt struct {
	mu   sync.Mutex
	dirs []string
	sig  chan os.Signal
}

func onInterrupt(stderr io.Writer) *interrupt {
	c := &interrupt{sig: make(chan os.Signal, 1)}
	signal.Notify(c.sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-c.sig
		if !ok {
			return
		}
		c.mu.Lock()
		for _, d := range c.dirs {
			os.RemoveAll(d)
		}
		fmt.Fprintf(stderr, "mkbook: %v: stopped, the site as it was\n", s)
		os.Exit(130)
	}()
	return c
}

func (c *interrupt) stop() {
	signal.Stop(c.sig)
	close(c.sig)
}

func (c *interrupt) tempDir(parent, pattern string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, err := os.MkdirTemp(parent, pattern)
	if err == nil {
		c.dirs = append(c.dirs, d)
	}
	return d, err
}

// swap moves out (if there is one) aside to old and next into its place;
// if next cannot be put there, out goes back.
func (c *interrupt) swap(out, next, old string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := os.Lstat(out)
	had := err == nil
	if had {
		if err := os.Rename(out, old); err != nil {
			return err
		}
	}
	if err := os.Rename(next, out); err != nil {
		if had {
			if err2 := os.Rename(old, out); err2 != nil {
				return fmt.Errorf("%w; and the old site could not be put back from %s: %w", err, old, err2)
			}
		}
		return err
	}
	return nil
}
