package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// machineFact is one command's output describing the machine.
type machineFact struct {
	Command string
	Output  string
}

// machineFacts runs nproc, free -h, go version and git --version.
func machineFacts(ctx context.Context) []machineFact {
	var facts []machineFact
	for _, c := range [][]string{{"nproc"}, {"free", "-h"}, {"go", "version"}, {"git", "--version"}} {
		out, err := exec.CommandContext(ctx, c[0], c[1:]...).CombinedOutput()
		s := strings.TrimRight(string(out), "\n")
		if err != nil {
			s = "(" + err.Error() + ") " + s
		}
		facts = append(facts, machineFact{Command: strings.Join(c, " "), Output: s})
	}
	return facts
}

// loadAvg is /proc/loadavg's first three fields, or "" where there is none.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
