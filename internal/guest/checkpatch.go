package guest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Checkpatch runs the pinned kernel's own checkpatch.pl --strict over the
// kernel-mode C and assembly of prototype/ (the endovisor, vOSTD, the
// kernelet, the stub, the sandbox kernels and the ABI headers they share)
// and fails on any finding that prototype/guest/checkpatch.allow does not list:
// each kept finding is listed there by file and type with its count and
// why, so a new one, or a count that changed, fails as a warning does.
func (p *Pipeline) Checkpatch() error {
	if err := p.ensureDeps(deps); err != nil {
		return err
	}
	script, err := checkpatchScript(p)
	if err != nil {
		return err
	}
	files, err := checkpatchFiles(p)
	if err != nil {
		return err
	}
	allowName := filepath.Join(p.proto, "guest", "checkpatch.allow")
	allow, err := readAllow(allowName)
	if err != nil {
		return err
	}
	// checkpatch exits 1 on any finding; its output says which.  It
	// runs in its own directory, where it keeps a cache of names, and
	// is given absolute paths, which the parse makes relative again.
	var abs []string
	for _, f := range files {
		abs = append(abs, filepath.Join(p.proto, f))
	}
	out, _ := output(filepath.Dir(script), nil, "perl", append([]string{script, "--no-tree", "--strict", "--terse",
		"--show-types", "--no-summary", "-f"}, abs...)...)
	found, lines, err := parseCheckpatch(strings.ReplaceAll(out, p.proto+"/", ""))
	if err != nil {
		return err
	}
	if err := compareAllow(found, lines, allow, allowName); err != nil {
		return err
	}
	total := 0
	for _, n := range found {
		total += n
	}
	p.logf("checkpatch --strict: %d files; %d findings, each listed in %s", len(files), total, allowName)
	return nil
}

// compareAllow fails naming each file and type whose findings the allow
// file does not list at their count, and each listed that is gone.
func compareAllow(found map[finding]int, lines map[finding][]string, allow map[finding]int, allowName string) error {
	var bad []string
	for k, n := range found {
		if a, ok := allow[k]; !ok || a != n {
			bad = append(bad, fmt.Sprintf("%s %s: %d found, %d allowed:\n  %s", k.file, k.kind, n, allow[k],
				strings.Join(lines[k], "\n  ")))
		}
	}
	for k, n := range allow {
		if _, ok := found[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s %s: none found, %d allowed: drop the line from %s", k.file, k.kind, n, allowName))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("checkpatch: findings not as %s lists them:\n%s", allowName, strings.Join(bad, "\n"))
	}
	return nil
}

// finding is a file and a checkpatch type (LONG_LINE, SPACING).
type finding struct{ file, kind string }

var checkpatchLine = regexp.MustCompile(`^([^:\s]+):\d+: (?:ERROR|WARNING|CHECK):([A-Z0-9_]+):`)

// parseCheckpatch counts the findings of checkpatch's --terse output by
// file and type, keeping each line to show.
func parseCheckpatch(out string) (map[finding]int, map[finding][]string, error) {
	found := map[finding]int{}
	lines := map[finding][]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		m := checkpatchLine.FindStringSubmatch(l)
		if m == nil {
			if strings.Contains(l, "ERROR") || strings.Contains(l, "WARNING") || strings.Contains(l, "CHECK") {
				return nil, nil, fmt.Errorf("checkpatch: a line this parser does not read: %q", l)
			}
			continue
		}
		k := finding{m[1], m[2]}
		found[k]++
		lines[k] = append(lines[k], l)
	}
	return found, lines, sc.Err()
}

// readAllow reads checkpatch.allow: after # comments, lines of PATH TYPE
// COUNT REASON, the reason required.
func readAllow(name string) (map[finding]int, error) {
	lines, err := settingLines(name)
	if err != nil {
		return nil, err
	}
	allow := map[finding]int{}
	for _, l := range lines {
		line, w := l.n, strings.Fields(l.text)
		if len(w) < 4 {
			return nil, fmt.Errorf("%s:%d: want PATH TYPE COUNT REASON", name, line)
		}
		n, err := strconv.Atoi(w[2])
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s:%d: %q is not a count", name, line, w[2])
		}
		k := finding{w[0], w[1]}
		if _, dup := allow[k]; dup {
			return nil, fmt.Errorf("%s:%d: %s %s listed twice", name, line, w[0], w[1])
		}
		allow[k] = n
	}
	return allow, nil
}

// checkpatchFiles are the kernel-mode sources, relative to prototype/.
func checkpatchFiles(p *Pipeline) ([]string, error) {
	var files []string
	for _, g := range []string{"endovisor/*.[chS]", "vostd/*.[chS]", "kernelet/*.[chS]", "stub/*.[chS]",
		"kernels/*/*.[chS]", "abi/*.h"} {
		m, err := filepath.Glob(filepath.Join(p.proto, g))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			rel, err := filepath.Rel(p.proto, f)
			if err != nil {
				return nil, err
			}
			files = append(files, rel)
		}
	}
	sort.Strings(files)
	return files, nil
}

// checkpatchScript is scripts/checkpatch.pl of the pinned kernel's own
// source (Debian's linux-source package of the guest's version), with
// the two data files it reads beside it, unpacked once into
// .build/checkpatch-VERSION.
func checkpatchScript(p *Pipeline) (string, error) {
	pn, err := readPin(p)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(p.cache, "checkpatch-"+pn.version)
	script := filepath.Join(dir, "checkpatch.pl")
	if _, err := os.Stat(script); err == nil {
		return script, nil
	}
	if err := unpackSource(p, pn, dir, 2, "scripts/checkpatch.pl", "scripts/spelling.txt",
		"scripts/const_structs.checkpatch"); err != nil {
		return "", err
	}
	return script, nil
}
