package figlog

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// FuzzRead reads arbitrary bytes as a log.  Plain go test runs the seeds;
// go test -fuzz FuzzRead ./internal/figlog runs it for as long as asked (make
// fuzz).  Whatever the input, Read must not panic, and a log it accepts
// must hold only figures the book can print: a valid key, a finite plain
// number, a unit, fields without control characters, a line that exists.
func FuzzRead(f *testing.F) {
	seeds := []string{
		"EVRUN suite=s boot=1 of=1\n[endovisor] EVFIG a.b value=36.2 stat=min unit=cycles rounds=7\nEV-DONE status=ok\n",
		"EVRUN suite=s boot=1 of=1 host=\"x y\"\n[sched.0] EVFIG k value=3600 stat=median p99=5392 n=1000 unit=cycles baseline=linux.k\nEVFIG linux.k value=7 unit=cycles\nEV-DONE status=ok",
		"EVRUN suite=s\nEVFIG a value=NaN unit=ms\nEV-DONE status=ok\n",
		"EVRUN suite=s\nEVFIG a value=1 unit=<script>\nEV-DONE status=ok\n",
		"EVRUN suite=s\n[pid 1] x EVFIG a value=1 unit=ms\nEV-DONE status=ok\n",
		"EVRUN suite=s\nEV-DONE status=ok\nEVFIG a value=1 unit=ms",
		"EVRUN a=\"\\u0000\" b=\"\\n\"\nEV-DONE status=okay\n",
		"EVRUN\r\nEVFIG a value=-0.5 unit=ms p99=1e3\r\nEV-DONE status=ok\r\n",
		"\xef\xbb\xbfEVRUN suite=s\nEVFIG \xff value=1 unit=ms\nEV-DONE status=ok\n",
		"EVRUN suite=s\n[sched.0] EVTEST sched yield ok\n[sched.0] EVTEST sched all ok cases=1 failed=0\nEV-DONE status=ok\n",
		"EVRUN suite=s\nEVTEST launcher vcpu0_fpu_kept FAIL its FPU registers came back changed\nEV-DONE status=ok\n",
		"EVRUN suite=s\n[proc.0] EVTEST proc hello maybe\nEVTEST\nEV-DONE status=ok\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		name := filepath.Join(dir, "fuzz.log")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Read(name)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, fig := range l.Figures {
			if !ValidKey(fig.Key) {
				t.Fatalf("accepted key %q", fig.Key)
			}
			v, err := strconv.ParseFloat(fig.Fields["value"], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted value %q", fig.Fields["value"])
			}
			if !wordRE.MatchString(fig.Fields["unit"]) {
				t.Fatalf("accepted unit %q", fig.Fields["unit"])
			}
			if fig.Line < 1 || fig.Line > lines {
				t.Fatalf("figure %s on line %d of %d", fig.Key, fig.Line, lines)
			}
			for k, v := range fig.Fields {
				if strings.ContainsFunc(v, unicode.IsControl) {
					t.Fatalf("accepted a control character in %s=%q", k, v)
				}
			}
		}
		for _, tc := range l.Tests {
			if !tc.OK || !testName.MatchString(tc.Suite) || !testName.MatchString(tc.Case) ||
				strings.ContainsFunc(tc.Detail, unicode.IsControl) {
				t.Fatalf("accepted test %+v", tc)
			}
		}
	})
}

// FuzzParseFields: whatever the text, fields are named plainly and hold no
// control characters.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{`a=1 b="x y" c=2`, `a="\n"`, `a=1 a=2`, `=1`, `a="x"b`, `a="unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseFields(s)
		if err != nil {
			return
		}
		for k, v := range fields {
			if !fieldRE.MatchString(k) || strings.ContainsFunc(v, unicode.IsControl) {
				t.Fatalf("accepted %q=%q from %q", k, v, s)
			}
		}
	})
}
