package prmerge

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// stale reports a merge state the pull request is rebuilt from: a
// conflict with the base (DIRTY), or behind it where the base branch's
// rules require it to be up to date (BEHIND: GitHub blocks the merge
// only then). See
// https://docs.github.com/graphql/reference/enums#mergestatestatus.
func stale(state string) bool { return state == "DIRTY" || state == "BEHIND" }

// maxNowRefusals bounds the refusals of a merge asked for while waiting
// (see retry).
const maxNowRefusals = 5

// waitable reports whether a refused merge-now may succeed later (the
// pull request conflicts, is behind, or waits for checks): not an
// invalid request, nor a merge whose outcome is unknown.
func waitable(err error) bool {
	return !errors.Is(err, kind.Invalid) && !errors.Is(err, kind.UnknownOutcome)
}

// rebuild rebuilds the stale pull request t, whose head branch is at old:
// when every commit it has that the base lacks is the change set's
// (Env.Ours; read with GET compare), Env.Rebuild commits the change set
// re-run on the base's head, with parents [the base's head, old], and t.Head
// becomes that commit. Another writer's commit, or a change set that no
// longer applies there (a conflict: a failed precondition, or the head
// branch moved meanwhile), is a PullStale error, with nothing written.
func rebuild(ctx context.Context, env Env, t *Target, old string, out *Outcome) error {
	if env.Rebuild == nil || env.Ours == nil {
		return staleErr(t, "", errors.New("this caller cannot rebuild it"))
	}
	base, err := env.REST.Branch(ctx, t.Base)
	if err == nil && (base.Redirect || base.Commit == "") {
		err = fmt.Errorf("branch %s answered a redirect", t.Base)
	}
	if err != nil {
		return fmt.Errorf("read the base branch %s to rebuild pull request #%d on: %w", t.Base, t.Number, err)
	}
	if base.Commit == out.rebuiltOn && old == t.Head {
		return errSameBase
	}
	ahead, err := env.REST.AheadOf(ctx, base.Commit, old)
	if err != nil {
		return fmt.Errorf("compare pull request #%d's head with %s: %w", t.Number, t.Base, err)
	}
	for _, a := range ahead {
		if !env.Ours(a.Message) {
			return staleErr(t, "update it yourself (merge "+t.Base+" into it), or close it and run again",
				fmt.Errorf("its head branch holds commit %s, which this change set did not make", kind.Short(a.SHA)))
		}
	}
	head, err := env.Rebuild(ctx, old, base.Commit, base.Tree)
	switch {
	case errors.Is(err, kind.Conflict):
		// A failed precondition, or the head branch moved meanwhile. Not
		// wrapped: the error's kind is PullStale alone, not Conflict.
		cause := fmt.Errorf("the change set could not be rebuilt on %s's head %s: %v", t.Base, kind.Short(base.Commit), err) //nolint:errorlint // see above
		return staleErr(t, "see whether another writer pushed to its head branch, and whether the change is still wanted on "+t.Base, cause)
	case err != nil:
		return fmt.Errorf("rebuild pull request #%d on %s: %w", t.Number, kind.Short(base.Commit), err)
	}
	t.Head, out.Head, out.rebuiltOn = head, head, base.Commit
	out.Rebuilds++
	return nil
}

// errSameBase: the pull request reads stale, but its head is the rebuild
// this call made on the base's current head: GitHub has not computed its
// mergeability yet (it does so in the background). Not rebuilt again.
var errSameBase = errors.New("already rebuilt on the base's head")

// staleErr is the PullStale error of pull request t, not rebuilt because
// of cause.
func staleErr(t *Target, todo string, cause error) error {
	hint := "the pull request and its head branch are left as they are"
	if todo != "" {
		hint += "; " + todo
	}
	return &kind.Cause{Kind: kind.PullStale, Err: fmt.Errorf("pull request #%d is stale (it conflicts with %s, or is behind it) and was not rebuilt: %w", t.Number, t.Base, cause), Hint: hint}
}

// rebuilt rebuilds the stale pull request t from old and reads it again.
func rebuilt(ctx context.Context, env Env, t *Target, req Request, old string, out *Outcome) (*info, error) {
	if err := rebuild(ctx, env, t, old, out); err != nil {
		return nil, err
	}
	return readInfo(ctx, env, *t, req.Mode)
}

// rebuiltDetail says what a rebuild did, for Progress.
func rebuiltDetail(t *Target, out *Outcome) string {
	return fmt.Sprintf("rebuilt on %s's head (%d rebuild(s)): new head %s", t.Base, out.Rebuilds, kind.Short(t.Head))
}

// rebuildAndAsk rebuilds the stale pull request t while waiting, then asks
// again what req asks: merge-now merges the new head; auto-merge is
// enabled again unless it stayed on (GitHub keeps it on a push by a
// writer); the merge queue, which removed the stale entry, is asked again.
func rebuildAndAsk(ctx context.Context, env Env, t *Target, req Request, old string, out *Outcome) (bool, string, error) {
	in, err := rebuilt(ctx, env, t, req, old, out)
	if errors.Is(err, errSameBase) {
		return false, "rebuilt on " + t.Base + "'s head, waiting for GitHub to compute its mergeability", nil
	}
	if err != nil {
		return true, "", err
	}
	out.Queued, out.refused = false, 0 // the entry and the refusals were the old head's
	detail := rebuiltDetail(t, out)
	if in.Merged || in.State != "OPEN" {
		return false, detail, nil // the next read tells
	}
	if req.Mode == Auto {
		if st, err := env.REST.PullState(ctx, t.Number); err == nil && st.AutoMerge {
			return false, detail, nil
		}
	}
	err = act(ctx, env, *t, req, in, out)
	switch {
	case err != nil && (req.Mode == Now || req.Mode == Auto) && waitable(err):
		out.refused = 1
		return false, detail, nil
	case err != nil:
		return true, "", err
	}
	return out.Merged, detail, nil
}

// retry asks again what GitHub refused while the pull request waited (a
// merge-now, or the merge auto-merge makes at once of a pull request
// with nothing to wait for, refused for a conflict, a required check,
// being behind; or auto-merge itself), once GitHub shows it mergeable, or,
// for auto-merge, blocked (its checks run again); after maxNowRefusals
// refusals of one head the last one is the error (a rebuild, a new head,
// starts the count again).
func retry(ctx context.Context, env Env, t *Target, req Request, out *Outcome) (bool, string, error) {
	in, err := readInfo(ctx, env, *t, req.Mode)
	if err != nil {
		return true, "", err
	}
	if in.HeadOid != t.Head {
		// Not the head this call made (another writer pushed to it):
		// never merged blindly (expectedHeadOid).
		return true, "", refused(*t, "merge", fmt.Errorf("its head branch moved to %s, not the commit this call made", kind.Short(in.HeadOid)),
			"see what was pushed to it, then merge it yourself or run again")
	}
	err = act(ctx, env, *t, req, in, out)
	if err != nil && waitable(err) && out.refused < maxNowRefusals {
		out.refused++
		return false, fmt.Sprintf("merge refused (%d time(s)), will try again", out.refused), nil
	}
	return err != nil || out.Merged, "", err
}
