package engine

import "fmt"

// Auto picks, on each attempt, the engine with the fewest writes that
// carries the change set exactly: the first of Order that does, Else when
// none does.
type Auto struct {
	Order []Writer // the one-write engines, best first
	Else  Engine   // carries everything (Git Data)
}

// Name implements Engine.
func (Auto) Name() string { return "auto" }

// Refuse implements Engine: Else carries what the others refuse.
func (a Auto) Refuse(ch Change) error { return a.Else.Refuse(ch) }

// Writes implements Engine: those of Else, which an attempt uses when no
// engine of Order may carry the change set (see Choose).
func (a Auto) Writes(n int, squash bool) int { return a.Else.Writes(n, squash) }

// Batch implements Engine: the choice is per change set, so each goes
// alone.
func (Auto) Batch(bool) bool { return false }

// Queue implements Engine.
func (a Auto) Queue(bool) error { return errNoQueue(a) }

// BatchBytes implements Engine.
func (a Auto) BatchBytes() int64 { return a.Else.BatchBytes() }

// Choose returns the one-write engines an attempt may use for ch under e,
// best first, from what is known before any request, and whether e is
// strict: an explicit one-write engine is its only candidate and refuses
// what it cannot carry (strict); Auto's candidates are those of its Order
// that do not refuse ch, and what they cannot carry goes to Else. An engine
// that is neither (Git Data) has none. A batch asks with no change set
// (ch.P nil: each of its change sets passed Refuse when it joined): Auto,
// which never batches, then has none either.
func Choose(e Engine, ch Change) (cands []Writer, strict bool) {
	switch e := e.(type) {
	case Writer:
		return []Writer{e}, true
	case Auto:
		if ch.P == nil {
			return nil, false
		}
		for _, w := range e.Order {
			if w.Refuse(ch) == nil {
				cands = append(cands, w)
			}
		}
		return cands, false
	}
	return nil, false
}

// Pick returns the first of cands that carries st; strict: cands[0] or
// its refusal. nil (no error) when none does and the attempt goes on
// through Git Data.
func Pick(cands []Writer, strict bool, st *Staged) (Writer, error) {
	if strict {
		if err := cands[0].Carries(st); err != nil {
			return nil, err
		}
		return cands[0], nil
	}
	for _, w := range cands {
		if w.Carries(st) == nil {
			return w, nil
		}
	}
	return nil, nil
}

func errNoQueue(e Engine) error {
	return fmt.Errorf("a Queue commits through the git-data engine, or the graphql engine with Squash, not the %s engine", e.Name())
}

// SettlesByEditID reports whether a commit through e may be made in one
// write, and so needs the Edit-Id trailer a lost reply is settled by.
func SettlesByEditID(e Engine) bool {
	switch e.(type) {
	case Writer, Auto:
		return true
	}
	return false
}
