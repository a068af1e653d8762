package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// seedFile is one file of the repository both sides start from.
type seedFile struct {
	Path    string
	Content []byte
}

// seedFiles returns n small text files spread across directories, the same
// for every mode: services/sNN/envD/config-NNNNN.yaml, at most 100 files
// per directory and 10 directories per service.
func seedFiles(n int) []seedFile {
	files := make([]seedFile, n)
	for i := range n {
		files[i] = seedFile{
			Path: fmt.Sprintf("services/s%02d/env%d/config-%05d.yaml", i/1000, (i/100)%10, i),
			Content: []byte(fmt.Sprintf("# service %d\nname: svc-%05d\nreplicas: %d\nimage: registry.example.com/team/svc-%05d:v1.%d.0\n",
				i, i, 1+i%5, i, i%37)),
		}
	}
	return files
}

// writerPath is the file writer i adds in one run. Each run uses its own
// directory, so runs against one repository never touch each other's files.
func writerPath(run string, i int) string {
	return fmt.Sprintf("bench/%s/writer-%03d.txt", run, i)
}

// writerContent is what writer i writes.
func writerContent(run string, i int) []byte {
	return []byte(fmt.Sprintf("run %s, writer %d\n", run, i))
}

// writeSeed writes files under dir (for the git side).
func writeSeed(dir string, files []seedFile) error {
	made := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if d := filepath.Dir(p); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
