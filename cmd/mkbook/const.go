package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"html"
	"regexp"
	"strconv"
	"strings"

	"endovisor/internal/srcindex"
)

// {{const NAME}} prints the value of a constant of the sources: a C macro
// (#define EV_CROSSING_ROUNDS 8), an enum constant with its value written,
// or a Go const, whose value is an integer expression of literals and
// other such constants ((1 << 10) * 4, EV_GRANT_QUOTA / 2).  NAME is
// qualified as in prose (NAME in FILE) where it has two definitions.
// {{const NAME word}} spells a value up to ten ("eight rounds");
// {{const NAME MiB}} prints a whole number of MiB (KiB, GiB too).
//
// The prose repeats a constant by splicing it, never by typing it: a
// backticked constant followed by a typed number (`EV_PT_QUOTA`, 2048
// pages) fails mkbook check (typedConstant), whether or not the number
// agrees with the code today.

type constKind struct{}

func (constKind) usage() string                    { return "{{const NAME [in FILE] [word|KiB|MiB|GiB]}}" }
func (constKind) block() bool                      { return false }
func (constKind) suites(config, []string) []string { return nil }
func (k constKind) resolve(b *book, args []string) (use, error) {
	word, unit := false, ""
	if n := len(args); n > 0 && (args[n-1] == "word" || binaryUnits[args[n-1]] > 0) {
		word, unit, args = args[n-1] == "word", args[n-1], args[:n-1]
	}
	qual := ""
	switch {
	case len(args) == 3 && args[1] == "in":
		qual = args[2]
	case len(args) != 1:
		return use{}, fmt.Errorf("want %s", k.usage())
	}
	v, d, err := b.constValue(args[0], qual, 0)
	if err != nil {
		return use{}, err
	}
	text := formatDecimals(float64(v), 0)
	if u := binaryUnits[unit]; u > 0 {
		if v%u != 0 {
			return use{}, fmt.Errorf("%s is %d, not a whole number of %s", args[0], v, unit)
		}
		text = formatDecimals(float64(v/u), 0) + " " + unit
	}
	if word {
		if v < 0 || v >= int64(len(numberWords)) {
			return use{}, fmt.Errorf("%s is %d: word spells 0 to %d", args[0], v, len(numberWords)-1)
		}
		text = numberWords[v]
	}
	l := defLink(d)
	return use{text: text, out: fmt.Sprintf(`<a class="%s" href="%s" title="%s">%s</a>`,
		l.class, html.EscapeString(l.href), html.EscapeString(fmt.Sprintf("%s = %d, %s", args[0], v, l.title)), text),
		refs: []srcRef{*l.ref}}, nil
}

// binaryUnits are the units a value may be printed in: {{const NAME MiB}}.
var binaryUnits = map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

var (
	cDefine    = regexp.MustCompile(`^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$`)
	cComment   = regexp.MustCompile(`/\*.*?\*/|//.*$`)
	cIntSuffix = regexp.MustCompile(`\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]+\b`)
	enumValue  = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^,]*),?`)
	goConst    = regexp.MustCompile(`^\s*(?:const\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:[A-Za-z0-9_.]+\s*)?=\s*(.*)$`)
)

// constValue evaluates the constant name: its value and its definition.
func (b *book) constValue(name, qual string, depth int) (int64, *srcindex.Def, error) {
	if depth > 8 {
		return 0, nil, fmt.Errorf("%s: constants defined in terms of each other too deeply", name)
	}
	var ds []*srcindex.Def
	for _, d := range srcindex.Best(b.index.Lookup(name)) {
		if d.Kind == srcindex.KindMacro || d.Kind == srcindex.KindEnumConst || d.Kind == srcindex.KindConst {
			ds = append(ds, d)
		}
	}
	if len(ds) > 1 && qual != "" {
		ds = srcindex.Qualified(ds, qual)
	}
	switch len(ds) {
	case 0:
		return 0, nil, fmt.Errorf("%s is not a constant the sources define", name)
	case 1:
	default:
		return 0, nil, fmt.Errorf("%s has %d definitions as a constant: %s; qualify it (NAME in FILE)", name, len(ds), defList(ds))
	}
	d := ds[0]
	f := b.index.Files[d.File] // the index read the file already
	if f == nil {
		return 0, nil, fmt.Errorf("%s: not a file of the index", d)
	}
	lines := f.Lines
	if d.End > len(lines) || d.Start < 1 {
		return 0, nil, fmt.Errorf("%s: lines %d to %d are past the file's end", d.File, d.Start, d.End)
	}
	text := strings.Join(lines[d.Start-1:d.End], " ")
	text = strings.ReplaceAll(text, "\\ ", " ")
	var expr string
	switch d.Kind {
	case srcindex.KindMacro:
		m := cDefine.FindStringSubmatch(text)
		if m == nil || m[1] != name {
			return 0, nil, fmt.Errorf("%s: %s is not a #define of a value", d, name)
		}
		expr = m[2]
	case srcindex.KindEnumConst:
		m := enumValue.FindStringSubmatch(text)
		if m == nil || m[1] != name {
			return 0, nil, fmt.Errorf("%s: %s has no value written", d, name)
		}
		expr = m[2]
	default:
		m := goConst.FindStringSubmatch(text)
		if m == nil || m[1] != name {
			return 0, nil, fmt.Errorf("%s: %s is not a const of a value", d, name)
		}
		expr = m[2]
	}
	expr = strings.TrimSpace(cComment.ReplaceAllString(expr, ""))
	expr = cIntSuffix.ReplaceAllString(expr, "$1")
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %s is %q, not an integer expression mkbook can evaluate", d, name, expr)
	}
	v, err := b.evalConst(e, d, depth)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %s is %q: %w", d, name, expr, err)
	}
	i, ok := constant.Int64Val(v)
	if !ok {
		return 0, nil, fmt.Errorf("%s: %s is %q, not an integer", d, name, expr)
	}
	return i, d, nil
}

// evalConst evaluates an integer expression of literals and constants.
func (b *book) evalConst(e ast.Expr, d *srcindex.Def, depth int) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT {
			return nil, fmt.Errorf("%s is not an integer", e.Value)
		}
		if _, err := strconv.ParseInt(e.Value, 0, 64); err != nil {
			return nil, err
		}
		return constant.MakeFromLiteral(e.Value, token.INT, 0), nil
	case *ast.ParenExpr:
		return b.evalConst(e.X, d, depth)
	case *ast.CallExpr:
		// Linux's wrappers of a constant's type: _AC(X, UL), _UL(X),
		// _ULL(X) are X; BIT(N) and _BITUL(N) are 1 << N.
		fn, ok := e.Fun.(*ast.Ident)
		if !ok || len(e.Args) == 0 {
			return nil, fmt.Errorf("a call")
		}
		switch {
		case fn.Name == "_AC" && len(e.Args) == 2, (fn.Name == "_UL" || fn.Name == "_ULL") && len(e.Args) == 1:
			return b.evalConst(e.Args[0], d, depth)
		case (fn.Name == "BIT" || fn.Name == "_BITUL") && len(e.Args) == 1:
			n, err := b.evalConst(e.Args[0], d, depth)
			if err != nil {
				return nil, err
			}
			if k, ok := constant.Uint64Val(n); !ok || k > 62 {
				return nil, fmt.Errorf("a shift by %s", n)
			}
			k, _ := constant.Uint64Val(n)
			return constant.Shift(constant.MakeInt64(1), token.SHL, uint(k)), nil
		}
		return nil, fmt.Errorf("a call of %s", fn.Name)
	case *ast.Ident:
		v, _, err := b.constValue(e.Name, d.File, depth+1)
		if err != nil {
			return nil, err
		}
		return constant.MakeInt64(v), nil
	case *ast.UnaryExpr:
		x, err := b.evalConst(e.X, d, depth)
		if err != nil {
			return nil, err
		}
		if e.Op != token.SUB && e.Op != token.ADD {
			return nil, fmt.Errorf("the operator %s", e.Op)
		}
		return constant.UnaryOp(e.Op, x, 0), nil
	case *ast.BinaryExpr:
		x, err := b.evalConst(e.X, d, depth)
		if err != nil {
			return nil, err
		}
		y, err := b.evalConst(e.Y, d, depth)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case token.SHL, token.SHR:
			n, ok := constant.Uint64Val(y)
			if !ok || n > 63 {
				return nil, fmt.Errorf("a shift by %s", y)
			}
			return constant.Shift(x, e.Op, uint(n)), nil
		case token.QUO, token.REM:
			if constant.Sign(y) == 0 {
				return nil, fmt.Errorf("a division by zero")
			}
			if e.Op == token.QUO {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y), nil
			}
			return constant.BinaryOp(x, e.Op, y), nil
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR:
			return constant.BinaryOp(x, e.Op, y), nil
		}
		return nil, fmt.Errorf("the operator %s", e.Op)
	}
	return nil, fmt.Errorf("not an integer expression")
}

// typedAfter is a number typed right after a name: `EV_PT_QUOTA`, 2048;
// `EV_CROSSING_ROUNDS` (8; `NAME` is 8; `NAME` = 8; `NAME` of 8.
var typedAfter = regexp.MustCompile(`^(?:\s*[,:=(]|\s+(?:is|of|=))\s*\(?\s*([0-9][0-9,]*(?:\.[0-9]+)?)\b(?:\s*(KiB|MiB|GiB)\b)?`)

// typedInSentence is a number typed anywhere in prose, with its binary
// unit if it has one: not part of a word or a name (x86-64, EV_ABI_V2,
// 4k), and not a chapter's number.
var typedInSentence = regexp.MustCompile(`(?i)(^|[^\w.\-])(chapters?\s+)?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\s*(KiB|MiB|GiB))?(?:[^\w\-]|$)`)

// sentenceAt is the sentence of prose around [start, stop): from the end
// of the sentence before it to the end of its own, or its paragraph's.
func sentenceAt(prose string, start, stop int) string {
	from := 0
	for _, end := range []string{". ", ".\n", "\n\n"} {
		if i := strings.LastIndex(prose[:start], end); i >= 0 && i+len(end) > from {
			from = i + len(end)
		}
	}
	to := len(prose)
	for _, end := range []string{". ", ".\n", "\n\n"} {
		if i := strings.Index(prose[stop:], end); i >= 0 && stop+i < to {
			to = stop + i
		}
	}
	return prose[from:to]
}

// typedConstant fails if a backticked name of a constant is followed by
// a typed number, whatever it says, or if its sentence types the
// constant's value elsewhere ("`EV_ABI_VERSION` ... it is now 7"): the
// prose should splice the value ({{const NAME}}), so that a change of
// the code changes the sentence.  A number the sentence types that is
// not the value may be any other quantity, and is left alone.
func (b *book) typedConstant(name, qual, after, sentence string) error {
	v, _, err := b.constValue(strings.TrimSuffix(name, "()"), qual, 0)
	if err != nil {
		return nil // not a constant mkbook can evaluate: no value to repeat
	}
	m := typedAfter.FindStringSubmatch(after)
	if m == nil {
		if v < 2 {
			return nil // 0 and 1 are typed for too many other reasons
		}
		for _, t := range typedInSentence.FindAllStringSubmatch(sentence, -1) {
			if t[2] != "" {
				continue // a chapter's number
			}
			n, _ := strconv.ParseInt(strings.ReplaceAll(t[3], ",", ""), 10, 64)
			splice := name
			if u := binaryUnits[t[4]]; u > 0 {
				n *= int64(u)
				splice += " " + t[4]
			}
			if n == v {
				return fmt.Errorf("%s's sentence types its value, %s: splice it, {{const %s}}",
					name, strings.TrimSpace(t[3]+" "+t[4]), splice)
			}
		}
		return nil
	}
	typed := strings.TrimRight(m[1], ",")
	n, _ := strconv.ParseFloat(strings.ReplaceAll(typed, ",", ""), 64)
	splice := name
	if u := binaryUnits[m[2]]; u > 0 {
		n *= float64(u)
		typed += " " + m[2]
		splice += " " + m[2]
	}
	agree := "agrees with the code today"
	if n != float64(v) {
		agree = fmt.Sprintf("but the code says %d", v)
	}
	return fmt.Errorf("%s is followed by a typed %s (%s): splice it, {{const %s}}", name, typed, agree, splice)
}
