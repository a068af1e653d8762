package committer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

// ExpectOneOf on every engine: each listed state passes (a change already
// there is a no-op), any other state, or a directory, is a conflict with
// nothing written.
func TestExpectOneOf(t *testing.T) {
	ctx := context.Background()
	v1, v2 := committer.BlobSHA([]byte("v1\n")), committer.BlobSHA([]byte("v2\n"))
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"app.yaml": "v1\n", "dir/x": "x"})
			put := func(path, content string, states ...string) (*committer.Result, error) {
				cs := committer.NewChangeSet("m")
				cs.Put(path, []byte(content)).ExpectOneOf(path, states...)
				return c.Commit(ctx, "main", cs, committer.WithEngine(e))
			}
			if _, err := put("app.yaml", "v2\n", v1, v2); err != nil {
				t.Fatalf("from v1: %v", err)
			}
			if r, err := put("app.yaml", "v2\n", v1, v2); err != nil || !r.NoOp {
				t.Fatalf("already v2: %+v, %v", r, err)
			}
			seed(t, ts, map[string]string{"app.yaml": "v3\n"})
			before := head(t, ts, "main")
			_, err := put("app.yaml", "v2\n", v1, v2)
			if !errors.Is(err, committer.ErrConflict) || !strings.Contains(err.Error(), "expected one of "+v1+", "+v2+", found blob") {
				t.Fatalf("third writer's content: %v", err)
			}
			if _, err := put("new.txt", "n\n", "", committer.BlobSHA([]byte("n\n"))); err != nil {
				t.Fatalf("absent: %v", err)
			}
			if r, err := put("new.txt", "n\n", "", committer.BlobSHA([]byte("n\n"))); err != nil || !r.NoOp {
				t.Fatalf("already there: %+v, %v", r, err)
			}
			if _, err := put("dir", "d\n", "", v1); !errors.Is(err, committer.ErrConflict) {
				t.Fatalf("a directory: %v", err)
			}
			if h := head(t, ts, "main"); h == before {
				t.Fatal("nothing landed")
			}
		})
	}
	// Bad states are refused before any request.
	ts, c := setup(t)
	cs := committer.NewChangeSet("m")
	cs.Put("a", []byte("a")).ExpectOneOf("a", "nothex")
	if _, err := c.Commit(ctx, "main", cs); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("bad SHA: %v", err)
	}
	cs = committer.NewChangeSet("m")
	cs.Put("a", []byte("a")).ExpectOneOf("a")
	if _, err := c.Commit(ctx, "main", cs); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("no state: %v", err)
	}
	if n := writes(ts); n != 0 {
		t.Fatalf("%d writes", n)
	}
}
