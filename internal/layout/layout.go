// Package layout measures the shape of the committer package tree: the
// largest cycle of files that reference each other inside one package, the
// longest files and functions, and which packages import go-github. Its test
// holds the figures that the architecture (docs/architecture.md) promises;
// `go run ./internal/layout/cmd` prints them.
package layout

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Package is one measured package.
type Package struct {
	ImportPath string
	Dir        string
	Files      []File
	// Cycle is the largest strongly connected component of the graph in
	// which file A points to file B when A uses a package-level identifier,
	// a method or a field declared in B (non-test files, type-checked).
	Cycle []string
	// Edges is that graph: file -> files it references.
	Edges map[string]map[string]bool
	// Why names, per edge "from -> to", the identifiers that make it.
	Why map[string][]string
	// Imports are the package's non-test imports.
	Imports []string
}

// File is one non-test file.
type File struct {
	Name  string
	Lines int
	Funcs []Func
}

// Func is one function or method declaration.
type Func struct {
	Name  string
	Lines int
}

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Imports    []string
	Module     *struct{ Path string }
}

// Measure lists the packages matching patterns (run in dir) and measures
// each one of the main module.
func Measure(dir string, patterns ...string) ([]Package, error) {
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Imports,Module"}, patterns...)
	cmd := exec.Command("go", args...) //nolint:gosec // G204: go list, on the caller's package patterns
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	exports := map[string]string{}
	var all []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var l listed
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		exports[l.ImportPath] = l.Export
		all = append(all, l)
	}
	roots, err := matching(dir, patterns)
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for _, l := range all {
		if !roots[l.ImportPath] {
			continue
		}
		p, err := measure(l, exports)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.ImportPath, err)
		}
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ImportPath < pkgs[j].ImportPath })
	return pkgs, nil
}

func matching(dir string, patterns []string) (map[string]bool, error) {
	cmd := exec.Command("go", append([]string{"list"}, patterns...)...) //nolint:gosec // G204: go list, on the caller's package patterns
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	m := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		m[p] = true
	}
	return m, nil
}

func measure(l listed, exports map[string]string) (Package, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range l.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(l.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return Package{}, err
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	tp, err := conf.Check(l.ImportPath, fset, files, info)
	if err != nil {
		return Package{}, err
	}
	p := Package{ImportPath: l.ImportPath, Dir: l.Dir, Imports: l.Imports}
	edges := map[string]map[string]bool{}
	why := map[string][]string{}
	for _, f := range files {
		name := filepath.Base(fset.Position(f.Pos()).Filename)
		edges[name] = map[string]bool{}
		p.Files = append(p.Files, fileOf(fset, f, name))
	}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != tp || !obj.Pos().IsValid() {
			continue
		}
		if !packageLevelOrMember(obj) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to {
			edges[from][to] = true
			k := from + " -> " + to
			if !slices.Contains(why[k], obj.Name()) {
				why[k] = append(why[k], obj.Name())
			}
		}
	}
	p.Cycle = largestSCC(edges)
	p.Edges = edges
	p.Why = why
	return p, nil
}

// packageLevelOrMember reports whether obj is declared at package level, or
// is a method or a struct field (whose declaring file is where it lives).
func packageLevelOrMember(obj types.Object) bool {
	if obj.Parent() == obj.Pkg().Scope() {
		return true
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}

func fileOf(fset *token.FileSet, f *ast.File, name string) File {
	tf := fset.File(f.Pos())
	out := File{Name: name, Lines: tf.LineCount()}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		n := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			n = recvName(fd.Recv.List[0].Type) + "." + n
		}
		lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		out.Funcs = append(out.Funcs, Func{Name: n, Lines: lines})
	}
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	}
	return "?"
}

// largestSCC is Tarjan's algorithm over the file graph; it returns the
// largest component, sorted.
func largestSCC(edges map[string]map[string]bool) []string {
	var nodes []string
	for n := range edges {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	index := map[string]int{}
	low := map[string]int{}
	on := map[string]bool{}
	var stack []string
	var best []string
	next := 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		var succ []string
		for w := range edges[v] {
			succ = append(succ, w)
		}
		sort.Strings(succ)
		for _, w := range succ {
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) > len(best) {
			sort.Strings(comp)
			best = comp
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			strong(n)
		}
	}
	return best
}
