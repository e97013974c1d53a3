package guest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpatchAllow: checkpatch's terse findings are counted by file and
// type, and a finding the allow file does not list, a count that changed
// and a listed finding that is gone each fail, named.
func TestCheckpatchAllow(t *testing.T) {
	out := `endovisor/heap.c:12: WARNING:VOLATILE: Use of volatile is usually wrong
endovisor/heap.c:40: WARNING:VOLATILE: Use of volatile is usually wrong
abi/ev_abi.h:3: CHECK:LONG_LINE: line length of 104 exceeds 100 columns
total: 0 errors, 2 warnings, 1 checks, 90 lines checked
`
	found, lines, err := parseCheckpatch(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := found[finding{"endovisor/heap.c", "VOLATILE"}]; n != 2 {
		t.Fatalf("VOLATILE in heap.c: %d findings, want 2", n)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "checkpatch.allow")
	write := func(s string) map[finding]int {
		t.Helper()
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		allow, err := readAllow(name)
		if err != nil {
			t.Fatal(err)
		}
		return allow
	}
	allow := write("# kept\nendovisor/heap.c VOLATILE 2 timing loops\nabi/ev_abi.h LONG_LINE 1 parsed by a tool\n")
	if err := compareAllow(found, lines, allow, name); err != nil {
		t.Fatalf("every finding listed: %v", err)
	}
	allow = write("endovisor/heap.c VOLATILE 1 timing loops\nendovisor/vm.c SPACING 1 gone\n")
	err = compareAllow(found, lines, allow, name)
	for _, want := range []string{
		"endovisor/heap.c VOLATILE: 2 found, 1 allowed",
		"abi/ev_abi.h LONG_LINE: 1 found, 0 allowed",
		"endovisor/vm.c SPACING: none found, 1 allowed",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
	if err := os.WriteFile(name, []byte("endovisor/heap.c VOLATILE 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAllow(name); err == nil || !strings.Contains(err.Error(), "want PATH TYPE COUNT REASON") {
		t.Errorf("a line without a reason: %v", err)
	}
	if _, _, err := parseCheckpatch("heap.c: ERROR something odd\n"); err == nil {
		t.Errorf("a finding line the parser cannot read was taken")
	}
}

// TestDebugConfig: the debug kernel's config turns every module off, and
// a fragment line the final config does not hold is named.
func TestDebugConfig(t *testing.T) {
	got := modulesOff("CONFIG_A=y\nCONFIG_B=m\nCONFIG_C_D=m\n# CONFIG_E is not set\n")
	if want := "CONFIG_A=y\n# CONFIG_B is not set\n# CONFIG_C_D is not set\n# CONFIG_E is not set\n"; got != want {
		t.Fatalf("modulesOff: %q, want %q", got, want)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		name = filepath.Join(dir, name)
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	config := write(".config", "CONFIG_KASAN=y\n# CONFIG_KCSAN is not set\nCONFIG_LIST=y\n")
	debug := write("debug.config", "# on top\nCONFIG_KASAN=y\n\nCONFIG_KCSAN=y\n")
	err := checkFragments(config, []string{debug})
	if err == nil || !strings.Contains(err.Error(), "debug.config:4: CONFIG_KCSAN=y") || strings.Contains(err.Error(), "KASAN") {
		t.Fatalf("checkFragments: %v", err)
	}
	// A later fragment overrides an earlier one, "is not set" included:
	// here the .config holds what the last settings ask but for LIST.
	config = write(".config", "# CONFIG_KASAN is not set\nCONFIG_KCSAN=y\nCONFIG_LIST=y\n")
	kcsan := write("kcsan.config", "# CONFIG_KASAN is not set\n# CONFIG_LIST is not set\nCONFIG_KCSAN=y\n")
	err = checkFragments(config, []string{debug, kcsan})
	if err == nil || !strings.Contains(err.Error(), "kcsan.config:2: # CONFIG_LIST is not set") || strings.Contains(err.Error(), "KASAN") || strings.Contains(err.Error(), "KCSAN") {
		t.Fatalf("checkFragments over two fragments: %v", err)
	}
	// A line that is no setting is named.
	err = checkFragments(config, []string{write("bad.config", "CONFIG_KCSAN=y\nKCSAN=y\n")})
	if err == nil || !strings.Contains(err.Error(), "bad.config:2: not a setting: KCSAN=y") {
		t.Fatalf("checkFragments of a bad line: %v", err)
	}
}
