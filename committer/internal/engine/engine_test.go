package engine

import (
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

var auto = Auto{Order: []Writer{Contents{}, GraphQL{}}, Else: GitData{}}

func put(path, mode string) changes.Op {
	return changes.Op{Kind: changes.OpPut, Path: path, Mode: mode}
}

// What each engine refuses before any request, and what Auto may pick.
func TestRefuseAndChoose(t *testing.T) {
	onePlain := &changes.Prepared{Ops: []changes.Op{put("a.txt", object.ModeFile)}}
	twoPlain := &changes.Prepared{Ops: []changes.Op{put("a.txt", object.ModeFile), put("b.txt", object.ModeFile)}}
	exec := &changes.Prepared{Ops: []changes.Op{put("run.sh", object.ModeExecutable)}}
	cases := []struct {
		name string
		ch   Change
		// refusals of GitData, GraphQL, Contents ("" = carries), and Auto's candidates
		gd, gql, cont string
		auto          []string
	}{
		{"one plain file", Change{P: onePlain}, "", "", "", []string{"contents", "graphql"}},
		{"two plain files", Change{P: twoPlain}, "", "", "2 operations", []string{"graphql"}},
		{"an executable", Change{P: exec}, "", "mode 100755", "mode 100755", nil},
		{"a chosen author", Change{P: onePlain, Identity: true}, "", "author or committer", "", []string{"contents"}},
		{"a tag", Change{P: onePlain, Tag: true}, "", "tag", "tag", nil},
		{"a signer", Change{P: onePlain, Signed: true}, "", "signature", "signature", nil},
		{"no Edit-Id", Change{P: onePlain, OmitEditID: true}, "", "OmitEditID", "OmitEditID", nil},
		{"ExpectHead", Change{P: onePlain, ExpectHead: true}, "", "", "pin", []string{"graphql"}},
	}
	for _, tc := range cases {
		for _, e := range []struct {
			eng  Engine
			want string
		}{{GitData{}, tc.gd}, {GraphQL{}, tc.gql}, {Contents{}, tc.cont}, {auto, ""}} {
			err := e.eng.Refuse(tc.ch)
			switch {
			case e.want == "" && err != nil:
				t.Errorf("%s: %s refuses: %v", tc.name, e.eng.Name(), err)
			case e.want != "" && (err == nil || !strings.Contains(err.Error(), e.want)):
				t.Errorf("%s: %s: %v, want a refusal naming %q", tc.name, e.eng.Name(), err, e.want)
			}
		}
		cands, strict := Choose(auto, tc.ch)
		var names []string
		for _, w := range cands {
			names = append(names, w.Name())
		}
		if strict || strings.Join(names, ",") != strings.Join(tc.auto, ",") {
			t.Errorf("%s: auto's candidates %v (strict %v), want %v", tc.name, names, strict, tc.auto)
		}
	}
	if cands, strict := Choose(GraphQL{}, Change{P: exec}); !strict || len(cands) != 1 || cands[0].Name() != "graphql" {
		t.Errorf("an explicit one-write engine: candidates %v strict %v, want itself, strict", cands, strict)
	}
	if cands, _ := Choose(GitData{}, Change{P: onePlain}); cands != nil {
		t.Errorf("Git Data has candidates %v", cands)
	}
	// A batch asks with no change set: its one-write engine alone, and
	// none (not a panic) for Auto.
	if cands, strict := Choose(GraphQL{}, Change{}); !strict || len(cands) != 1 {
		t.Errorf("a GraphQL batch: candidates %v strict %v", cands, strict)
	}
	if cands, _ := Choose(auto, Change{}); cands != nil {
		t.Errorf("Auto without a change set: candidates %v", cands)
	}
}

// What the engines carry on the head read, and Auto's pick among them.
func TestPick(t *testing.T) {
	small := &Staged{Adds: []File{{Path: "a", Data: []byte("x")}}}
	two := &Staged{Adds: []File{{Path: "a", Data: []byte("x")}}, Dels: []File{{Path: "b"}}}
	big := &Staged{Adds: []File{{Path: "a", Data: make([]byte, MaxContentsFileBytes+1)}}}
	huge := &Staged{Adds: []File{{Path: "a", Data: make([]byte, MaxGraphQLBytes)}}} // base64 makes it larger than the limit
	all := []Writer{Contents{}, GraphQL{}}
	for _, tc := range []struct {
		name string
		st   *Staged
		want string // "" = none: Git Data
	}{{"one small file", small, "contents"}, {"two files", two, "graphql"}, {"a file over 1 MiB", big, "graphql"}, {"over GraphQL's limit", huge, ""}} {
		w, err := Pick(all, false, tc.st)
		got := ""
		if w != nil {
			got = w.Name()
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: picked %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := Pick([]Writer{Contents{}}, true, two); err == nil || !strings.Contains(err.Error(), "one file per commit") {
		t.Errorf("strict contents with two files: %v, want its refusal", err)
	}
}

// Writes per attempt, batching and queues: what the driver and the
// coordinator ask of an engine.
func TestWritesAndBatches(t *testing.T) {
	if n := (GitData{}).Writes(3, false); n != 7 {
		t.Errorf("Git Data, 3 chained commits: %d writes, want 7 (a tree and a commit each, and the ref update)", n)
	}
	if n := (GitData{}).Writes(3, true); n != 3 {
		t.Errorf("Git Data squashed: %d writes, want 3", n)
	}
	if n := auto.Writes(1, false); n != 3 {
		t.Errorf("Auto falling back: %d writes, want Git Data's 3", n)
	}
	for _, w := range []Writer{GraphQL{}, Contents{}} {
		if n := w.Writes(5, true); n != 1 {
			t.Errorf("%s: %d writes, want 1", w.Name(), n)
		}
	}
	if !(GitData{}).Batch(false) || (GraphQL{}).Batch(false) || !(GraphQL{}).Batch(true) || (Contents{}).Batch(true) || auto.Batch(true) {
		t.Error("Batch: want Git Data always, GraphQL squashed only, contents and auto never")
	}
	if (GitData{}).Queue(false) != nil || (GraphQL{}).Queue(true) != nil || (GraphQL{}).Queue(false) == nil || (Contents{}).Queue(true) == nil || auto.Queue(true) == nil {
		t.Error("Queue: want Git Data, and GraphQL with Squash, only")
	}
	if !SettlesByEditID(GraphQL{}) || !SettlesByEditID(auto) || SettlesByEditID(GitData{}) {
		t.Error("SettlesByEditID: want the one-write engines and auto, not Git Data")
	}
	if !(GraphQL{}).Pinned() || (Contents{}).Pinned() {
		t.Error("Pinned: want GraphQL (expectedHeadOid), not contents")
	}
}
