// Command layout prints the committer package tree's layout figures: per
// package, the largest file cycle, the longest file and function, and the
// go-github importers; -long lists every file over 400 lines and function
// over 60, -edges the file graph. Run from the repository root:
//
//	go run ./internal/layout/cmd [-long] [-edges] [packages]
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ghcommitter/ghcommitter/internal/layout"
)

func main() {
	long := flag.Bool("long", false, "list files over 400 lines and functions over 60")
	edges := flag.Bool("edges", false, "print each package's file graph")
	why := flag.Bool("why", false, "with -edges, name the identifiers behind each edge")
	flag.Parse()
	pats := flag.Args()
	if len(pats) == 0 {
		pats = []string{"./committer", "./committer/internal/..."}
	}
	pkgs, err := layout.Measure(".", pats...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, p := range pkgs {
		summary(p)
		if *long {
			for _, f := range p.Files {
				if f.Lines > 400 {
					fmt.Printf("  file %s: %d lines\n", f.Name, f.Lines)
				}
				for _, fn := range f.Funcs {
					if fn.Lines > 60 {
						fmt.Printf("  func %s %s: %d lines\n", f.Name, fn.Name, fn.Lines)
					}
				}
			}
		}
		if *edges {
			var names []string
			for n := range p.Edges {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				var to []string
				for w := range p.Edges[n] {
					to = append(to, w)
				}
				sort.Strings(to)
				fmt.Printf("  %s -> %s\n", n, strings.Join(to, " "))
				if *why {
					for _, w := range to {
						fmt.Printf("      %s: %s\n", w, strings.Join(p.Why[n+" -> "+w], " "))
					}
				}
			}
		}
	}
}

func summary(p layout.Package) {
	var longFile layout.File
	var longFunc layout.Func
	var longFuncFile string
	for _, f := range p.Files {
		if f.Lines > longFile.Lines {
			longFile = f
		}
		for _, fn := range f.Funcs {
			if fn.Lines > longFunc.Lines {
				longFunc, longFuncFile = fn, f.Name
			}
		}
	}
	gh := ""
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, "github.com/google/go-github/") {
			gh = "; imports go-github"
		}
	}
	fmt.Printf("%s: %d files; largest cycle %d %v; longest file %s (%d); longest func %s %s (%d)%s\n",
		strings.TrimPrefix(p.ImportPath, "github.com/ghcommitter/ghcommitter/"), len(p.Files), len(p.Cycle), p.Cycle, longFile.Name, longFile.Lines, longFuncFile, longFunc.Name, longFunc.Lines, gh)
}
