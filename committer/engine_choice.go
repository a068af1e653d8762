package committer

import (
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
)

// change is what the engines' static refusal looks at of u under co.
func (c *Committer) change(u *unit, co commitOptions) engine.Change {
	return engine.Change{
		P: u.p, Tag: co.tag.Name != "", OmitEditID: u.cs.OmitEditID, Signed: c.o.signer != nil,
		Identity: u.cs.Author != nil || u.cs.Committer != nil, ExpectHead: co.expectHead != "",
	}
}

// candidates lists the one-write engines an attempt at u may use, best
// first, from what is known before any request; strict: co's engine is
// one of them, which refuses what it cannot carry (engine.Choose).
func (c *Committer) candidates(u *unit, co commitOptions) ([]engine.Writer, bool) {
	return engine.Choose(co.engine.impl(), c.change(u, co))
}

// engineGate refuses, before any request, a change set the chosen engine
// cannot carry, and gives the engines that may write in one write the
// Edit-Id trailer they settle a lost reply by: the change set's own, even
// when its message already holds one.
func (c *Committer) engineGate(op, branch string, u *unit, co commitOptions) error {
	if err := co.engine.impl().Refuse(c.change(u, co)); err != nil {
		return c.fail(op, branch, ErrInvalid, err)
	}
	if engine.SettlesByEditID(co.engine.impl()) && !u.cs.OmitEditID && u.editID == "" {
		u.editID = changes.NewEditID()
		u.message = changes.WithEditID(u.message, u.editID)
	}
	return nil
}
