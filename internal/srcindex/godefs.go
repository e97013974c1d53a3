package srcindex

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// The definitions of a Go source, read by go/parser.

// ScanGo lists a Go file's top-level declarations: funcs, methods (named
// by the method, with the receiver's type as container), types, vars and
// consts.
func ScanGo(name string, data []byte) ([]*Def, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkg := f.Name.Name
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var defs []*Def
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			df := &Def{Name: d.Name.Name, Kind: KindFunc, Start: line(d.Pos()), End: line(d.End()), Pkg: pkg}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				df.Kind, df.Container = KindMethod, recvType(d.Recv.List[0].Type)
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
					defs = append(defs, &Def{Name: s.Name.Name, Kind: KindType, Start: start, End: end, Pkg: pkg})
				case *ast.ValueSpec:
					kind := KindVar
					if d.Tok == token.CONST {
						kind = KindConst
					}
					for _, n := range s.Names {
						if n.Name != "_" {
							defs = append(defs, &Def{Name: n.Name, Kind: kind, Start: start, End: end, Pkg: pkg})
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
