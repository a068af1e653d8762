package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestShardsRowsSkippedWithoutKubeTools: without kube-apiserver and etcd
// in the cache the shards rows say so and why, and run nothing.
func TestShardsRowsSkippedWithoutKubeTools(t *testing.T) {
	t.Setenv("GHCOMMITTER_KUBE_CACHE", t.TempDir()) // an empty cache
	cfg, err := parseFlags([]string{"-only", "shards"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sr := runShards(context.Background(), cfg, io.Discard)
	if !strings.Contains(sr.NotRun, "make kube-tools") || len(sr.Rows) != 0 {
		t.Fatalf("without the binaries: NotRun %q, %d rows", sr.NotRun, len(sr.Rows))
	}
	var b strings.Builder
	renderShards(&b, sr)
	if !strings.Contains(b.String(), "**Not run:**") || !strings.Contains(b.String(), shardsEnd) {
		t.Errorf("the subsection does not say it did not run:\n%s", b.String())
	}
}

// TestShardsGoal: the goal line reads the Lease row: met only with every
// stage landed, at most 3.2 writes per landed change and no lost race.
func TestShardsGoal(t *testing.T) {
	good := shardsRow{Turns: "lease", Landed: 20, Want: 20, Writes: 48, WritesPerLanded: 2.4}
	local := shardsRow{Turns: "local", Landed: 20, Want: 20, Writes: 70, WritesPerLanded: 3.5, LostRaces: 9}
	for _, tc := range []struct {
		name string
		row  func(r *shardsRow)
		met  bool
	}{
		{"met", func(*shardsRow) {}, true},
		{"one lost race", func(r *shardsRow) { r.LostRaces = 1 }, false},
		{"too many writes", func(r *shardsRow) { r.WritesPerLanded = 3.25 }, false},
		{"19 of 20", func(r *shardsRow) { r.Landed = 19 }, false},
		{"unreported", func(r *shardsRow) { r.Unreported = 1 }, false},
	} {
		row := good
		tc.row(&row)
		var b strings.Builder
		renderShards(&b, &shardsReport{Rows: []shardsRow{row, local}, Command: "go run -C examples/shards ."})
		out := b.String()
		if got := strings.Contains(out, "no lost race between shards): "+verdict(true)); got != tc.met {
			t.Errorf("%s: goal met = %v, want %v:\n%s", tc.name, got, tc.met, out)
		}
		if !strings.Contains(out, "| local | 20/20 |") {
			t.Errorf("%s: the uncoordinated row is missing:\n%s", tc.name, out)
		}
	}
	if _, err := parseFlags([]string{"-limit-rows", "shards"}, io.Discard); err != nil {
		t.Errorf("-limit-rows shards: %v", err)
	}
}
