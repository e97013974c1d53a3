package guest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The monitor's echo of a typed command, redrawn after every character,
// is kept as its last drawing.
func TestMonitorEcho(t *testing.T) {
	echo := "(qemu) i\x1b[K\x1b[Din\x1b[K\x1b[D\x1b[Dinfo r\x1b[K\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x1b[Dinfo registers -a\x1b[K"
	for in, want := range map[string]string{
		echo:             "(qemu) info registers -a",
		"(qemu) ":        "(qemu) ",
		"RIP=0 x\x1b[Dy": "RIP=0 x\x1b[Dy",
	} {
		if got := monitorEcho(in); got != want {
			t.Errorf("monitorEcho(%q) = %q, want %q", in, got, want)
		}
	}
}

// Each vCPU's RIP in the monitor's dump is named from System.map, as the
// nearest text symbol at or below it; past the last one, or without a
// map, it is left unnamed.
func TestNameHungRIPs(t *testing.T) {
	sysmap := filepath.Join(t.TempDir(), "System.map")
	m := "ffffffff81000000 T _stext\nffffffff81000100 t do_idle\nffffffff81000180 D some_data\nffffffff81000200 T cpu_relax_loop\nffffffff81000300 T _etext\n"
	if err := os.WriteFile(sysmap, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	dump := []string{
		"CPU#0", "RIP=ffffffff81000123 RFL=00000246 [---Z-P-] CPL=0",
		"CPU#1", "RIP=ffffffff81000200 RFL=00000002 [-------] CPL=0",
		"CPU#2", "RIP=ffffffffc0001000 RFL=00000002 [-------] CPL=0",
	}
	want := []string{
		"EVHANG vcpu=0 rip=ffffffff81000123 do_idle+0x23",
		"EVHANG vcpu=1 rip=ffffffff81000200 cpu_relax_loop+0x0",
		"EVHANG vcpu=2 rip=ffffffffc0001000 outside the kernel's text (a module, or user mode)",
	}
	if got := nameHungRIPs(dump, sysmap, true); !slices.Equal(got, want) {
		t.Errorf("named:\n%q\nwant\n%q", got, want)
	}
	got := nameHungRIPs(dump[:2], sysmap, false)
	if len(got) != 1 || got[0] != "EVHANG vcpu=0 rip=ffffffff81000123 not named (KASLR, or no System.map)" {
		t.Errorf("unnamed: %q", got)
	}
}
