package figlog

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The C side's one definition of the lines, prototype/abi/ev_report.h.
var reportHeader = filepath.Join("..", "..", "prototype", "abi", "ev_report.h")

// The words the header and this package agree on, read from the header's
// text, so that the two cannot drift apart even where no C compiler is.
func TestReportHeaderWords(t *testing.T) {
	b, err := os.ReadFile(reportHeader)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"EV_FIG_WORD":  "EVFIG",
		"EV_TEST_WORD": TestWord,
		"EV_TEST_OK":   TestOK,
		"EV_TEST_FAIL": TestFail,
		"EV_TEST_ALL":  "all",
	}
	for name, word := range want {
		m := regexp.MustCompile(`(?m)^#define\s+` + name + `\s+"([^"]*)"`).FindSubmatch(b)
		if m == nil {
			t.Errorf("%s: no #define %s \"...\"", reportHeader, name)
			continue
		}
		if string(m[1]) != word {
			t.Errorf("%s: %s is %q, figlog reads %q", reportHeader, name, m[1], word)
		}
	}
}

// reportProgram prints, with the header's macros and the C library's
// printf, one line of each form the prototype prints: the lines as the
// endovisor, vOSTD, a tenant and the guest's programs build them.
const reportProgram = `#include <stdio.h>
#include "ev_report.h"

int main(void)
{
	printf("EVRUN suite=s boot=1 of=1\n");
	printf("[endovisor] " EV_FIG_BEST("crossing.%s", "%llu.%llu", "%d", "%d") "\n",
	       "stub", 36ULL, 2ULL, 8, 2000);
	printf("[endovisor] " EV_FIG_MEDIAN("%s", "%llu", "cycles", "%zu") "\n",
	       "copy.walk", 410ULL, 900ULL, (size_t)1000);
	printf("[sched.0] " EV_FIG_MEDIAN("%s", "%llu", "%s", "%u") "%s%s\n", "kl.yield_rt",
	       590ULL, "cycles", 891ULL, 5000u, EV_BASELINE(""), "linux.sched_yield_rt");
	printf("[sched.0] " EV_FIG("%s", "%llu", "median", "cycles") EV_FIELD("p99", "%llu")
	       EV_FIELD("samples", "%u") "\n", "kl.spurious_upcall", 7ULL, 9ULL, 33u);
	printf("[mem.0] " EV_FIG_BEST("mem.alloc_pair", "%llu.%llu", "7", "1000")
	       EV_BASELINE("heap.kmalloc_pair") "\n", 120ULL, 4ULL);
	printf("[mem.0] " EV_FIG("%s", "%llu", "sum", "%s") "\n", "mem.first_touch_faults", 0ULL,
	       "faults");
	printf("[proc.0] " EV_FIG_MEDIAN("%s", "%lu", "cycles", "%lu") "%s%s\n", "tenant.yield_rt",
	       3000UL, 4100UL, 2000UL, "", "");
	printf(EV_FIG("%s.stolen", "%.1f", "sum", "ms") EV_FIELD("preemptions", "%llu") "\n",
	       "fair50", 8.14, 3ULL);
	printf(EV_FIG("%s", "%.1f", "max", "ms") "\n", "kill.holder_ms", 5.75);
	printf("[sched.0] " EV_TEST("%s", "%s", "%s") "%s%s\n", "sched", "yield", EV_TEST_OK, "", "");
	printf("[hostile.1] " EV_TEST("%s", "%s", "%s") "%s%s\n", "hostile", "free_interior",
	       EV_TEST_OK, " ", "want=-EINVAL got=-EINVAL");
	printf("[proc.0] " EV_TEST_SUMMARY("%s", "%s", "%u", "%u") "\n", "proc", EV_TEST_OK, 12u, 0u);
	printf(EV_TEST("launcher", "vcpu%u_fpu_kept", "%s") "%s\n", 1u, EV_TEST_OK, "");
	printf("EV-DONE status=ok\n");
	printf(EV_TEST("scale", "exits_%u", EV_TEST_FAIL) " sandbox %u exit=%ld\n", 8u, 3u, -5L);
	return 0;
}
`

// TestReportRoundTrip compiles a program that prints with the header's
// macros and reads what it prints: every field a macro writes is where
// the parser finds it.  It needs a C compiler (gcc, as the guest build
// does) and skips without one.
func TestReportRoundTrip(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc on PATH: the C side of the report lines is not compiled here (install gcc)")
	}
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "report.c"), filepath.Join(dir, "report")
	if err := os.WriteFile(src, []byte(reportProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gcc, "-Wall", "-Wextra", "-Werror", "-Wformat=2", "-Wno-format-nonliteral",
		"-I", filepath.Dir(reportHeader), "-o", exe, src).CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err = exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	// The log up to EV-DONE; the failed test after it is read on its own.
	done := 0
	for i, l := range lines {
		if Done(l) {
			done = i
		}
	}
	name := filepath.Join(dir, "s.log")
	if err := os.WriteFile(name, []byte(strings.Join(lines[:done+1], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Read(name)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	figs := []struct {
		key    string
		fields map[string]string
	}{
		{"crossing.stub", map[string]string{"value": "36.2", "stat": "min", "unit": "cycles", "rounds": "8", "calls": "2000"}},
		{"copy.walk", map[string]string{"value": "410", "stat": "median", "unit": "cycles", "p99": "900", "n": "1000"}},
		{"kl.yield_rt", map[string]string{"value": "590", "stat": "median", "unit": "cycles", "p99": "891", "n": "5000", "baseline": "linux.sched_yield_rt"}},
		{"kl.spurious_upcall", map[string]string{"value": "7", "stat": "median", "unit": "cycles", "p99": "9", "samples": "33"}},
		{"mem.alloc_pair", map[string]string{"value": "120.4", "stat": "min", "unit": "cycles", "rounds": "7", "calls": "1000", "baseline": "heap.kmalloc_pair"}},
		{"mem.first_touch_faults", map[string]string{"value": "0", "stat": "sum", "unit": "faults"}},
		{"tenant.yield_rt", map[string]string{"value": "3000", "stat": "median", "unit": "cycles", "p99": "4100", "n": "2000"}},
		{"fair50.stolen", map[string]string{"value": "8.1", "stat": "sum", "unit": "ms", "preemptions": "3"}},
		{"kill.holder_ms", map[string]string{"value": "5.8", "stat": "max", "unit": "ms"}},
	}
	if len(l.Figures) != len(figs) {
		t.Fatalf("read %d figures, want %d:\n%s", len(l.Figures), len(figs), out)
	}
	for i, want := range figs {
		got := l.Figures[i]
		if got.Key != want.key || len(got.Fields) != len(want.fields) {
			t.Errorf("figure %d: %s %v, want %s %v", i, got.Key, got.Fields, want.key, want.fields)
			continue
		}
		for k, v := range want.fields {
			if got.Fields[k] != v {
				t.Errorf("%s: %s=%q, want %q", got.Key, k, got.Fields[k], v)
			}
		}
	}
	tests := []Test{
		{Suite: "sched", Case: "yield", OK: true},
		{Suite: "hostile", Case: "free_interior", OK: true, Detail: "want=-EINVAL got=-EINVAL"},
		{Suite: "proc", Case: "all", OK: true, Detail: "cases=12 failed=0"},
		{Suite: "launcher", Case: "vcpu1_fpu_kept", OK: true},
	}
	if len(l.Tests) != len(tests) {
		t.Fatalf("read %d tests, want %d:\n%s", len(l.Tests), len(tests), out)
	}
	for i, want := range tests {
		got := l.Tests[i]
		got.File, got.Line = "", 0
		if got != want {
			t.Errorf("test %d: %+v, want %+v", i, got, want)
		}
	}
	// The summary's detail is name=value fields, as a figure's are.
	if f, err := ParseFields(l.Tests[2].Detail); err != nil || f["cases"] != "12" || f["failed"] != "0" {
		t.Errorf("summary fields %v, %v", f, err)
	}
	fail, ok, err := ParseTest(lines[len(lines)-1])
	if !ok || err != nil || fail.OK || fail.Suite != "scale" || fail.Case != "exits_8" ||
		fail.Detail != "sandbox 3 exit=-5" {
		t.Errorf("the failed test read as %+v, %v, %v", fail, ok, err)
	}
	// And a log with it is refused, naming the line.
	if err := os.WriteFile(name, []byte(strings.Join(append(lines[:done:done], lines[len(lines)-1], lines[done]), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(name); err == nil || !strings.Contains(err.Error(), "s.log:") ||
		!strings.Contains(err.Error(), "a test failed") {
		t.Errorf("a log with a failed test: %v", err)
	}
}
