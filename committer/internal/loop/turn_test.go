package loop

import (
	"context"
	"errors"
	"testing"
	"time"

	pubturns "github.com/ghcommitter/ghcommitter/committer/turns"
)

// TestTurnWriterWaitsOnceInAll: a writer whose turn does not come (a holder
// that never lets go) waits its longest wait once over all its attempts,
// not on each.
func TestTurnWriterWaitsOnceInAll(t *testing.T) {
	key := pubturns.Key{API: "https://api.example/", Repository: "o/r", Branch: t.Name()}
	holder, err := pubturns.InProcess().Take(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	w := &turnWriter{turns: pubturns.InProcess(), maxWait: 100 * time.Millisecond}
	first := w.Take(context.Background(), key)
	if first.Granted || !errors.Is(first.Err, context.DeadlineExceeded) {
		t.Fatalf("first attempt: granted %v, err %v", first.Granted, first.Err)
	}
	for range 3 {
		next := w.Take(context.Background(), key)
		if next.Granted || !errors.Is(next.Err, ErrWaitSpent) || next.Waited != 0 {
			t.Fatalf("a later attempt: granted %v, waited %v, err %v: want no wait", next.Granted, next.Waited, next.Err)
		}
	}
}

// badTurns grants a turn and refuses it at once, as a careless
// implementation might.
type badTurns struct{ released int }

func (b *badTurns) Take(context.Context, pubturns.Key) (pubturns.Turn, error) {
	return b, errors.New("refused")
}
func (b *badTurns) Queued() bool { return false }
func (b *badTurns) Release()     { b.released++ }

// TestTurnWriterReleasesATurnReturnedWithAnError: a turn handed back with
// an error is released, never held for the attempt.
func TestTurnWriterReleasesATurnReturnedWithAnError(t *testing.T) {
	b := &badTurns{}
	got := (&turnWriter{turns: b}).Take(context.Background(), pubturns.Key{})
	if got.Granted || got.Err == nil || b.released != 1 {
		t.Fatalf("granted %v, err %v, released %d times: want not granted, released once", got.Granted, got.Err, b.released)
	}
}
