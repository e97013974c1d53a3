package guest

import (
	"os"
	"strings"
	"testing"
)

// An int3 oops whose code bytes show the int3 already replaced is the
// emulator's; one that shows the int3 itself, or any other oops, is ours.
func TestEmulatorFault(t *testing.T) {
	stale, err := os.ReadFile("testdata/stale-int3.console")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(stale), "\n")
	if got := emulatorFault(lines, true); !strings.Contains(got, "int3 no longer in memory (0f <1f>)") {
		t.Errorf("stale int3: got %q", got)
	}
	live := []string{"Oops: int3: 0000 [#1] PREEMPT SMP NOPTI", "Code: 90 90 cc <90> 90"}
	if got := emulatorFault(live, true); got != "" {
		t.Errorf("an int3 still in memory is not the emulator's; got %q", got)
	}
	gp := []string{"Oops: general protection fault: 0000 [#1]", "Code: 0f <1f> 44 00 00"}
	if got := emulatorFault(gp, true); got != "" {
		t.Errorf("a general protection fault is not the emulator's; got %q", got)
	}
	if got := emulatorFault(gp, false); got == "" {
		t.Errorf("a boot that died before the suite began is the emulator's")
	}
}

// An oops in Linux's own code while the endovisor loads is the emulator's
// (testdata/load-oops.console is the part CI kept of one); the same with a
// module frame in the trace, or after the load finished, is ours.
func TestEmulatorFaultDuringLoad(t *testing.T) {
	b, err := os.ReadFile("testdata/load-oops.console")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if got := emulatorFault(lines, true); !strings.Contains(got, "while the endovisor's init patched") {
		t.Errorf("oops during load: got %q", got)
	}
	ours := append([]string{lines[0], " ev_ipi_probe_pre+0x1c/0x40 [endovisor]"}, lines[1:]...)
	if got := emulatorFault(ours, true); got != "" {
		t.Errorf("a module frame in the trace makes it ours; got %q", got)
	}
	loaded := strings.ReplaceAll(string(b), "endovisor(OE+)", "endovisor(OE)")
	if got := emulatorFault(strings.Split(loaded, "\n"), true); got != "" {
		t.Errorf("an oops after the load finished is ours; got %q", got)
	}
}
