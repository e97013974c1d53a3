package srcindex

import (
	"regexp"
	"strings"
)

// A scanner of C at file scope, not a parser: it blanks comments and
// literals, takes the preprocessor's #define lines for macros, and reads
// the rest as a run of declarations, each ended by a ; or a body in
// braces at depth 0.  That is enough for kernel-style C: function
// definitions (from the line their declaration starts on, return type
// included, to the closing brace), structs, unions and enums with their
// members and constants, typedefs, globals (those Linux's DEFINE_ macros
// make too), functions a definition macro makes (definers), the services
// the list of the services names (defs.go: listedServices), and
// prototypes and externs as declarations.  What it does not read: K&R
// parameter lists.

// BlankC replaces comments, string and character literals with spaces,
// keeping every newline, so that lines and columns stay where they were.
func BlankC(src string) string {
	b := []byte(src)
	const (
		code = iota
		line
		block
		str
		chr
	)
	state := code
	for i := 0; i < len(b); i++ {
		c := b[i]
		next := byte(0)
		if i+1 < len(b) {
			next = b[i+1]
		}
		switch state {
		case code:
			switch {
			case c == '/' && next == '/':
				state = line
				b[i] = ' '
			case c == '/' && next == '*':
				state = block
				b[i], b[i+1] = ' ', ' '
				i++
			case c == '"':
				state = str
				b[i] = ' '
			case c == '\'':
				state = chr
				b[i] = ' '
			}
		case line:
			switch {
			case c == '\\' && next == '\n': // the comment goes on
				b[i] = ' '
				i++
			case c == '\n':
				state = code
			default:
				b[i] = ' '
			}
		case block:
			if c == '*' && next == '/' {
				b[i], b[i+1] = ' ', ' '
				i++
				state = code
			} else if c != '\n' {
				b[i] = ' '
			}
		case str, chr:
			end := byte('"')
			if state == chr {
				end = '\''
			}
			switch {
			case c == '\\' && next != 0:
				b[i] = ' '
				if next != '\n' {
					b[i+1] = ' '
				}
				i++
			case c == end:
				b[i] = ' '
				state = code
			case c == '\n': // an unclosed literal ends with its line
				state = code
			default:
				b[i] = ' '
			}
		}
	}
	return string(b)
}

var (
	defineRE    = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)`)
	conditional = regexp.MustCompile(`^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b\s*(.*?)\s*$`)
)

// CppLines takes the preprocessor's lines out of blanked C: each #define
// becomes a macro, through its continuation lines, and every directive is
// blanked for the declarations' scan.  Of an #if the scan follows the
// first branch only, as ctags does, so that two branches that each open
// a function's brace do not unbalance the rest; an #if 0 block is
// skipped, its #else followed.  What a branch not followed holds is
// blanked, its #defines too.
func CppLines(lines []string) []*Def {
	var defs []*Def
	// For each #if open: is the branch being read skipped, and is it an #if 0's?
	type cond struct{ skip, zero bool }
	var conds []cond
	skipping := func() bool {
		for _, c := range conds {
			if c.skip {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
			if skipping() {
				lines[i] = ""
			}
			continue
		}
		start := i
		for strings.HasSuffix(strings.TrimRight(lines[i], " \t"), "\\") && i+1 < len(lines) {
			i++
		}
		if m := conditional.FindStringSubmatch(lines[start]); m != nil {
			switch m[1] {
			case "if", "ifdef", "ifndef":
				zero := m[1] == "if" && m[2] == "0"
				conds = append(conds, cond{skip: zero, zero: zero})
			case "endif":
				if len(conds) > 0 {
					conds = conds[:len(conds)-1]
				}
			default: // the #elif and #else branches
				if n := len(conds); n > 0 {
					conds[n-1].skip = !conds[n-1].zero
					conds[n-1].zero = false
				}
			}
		} else if m := defineRE.FindStringSubmatch(lines[start]); m != nil && !skipping() {
			defs = append(defs, &Def{Name: m[1], Kind: KindMacro, Start: start + 1, End: i + 1})
		}
		for k := start; k <= i; k++ {
			lines[k] = ""
		}
	}
	return defs
}

type ctok struct {
	s    string
	line int
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ctokens splits blanked C into words and the punctuation that matters.
func ctokens(lines []string) []ctok {
	var toks []ctok
	for n, l := range lines {
		for i := 0; i < len(l); {
			c := l[i]
			switch {
			case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\\':
				i++
			case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
				j := i
				for j < len(l) && (l[j] == '_' || l[j] >= 'a' && l[j] <= 'z' || l[j] >= 'A' && l[j] <= 'Z' || l[j] >= '0' && l[j] <= '9' || l[j] == '.' && c >= '0' && c <= '9') {
					j++
				}
				toks = append(toks, ctok{l[i:j], n + 1})
				i = j
			default:
				j := i + 1
				if j < len(l) {
					switch l[i : j+1] {
					case "==", "!=", "<=", ">=", "->", "&&", "||", "<<", ">>", "++", "--", "+=", "-=", "|=", "&=":
						j++
					}
				}
				toks = append(toks, ctok{l[i:j], n + 1})
				i = j
			}
		}
	}
	return toks
}

// Words that are no declarator's name.
var cKeywords = map[string]bool{
	"static": true, "extern": true, "const": true, "volatile": true, "inline": true, "unsigned": true,
	"signed": true, "int": true, "long": true, "short": true, "char": true, "void": true, "float": true,
	"double": true, "struct": true, "union": true, "enum": true, "typedef": true, "register": true,
	"auto": true, "restrict": true, "_Bool": true, "bool": true, "__inline": true, "sizeof": true,
	"asmlinkage": true, "noinline": true, "notrace": true, "noinstr": true, "_Noreturn": true,
}

// Linux's attributes: not names, and some take arguments.
var cAttrs = map[string]bool{
	"__attribute__": true, "__attribute": true, "__init": true, "__exit": true, "__user": true, "__rcu": true,
	"__percpu": true, "__iomem": true, "__read_mostly": true, "__ro_after_init": true, "__initdata": true,
	"__always_inline": true, "__noreturn": true, "__maybe_unused": true, "__used": true, "__weak": true,
	"__cold": true, "__hot": true, "__packed": true, "__aligned": true, "__printf": true, "__scanf": true,
	"__must_check": true, "__force": true, "__visible": true, "____cacheline_aligned": true,
	"__cacheline_aligned": true, "__section": true, "__noinline": true, "__latent_entropy": true,
	"__acquires": true, "__releases": true, "__must_hold": true, "__counted_by": true, "__nonstring": true,
	"__malloc": true, "__alloc_size": true, "asm": true, "__asm__": true, "__asm": true, "__volatile__": true,
}

// group is the index just past the bracket that closes the one at i, or
// the end if none does (a file cut short, in the middle of an edit).
func group(toks []ctok, i int) int {
	end, _ := closing(toks, i)
	return end
}

// bracket is +1 of an opening bracket, -1 of a closing one, else 0.
func bracket(s string) int {
	switch s {
	case "(", "[", "{":
		return 1
	case ")", "]", "}":
		return -1
	}
	return 0
}

// closing is group, and whether a bracket closes the one at i.
func closing(toks []ctok, i int) (end int, closed bool) {
	depth := 0
	for ; i < len(toks); i++ {
		depth += bracket(toks[i].s)
		if depth == 0 && bracket(toks[i].s) < 0 {
			return i + 1, true
		}
	}
	return i, false
}

// inside is what lies between the bracket at i and the one that closes
// it, or all that follows it if none does.
func inside(toks []ctok, i int) (in []ctok, end int) {
	end, closed := closing(toks, i)
	if closed {
		return toks[i+1 : end-1], end
	}
	return toks[i+1 : end], end
}

// semicolon is the index of the first ; from i outside brackets, or the
// end.
func semicolon(toks []ctok, i int) int {
	for i < len(toks) && toks[i].s != ";" {
		if toks[i].s == "{" || toks[i].s == "(" || toks[i].s == "[" {
			i = group(toks, i)
			continue
		}
		i++
	}
	return i
}

// dropAttrs removes attributes, with their arguments, from a declaration.
func dropAttrs(toks []ctok) []ctok {
	var out []ctok
	for i := 0; i < len(toks); i++ {
		if cAttrs[toks[i].s] {
			if i+1 < len(toks) && toks[i+1].s == "(" {
				i = group(toks, i+1) - 1
			}
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

// splitTop splits tokens at a separator outside brackets.
func splitTop(toks []ctok, sep string) [][]ctok {
	return SplitOutside(toks, func(t ctok) bool { return t.s == sep }, func(t ctok) int { return bracket(t.s) })
}

// SplitOutside splits xs at each separator outside brackets: bracket
// says +1 of an opening bracket, -1 of a closing one.  A closing bracket
// with none open is taken as text.
func SplitOutside[T any](xs []T, sep func(T) bool, bracket func(T) int) [][]T {
	var parts [][]T
	depth, last := 0, 0
	for i, x := range xs {
		switch {
		case bracket(x) != 0:
			depth = max(0, depth+bracket(x))
		case depth == 0 && sep(x):
			parts = append(parts, xs[last:i])
			last = i + 1
		}
	}
	return append(parts, xs[last:])
}

// declarator finds the name a declarator declares, and whether it
// declares a function (a prototype): int f(void) is one, int (*f)(void)
// is a pointer.
func declarator(toks []ctok) (name ctok, fn, ok bool) {
	// What follows = is the initializer; what follows : a bit-field's width.
	for i, t := range toks {
		if t.s == "=" || t.s == ":" {
			toks = toks[:i]
			break
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.s == "(":
			if ok && (i+1 >= len(toks) || toks[i+1].s != "*") {
				return name, true, true // the parameters of the function named
			}
			// A declarator in parentheses, the name inside: a pointer to
			// a function or an array, (*f)(void), a function that returns
			// one, (*signal(int))(int), or a name in parentheses, (f_t).
			in, _ := inside(toks, i)
			return declarator(in)
		case t.s == "[":
			i = group(toks, i) - 1
		case t.s == "struct" || t.s == "union" || t.s == "enum":
			if i+1 < len(toks) && isIdent(toks[i+1].s) {
				i++
			}
		case isIdent(t.s) && !cKeywords[t.s]:
			name, ok = t, true
		}
	}
	return name, false, ok
}

// A global a macro of Linux defines: the name is its first argument, or
// its last for the per-CPU ones; DECLARE_PER_CPU only declares.
var (
	defineMacro = regexp.MustCompile(`^(DEFINE_[A-Z0-9_]+|DECLARE_RWSEM|DECLARE_WAIT_QUEUE_HEAD|DECLARE_COMPLETION|DECLARE_BITMAP|LIST_HEAD|HLIST_HEAD)$`)
	perCPUMacro = regexp.MustCompile(`^(DEFINE|DECLARE)_PER_CPU`)
)

// definers are the definition macros in the style of Linux's
// SYSCALL_DEFINEn, whose call, followed by a body, defines a function
// the macro names from its first argument, as Linux's cross-referencers
// read them: SYSCALL_DEFINE2(kill, ...) { defines sys_kill, the
// endovisor's EV_SERVICE_DEFINE2(mem_alloc, ...) { defines
// ev_svc_mem_alloc, and the linux kernel proper's
// LX_SYSCALL_DEFINE2(kill, ...) { defines lx_sys_kill, from the macro's
// line to the closing brace.
var definers = []struct {
	macro  *regexp.Regexp
	prefix string
}{
	{regexp.MustCompile(`^SYSCALL_DEFINE[0-6]$`), "sys_"},
	{regexp.MustCompile(`^EV_SERVICE_DEFINE[0-5]$`), "ev_svc_"},
	{regexp.MustCompile(`^LX_SYSCALL_DEFINE[0-6]$`), "lx_sys_"},
}

// Definer is the prefix of the function a macro's call defines, if macro
// is a definition macro.
func Definer(macro string) (string, bool) {
	for _, d := range definers {
		if d.macro.MatchString(macro) {
			return d.prefix, true
		}
	}
	return "", false
}

// defined is the function a definition macro's call in head defines:
// MACRO(name, ...) and nothing else before the body.
func defined(head []ctok) (ctok, bool) {
	if len(head) < 4 || head[1].s != "(" || group(head, 1) != len(head) {
		return ctok{}, false
	}
	prefix, ok := Definer(head[0].s)
	if !ok || !isIdent(head[2].s) || (head[3].s != "," && head[3].s != ")") {
		return ctok{}, false
	}
	return ctok{s: prefix + head[2].s, line: head[2].line}, true
}

// testCall is a call that names a test of a kernel's: check("name", ...)
// or expect("name", ...), whose name the log reports it by.
var testCall = regexp.MustCompile(`\b(check|expect)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"`)

// tests lists the tests a C file names, each where it is first named: the
// code around the call is the test.
func tests(raw, blanked []string) []*Def {
	var defs []*Def
	seen := map[string]bool{}
	for n, l := range raw {
		for _, m := range testCall.FindAllStringSubmatchIndex(l, -1) {
			name := l[m[4]:m[5]]
			// Not in a comment or a string, which the blanked line has not.
			if seen[name] || n >= len(blanked) || !strings.HasPrefix(blanked[n][m[2]:], l[m[2]:m[3]]+"(") {
				continue
			}
			seen[name] = true
			defs = append(defs, &Def{Name: name, Kind: KindTest, Start: n + 1, End: n + 1})
		}
	}
	return defs
}

// ScanC lists the definitions of a C source or header.
func ScanC(src string) []*Def {
	lines := strings.Split(BlankC(src), "\n")
	defs := tests(strings.Split(src, "\n"), lines)
	defs = append(defs, CppLines(lines)...)
	defs = append(defs, listedServices(lines)...)
	toks := ctokens(lines)
	for i := 0; i < len(toks); {
		start := i
		depth := 0
		for ; i < len(toks); i++ {
			s := toks[i].s
			if depth == 0 && (s == ";" || s == "{" || s == "}") {
				break
			}
			depth += bracket(s)
		}
		if i >= len(toks) {
			break
		}
		start = pastMacroCalls(toks, start, i)
		head := dropAttrs(toks[start:i])
		switch s := toks[i].s; {
		case s == "}": // a brace this scan did not open: skip it
			i++
		case s == "{" && len(head) == 1 && head[0].s == "extern":
			i++ // extern "C" {: what it holds is at file scope
		case s == ";":
			defs = append(defs, cStatement(head, toks[start].line, toks[i].line)...)
			i++
		default:
			var ds []*Def
			ds, i = cBody(toks, start, head, i)
			defs = append(defs, ds...)
		}
	}
	return defs
}

// pastMacroCalls skips, from the start of a declaration that ends at
// end, the calls of macros that end their line without a semicolon:
// DEFINE_THING(x) above a function, which defines something (the macro's
// expansion) this scan cannot name.  An attribute so written stays with
// the declaration.
func pastMacroCalls(toks []ctok, start, end int) int {
	for start+1 < end && isIdent(toks[start].s) && !cKeywords[toks[start].s] && !cAttrs[toks[start].s] && toks[start+1].s == "(" {
		if _, ok := Definer(toks[start].s); ok {
			break // its call is the function's head
		}
		close := group(toks, start+1)
		if close >= end || toks[close].line == toks[close-1].line {
			break
		}
		start = close
	}
	return start
}

// cStatement reads a declaration ended by a semicolon.
func cStatement(head []ctok, first, last int) []*Def {
	if len(head) == 0 {
		return nil
	}
	k := 0
	for k < len(head) && (head[k].s == "static" || head[k].s == "extern") {
		k++
	}
	// A macro at file scope: MACRO(args);
	if k < len(head) && isIdent(head[k].s) && k+1 < len(head) && head[k+1].s == "(" && group(head, k+1) == len(head) {
		m := head[k].s
		if !defineMacro.MatchString(m) && !perCPUMacro.MatchString(m) {
			return nil
		}
		args := splitTop(head[k+2:len(head)-1], ",")
		if len(args) == 0 {
			return nil
		}
		arg := args[0]
		if perCPUMacro.MatchString(m) {
			arg = args[len(args)-1]
		}
		name, _, ok := declarator(arg)
		if !ok {
			return nil
		}
		kind := KindVar
		if strings.HasPrefix(m, "DECLARE_PER_CPU") {
			kind = KindDecl
		}
		return []*Def{{Name: name.s, Kind: kind, Start: first, End: last}}
	}
	return cDeclarators(head, first, last)
}

// cDeclarators names what a declaration declares: typedefs, variables,
// or, for prototypes and externs, declarations.
func cDeclarators(head []ctok, first, last int) []*Def {
	typedef, extern := false, false
	for _, t := range head {
		typedef = typedef || t.s == "typedef"
		extern = extern || t.s == "extern"
	}
	var defs []*Def
	for _, d := range splitTop(head, ",") {
		name, fn, ok := declarator(d)
		if !ok {
			continue
		}
		kind := KindVar
		switch {
		case typedef:
			kind = KindTypedef
		case fn || extern:
			kind = KindDecl
		}
		defs = append(defs, &Def{Name: name.s, Kind: kind, Start: first, End: last})
	}
	return defs
}

// cBody reads a declaration whose head is followed by a brace at toks[i]:
// a struct, union or enum; an initialized variable; or a function.  It
// returns where the scan goes on.
func cBody(toks []ctok, start int, head []ctok, i int) ([]*Def, int) {
	body, end := inside(toks, i)
	last := toks[end-1].line
	first := toks[start].line
	hasEq := false
	depth := 0
	for _, t := range head {
		depth += bracket(t.s)
		hasEq = hasEq || t.s == "=" && depth == 0
	}
	// struct NAME {, union {, enum NAME {: a tag's body.
	tag := -1
	for k := len(head) - 1; k >= 0 && k >= len(head)-2; k-- {
		if s := head[k].s; s == "struct" || s == "union" || s == "enum" {
			tag = k
		}
	}
	if tag >= 0 && !hasEq && (tag == len(head)-1 || isIdent(head[len(head)-1].s)) {
		kind := head[tag].s
		var defs []*Def
		container := ""
		if tag < len(head)-1 {
			name := head[len(head)-1].s
			container = kind + " " + name
			defs = append(defs, &Def{Name: name, Kind: kind, Start: first, End: last})
		}
		if kind == "enum" {
			defs = append(defs, enumConsts(body, container)...)
		} else {
			defs = append(defs, members(body, container)...)
		}
		// What follows the body, to the semicolon: typedef names or variables.
		j := semicolon(toks, end)
		if j > end {
			// The body stands for a type: int, as far as the names go.
			rest := append(append([]ctok{}, head[:tag]...), ctok{s: "int"})
			rest = append(rest, dropAttrs(toks[end:j])...)
			defs = append(defs, cDeclarators(rest, first, toks[min(j, len(toks)-1)].line)...)
		}
		return defs, j + 1
	}
	if hasEq {
		// An initializer: the braces and what follows, to the semicolon.
		j := semicolon(toks, end)
		full := append(append([]ctok{}, head...), ctok{s: "0"})
		full = append(full, dropAttrs(toks[end:min(j, len(toks))])...)
		return cDeclarators(full, first, toks[min(j, len(toks)-1)].line), j + 1
	}
	// A function a definition macro makes.
	if name, ok := defined(head); ok {
		return []*Def{{Name: name.s, Kind: KindFunc, Start: first, End: last}}, end
	}
	// A function, which its declarator names.
	if name, fn, ok := declarator(head); ok && fn {
		return []*Def{{Name: name.s, Kind: KindFunc, Start: first, End: last}}, end
	}
	return nil, end
}

// members lists the members of a struct's or union's body, those of an
// anonymous struct or union within it too; a named one within it is a
// struct of its own.
func members(body []ctok, container string) []*Def {
	var defs []*Def
	for i := 0; i < len(body); {
		start := i
		for i < len(body) && body[i].s != ";" && body[i].s != "{" {
			if body[i].s == "(" || body[i].s == "[" {
				i = group(body, i)
				continue
			}
			i++
		}
		if i >= len(body) {
			break
		}
		decl := dropAttrs(body[start:i])
		if len(decl) == 0 {
			i++
			continue
		}
		if body[i].s == "{" {
			in, end := inside(body, i)
			inner := container
			if n := len(decl); n >= 2 && (decl[n-2].s == "struct" || decl[n-2].s == "union") {
				inner = decl[n-2].s + " " + decl[n-1].s
				defs = append(defs, &Def{Name: decl[n-1].s, Kind: decl[n-2].s, Start: body[start].line, End: body[end-1].line})
			}
			defs = append(defs, members(in, inner)...)
			j := end
			for j < len(body) && body[j].s != ";" {
				j++
			}
			for _, d := range splitTop(body[end:j], ",") {
				if name, _, ok := declarator(d); ok {
					defs = append(defs, &Def{Name: name.s, Kind: KindMember, Container: container, Start: name.line, End: body[min(j, len(body)-1)].line})
				}
			}
			i = j + 1
			continue
		}
		for _, d := range splitTop(decl, ",") {
			if name, _, ok := declarator(d); ok {
				defs = append(defs, &Def{Name: name.s, Kind: KindMember, Container: container, Start: decl[0].line, End: body[i].line})
			}
		}
		i++
	}
	return defs
}

// enumConsts lists an enum's constants.
func enumConsts(body []ctok, container string) []*Def {
	var defs []*Def
	for _, item := range splitTop(body, ",") {
		if len(item) > 0 && isIdent(item[0].s) {
			last := item[len(item)-1].line
			defs = append(defs, &Def{Name: item[0].s, Kind: KindEnumConst, Container: container, Start: item[0].line, End: last})
		}
	}
	return defs
}
