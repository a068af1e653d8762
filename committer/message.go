package committer

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// EditIDTrailer is the git trailer that makes the commit of a change set
// with edit functions or preconditions unique.
//
// Two writers that run the same edit on the same head, with the same
// message, in the same second, would otherwise create byte-identical commits
// — one git object. The second writer's ref update would then "succeed"
// without moving the branch, and its edit (say, an increment) would be lost
// while both report success. A random trailer keeps their commits distinct,
// so the second update is refused as not a fast-forward and its edit re-runs
// on the new head (or its precondition is checked again, and fails, instead
// of two writers both "creating" the same absent file). Set ChangeSet.OmitEditID to leave it out when every
// writer's message is unique anyway.
const EditIDTrailer = "Ghcommitter-Edit-Id"

// commitMessage is the message of the commit made for cs: its Message, with
// an EditIDTrailer when it has edit functions or preconditions.
func commitMessage(cs *ChangeSet, p *prepared) string {
	if cs.OmitEditID {
		return cs.Message
	}
	if len(p.pres) > 0 {
		return withEditID(cs.Message)
	}
	for _, o := range p.ops {
		if o.kind == opEdit {
			return withEditID(cs.Message)
		}
	}
	return cs.Message
}

// withEditID appends a random EditIDTrailer to msg, in its trailer block if
// it ends with one.
func withEditID(msg string) string {
	var id [8]byte
	_, _ = rand.Read(id[:])
	trailer := EditIDTrailer + ": " + hex.EncodeToString(id[:])
	msg = strings.TrimRight(msg, "\n")
	paras := strings.Split(msg, "\n\n")
	last := paras[len(paras)-1]
	if len(paras) > 1 && isTrailerBlock(last) {
		return msg + "\n" + trailer + "\n"
	}
	return msg + "\n\n" + trailer + "\n"
}

func isTrailerBlock(p string) bool {
	for _, line := range strings.Split(p, "\n") {
		key, _, ok := strings.Cut(line, ": ")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return false
		}
	}
	return true
}
