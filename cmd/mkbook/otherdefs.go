package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// The definitions of the sources that are not C: assembly's global
// symbols and macros, Go's declarations, shell functions and make targets.

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
	shellFunc  = regexp.MustCompile(`^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*(\{.*)?$`)
	makeRuleRE = regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:([^=]|$)`)
)

// scanAsm lists the symbols of an assembly source (run through the C
// preprocessor): its global labels, the functions .type or
// SYM_FUNC_START_LOCAL names, local or not, each to its .size, its
// SYM_*_END or the next symbol; and its macros, of the preprocessor and
// of the assembler.  Local labels (.L1, 1:) are part of their symbol.
func scanAsm(src string) []*def {
	lines := strings.Split(blankC(src), "\n")
	defs := cppLines(lines)
	symbol := map[string]bool{}
	for _, l := range lines {
		if m := globlRE.FindStringSubmatch(l); m != nil {
			symbol[m[1]] = true
		}
		if m := funcType.FindStringSubmatch(l); m != nil {
			symbol[m[1]] = true
		}
	}
	var open *def // the symbol being read
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
			d := &def{Name: m[1], Kind: kAsmMacro, Start: n, End: n}
			for i+1 < len(lines) && !endmRE.MatchString(lines[i]) {
				i++
			}
			d.End = i + 1
			defs = append(defs, d)
		case symStart.MatchString(l):
			m = symStart.FindStringSubmatch(l)
			closeAt(n - 1)
			open = &def{Name: m[1], Kind: kAsm, Start: n}
		case labelRE.MatchString(l) && symbol[labelRE.FindStringSubmatch(l)[1]]:
			m = labelRE.FindStringSubmatch(l)
			closeAt(n - 1)
			open = &def{Name: m[1], Kind: kAsm, Start: n}
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

// scanGo lists a Go file's top-level declarations: funcs, methods (named
// by the method, with the receiver's type as container), types, vars and
// consts.
func scanGo(name string, data []byte) ([]*def, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkg := f.Name.Name
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var defs []*def
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			df := &def{Name: d.Name.Name, Kind: kFunc, Start: line(d.Pos()), End: line(d.End()), Pkg: pkg}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				df.Kind, df.Container = kMethod, recvType(d.Recv.List[0].Type)
			}
			defs = append(defs, df)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				start, end := line(spec.Pos()), line(spec.End())
				if !d.Lparen.IsValid() {
					start, end = line(d.Pos()), line(d.End())
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					defs = append(defs, &def{Name: s.Name.Name, Kind: kType, Start: start, End: end, Pkg: pkg})
				case *ast.ValueSpec:
					kind := kVar
					if d.Tok == token.CONST {
						kind = kConst
					}
					for _, n := range s.Names {
						if n.Name != "_" {
							defs = append(defs, &def{Name: n.Name, Kind: kind, Start: start, End: end, Pkg: pkg})
						}
					}
				}
			}
		}
	}
	return defs, nil
}

// recvType names a method's receiver type: T of T, *T and T[K].
func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// scanShell lists a shell script's functions, name() {, each to the
// closing brace at its own indentation.
func scanShell(lines []string) []*def {
	var defs []*def
	for i, l := range lines {
		m := shellFunc.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		d := &def{Name: m[2], Kind: kShell, Start: i + 1, End: i + 1}
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
func scanMake(lines []string) []*def {
	var defs []*def
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
				defs = append(defs, &def{Name: t, Kind: kTarget, Start: i + 1, End: end + 1})
			}
		}
	}
	return defs
}
