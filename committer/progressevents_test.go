package committer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

// WithObserver reports each blob upload, counting to the total with its
// bytes, and each create-tree request, with the other events.
func TestProgressEvents(t *testing.T) {
	var mu sync.Mutex
	var uploads, trees []committer.Event
	var landed int
	ts, c := setup(t, committer.WithObserver(func(e committer.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case committer.EventUpload:
			uploads = append(uploads, e)
		case committer.EventTree:
			trees = append(trees, e)
		case committer.EventLanded:
			landed++
		}
	}))
	_ = ts
	cs := committer.NewChangeSet("m")
	var total int64
	for i := range 5 {
		data := make([]byte, 1000+i)
		data[0] = 0xff // not UTF-8: uploaded as a blob, not inline
		cs.Put(fmt.Sprintf("bin/%d", i), data)
		total += int64(len(data))
	}
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
	if len(uploads) != 5 {
		t.Fatalf("%d upload events, want 5", len(uploads))
	}
	last := uploads[len(uploads)-1]
	for i, e := range uploads {
		if e.Done != i+1 || e.Total != 5 || e.TotalBytes != total {
			t.Errorf("upload event %d: %+v", i, e)
		}
	}
	if last.Bytes != total {
		t.Errorf("last upload event: %d of %d bytes", last.Bytes, total)
	}
	if len(trees) == 0 || trees[len(trees)-1].Done != trees[len(trees)-1].Total {
		t.Errorf("tree events %+v", trees)
	}
	if landed != 1 {
		t.Errorf("%d landed events, want 1", landed)
	}
}
