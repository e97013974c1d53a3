package srcindex

import (
	"regexp"
	"strings"
)

// The definitions of shell scripts and makefiles, read line by line.

var (
	shellFunc  = regexp.MustCompile(`^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*(\{.*)?$`)
	makeRuleRE = regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:([^=]|$)`)
)

// scanShell lists a shell script's functions, name() {, each to the
// closing brace at its own indentation.
func scanShell(lines []string) []*Def {
	var defs []*Def
	for i, l := range lines {
		m := shellFunc.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		d := &Def{Name: m[2], Kind: KindShell, Start: i + 1, End: i + 1}
		if !strings.HasSuffix(strings.TrimSpace(l), "}") {
			for k := i + 1; k < len(lines); k++ {
				if strings.TrimSpace(lines[k]) == "}" && strings.HasPrefix(lines[k], m[1]+"}") {
					d.End = k + 1
					break
				}
			}
		}
		defs = append(defs, d)
	}
	return defs
}

// scanMake lists a makefile's targets, each with its recipe; not the
// special ones (.PHONY) nor files named by a variable.
func scanMake(lines []string) []*Def {
	var defs []*Def
	for i := 0; i < len(lines); i++ {
		m := makeRuleRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		end := i
		for end+1 < len(lines) && (strings.HasPrefix(lines[end+1], "\t") || strings.HasSuffix(lines[end], "\\")) {
			end++
		}
		for _, t := range strings.Fields(m[1]) {
			if !strings.HasPrefix(t, ".") {
				defs = append(defs, &Def{Name: t, Kind: KindTarget, Start: i + 1, End: end + 1})
			}
		}
	}
	return defs
}
