package srcindex

import (
	"regexp"
	"strings"
)

// The definitions of an assembly source: its symbols and its macros.

var (
	symStart   = regexp.MustCompile(`^\s*(?:SYM_[A-Z_]*START[A-Z_]*|ENTRY)\(\s*([A-Za-z_.][A-Za-z0-9_.$]*)`)
	symEnd     = regexp.MustCompile(`^\s*(?:SYM_[A-Z_]*END|END|ENDPROC)\(\s*([A-Za-z_.][A-Za-z0-9_.$]*)`)
	globlRE    = regexp.MustCompile(`^\s*\.glob(?:a)?l\s+([A-Za-z_.][A-Za-z0-9_.$]*)`)
	funcType   = regexp.MustCompile(`^\s*\.type\s+([A-Za-z_.][A-Za-z0-9_.$]*)\s*,\s*[@%]function\b`)
	labelRE    = regexp.MustCompile(`^\s*([A-Za-z_.][A-Za-z0-9_.$]*):`)
	sizeRE     = regexp.MustCompile(`^\s*\.size\s+([A-Za-z_.][A-Za-z0-9_.$]*)\s*,`)
	macroRE    = regexp.MustCompile(`^\s*\.macro\s+([A-Za-z_.][A-Za-z0-9_.$]*)`)
	endmRE     = regexp.MustCompile(`^\s*\.endm\b`)
	asmTrailer = regexp.MustCompile(`^\s*(\.(globl|global|type|align|p2align|balign)\b.*)?$`)
)

// ScanAsm lists the symbols of an assembly source (run through the C
// preprocessor): its global labels, the functions .type or
// SYM_FUNC_START_LOCAL names, local or not, each to its .size, its
// SYM_*_END or the next symbol; and its macros, of the preprocessor and
// of the assembler.  Local labels (.L1, 1:) are part of their symbol.
func ScanAsm(src string) []*Def {
	lines := strings.Split(BlankC(src), "\n")
	defs := CppLines(lines)
	symbol := map[string]bool{}
	for _, l := range lines {
		if m := globlRE.FindStringSubmatch(l); m != nil {
			symbol[m[1]] = true
		}
		if m := funcType.FindStringSubmatch(l); m != nil {
			symbol[m[1]] = true
		}
	}
	var open *Def // the symbol being read
	closeAt := func(n int) {
		if open == nil {
			return
		}
		// Not the blank lines and the next symbol's directives before it.
		for n > open.Start && asmTrailer.MatchString(lines[n-1]) {
			n--
		}
		open.End = n
		defs = append(defs, open)
		open = nil
	}
	for i := 0; i < len(lines); i++ {
		l, n := lines[i], i+1
		switch m := []string(nil); {
		case macroRE.MatchString(l):
			m = macroRE.FindStringSubmatch(l)
			d := &Def{Name: m[1], Kind: KindAsmMacro, Start: n, End: n}
			for i+1 < len(lines) && !endmRE.MatchString(lines[i]) {
				i++
			}
			d.End = i + 1
			defs = append(defs, d)
		case symStart.MatchString(l):
			m = symStart.FindStringSubmatch(l)
			closeAt(n - 1)
			open = &Def{Name: m[1], Kind: KindAsm, Start: n}
		case labelRE.MatchString(l) && symbol[labelRE.FindStringSubmatch(l)[1]]:
			m = labelRE.FindStringSubmatch(l)
			closeAt(n - 1)
			open = &Def{Name: m[1], Kind: KindAsm, Start: n}
		case symEnd.MatchString(l) || sizeRE.MatchString(l):
			if m = symEnd.FindStringSubmatch(l); m == nil {
				m = sizeRE.FindStringSubmatch(l)
			}
			if open != nil && open.Name == m[1] {
				closeAt(n)
			}
		}
	}
	closeAt(len(lines))
	return defs
}
