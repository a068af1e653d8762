package loop

import (
	"errors"
	"testing"
)

func TestCount(t *testing.T) {
	c := Count{Max: 3}
	steps := []struct {
		o       Outcome
		next    bool
		attempt int // after the step
		wantErr error
	}{
		{Outcome{Kind: LostUnsent}, true, 1, nil}, // not counted
		{Outcome{Kind: Stale}, true, 1, nil},
		{Outcome{Kind: Lost}, true, 2, nil},
		{Outcome{Kind: Reread}, true, 2, nil},
		{Outcome{Kind: Wait}, true, 3, nil},
		{Outcome{Kind: LostUnsent}, true, 3, nil},
		{Outcome{Kind: LostUnsent}, true, 3, nil},  // the third uncounted one
		{Outcome{Kind: LostUnsent}, false, 3, nil}, // past the limit: counted, and the last
	}
	for i, s := range steps {
		next, err := c.After(s.o)
		if next != s.next || !errors.Is(err, s.wantErr) || c.Attempt() != s.attempt {
			t.Fatalf("step %d (%s): next %v err %v attempt %d; want %v %v %d", i, s.o.Kind, next, err, c.Attempt(), s.next, s.wantErr, s.attempt)
		}
	}
}

func TestCountEnds(t *testing.T) {
	boom := errors.New("boom")
	c := Count{Max: 2}
	if next, err := c.After(Fail(boom)); next || !errors.Is(err, boom) {
		t.Fatalf("Failed: next %v err %v", next, err)
	}
	if next, err := c.After(Outcome{Kind: Landed}); next || err != nil {
		t.Fatalf("Landed: next %v err %v", next, err)
	}
	for range 2 {
		if next, _ := c.After(Outcome{Kind: Reread}); !next {
			t.Fatal("a Reread within the limit ended the work")
		}
	}
	if next, err := c.After(Outcome{Kind: Reread}); next || !errors.Is(err, ErrKeptChanging) {
		t.Fatalf("Reread past the limit: next %v err %v", next, err)
	}
}
