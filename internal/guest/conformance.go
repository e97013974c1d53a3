package guest

import (
	"fmt"
	"os"
	"path/filepath"
)

// The conformance suite the linux kernel proper is measured by is one no
// one here wrote: Linux's own nolibc-test (tools/testing/selftests/nolibc
// in the pinned kernel's source, Debian's linux-source package, which
// checkpatch already fetches). It checks system calls' answers, bad
// arguments included, and a C library's start-up, strings and printf, a
// line per test. It is built twice, as its Makefile builds it: against
// the kernel's nolibc (nolibc-test: every call a raw system call, no C
// library between the test and the kernel) and against the guest
// toolchain's glibc (libc-test, static). The suite linux-conf runs both
// on the guest's Linux, in a sandbox and under gVisor in one boot.

// conformanceDir is where the suite's sources are unpacked, once per
// pinned kernel version.
func conformanceDir(p *Pipeline, pn pin) string {
	return filepath.Join(p.cache, "nolibc-"+pn.version)
}

// unpackConformance unpacks the selftest and the nolibc headers it is
// built with from the kernel's source tarball, and returns the tree's
// top directory.
func unpackConformance(p *Pipeline) (string, error) {
	pn, err := readPin(p)
	if err != nil {
		return "", err
	}
	dir := conformanceDir(p, pn)
	if _, err := os.Stat(filepath.Join(dir, "tools", "testing", "selftests", "nolibc", "nolibc-test.c")); err == nil {
		return dir, nil
	}
	err = unpackSource(p, pn, dir, 1, "tools/testing/selftests/nolibc/*", "tools/include/nolibc/*")
	return dir, err
}

// buildConformance builds nolibc-test and libc-test into out with the
// flags the selftest's Makefile gives them (its targets nolibc-test,
// without a sysroot, and libc-test, which it builds without flags), static so that the sandbox's loader
// can start them, and returns their paths.
func buildConformance(p *Pipeline, out string) ([]string, error) {
	top, err := unpackConformance(p)
	if err != nil {
		return nil, err
	}
	test := filepath.Join(top, "tools", "testing", "selftests", "nolibc")
	srcs := []string{filepath.Join(test, "nolibc-test.c"), filepath.Join(test, "nolibc-test-linkage.c")}
	builds := []struct {
		name        string
		flags, libs []string
	}{
		{"nolibc-test", []string{"-Os", "-fno-ident", "-fno-asynchronous-unwind-tables", "-std=c89",
			"-fno-stack-protector", "-nostdlib", "-static",
			"-include", filepath.Join(top, "tools", "include", "nolibc", "nolibc.h")},
			[]string{"-lgcc"}},
		// -O2 as well: the tests of nolibc's own strlcpy and strlcat,
		// which glibc 2.36 lacks, are then dropped as dead code.
		{"libc-test", []string{"-static", "-O2"}, nil},
	}
	var built []string
	for _, b := range builds {
		exe := filepath.Join(out, b.name)
		args := append(append([]string{}, b.flags...), "-o", exe)
		args = append(append(args, srcs...), b.libs...)
		if o, err := output("", nil, "gcc", args...); err != nil {
			return nil, fmt.Errorf("building %s:\n%s", exe, o)
		}
		built = append(built, exe)
	}
	return built, nil
}
