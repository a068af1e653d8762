package changes

import (
	"errors"
	"fmt"
	"strings"
)

// claims tracks the paths a change set writes, to refuse two operations on
// one path and a path that is both a file and a directory. A Delete may pair
// with Puts at or under its path (the path is replaced: it ends holding
// exactly those puts); every other double claim is refused. Each check costs
// O(depth of the path).
type claims struct {
	files   map[string]Kind   // written paths: puts and edits
	dirs    map[string]bool   // synced directories ("" = root)
	under   map[string]string // every ancestor directory of a claim -> that claim
	edits   map[string]string // every ancestor of an edit -> that edit
	deletes map[string]bool
	delUp   map[string]string // every ancestor of a delete -> that delete
}

func newClaims() *claims {
	return &claims{files: map[string]Kind{}, dirs: map[string]bool{}, under: map[string]string{},
		edits: map[string]string{}, deletes: map[string]bool{}, delUp: map[string]string{}}
}

// Ancestors lists the directories above p, nearest first.
func Ancestors(p string) []string {
	var out []string
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// add claims p for a put or an edit (kind) or, with isDir, a sync.
func (c *claims) add(p string, kind Kind, isDir bool) error {
	if _, ok := c.files[p]; ok || c.dirs[p] {
		return errors.New("more than one operation on this path")
	}
	if c.dirs[""] {
		return errors.New("the repository root is synced; sync owns every path")
	}
	if p == "" && (len(c.files) > 0 || len(c.dirs) > 0) {
		return errors.New("syncing the repository root leaves no path for other operations")
	}
	for _, a := range Ancestors(p) {
		if _, ok := c.files[a]; ok {
			return fmt.Errorf("is both a file and a directory in this change set (%q is written as a file)", a)
		}
		if c.dirs[a] {
			return fmt.Errorf("is inside the synced directory %q; sync owns everything under it", a)
		}
	}
	if other, ok := c.under[p]; ok {
		if isDir {
			return fmt.Errorf("synced directory contains %q, which another operation writes", other)
		}
		return fmt.Errorf("is both a file and a directory in this change set (%q is under it)", other)
	}
	if isDir {
		c.dirs[p] = true
	} else {
		c.files[p] = kind
	}
	for _, a := range Ancestors(p) {
		if _, ok := c.under[a]; !ok {
			c.under[a] = p
		}
		if _, ok := c.edits[a]; !ok && !isDir && kind == OpEdit {
			c.edits[a] = p
		}
	}
	return nil
}

// addDelete claims p for a Delete, after every other claim is in. A Delete
// pairs with Puts at or under p; it may not overlap an edit, a sync, or
// another Delete.
func (c *claims) addDelete(p string) error {
	if c.deletes[p] {
		return errors.New("deleted more than once in this change set")
	}
	if k, ok := c.files[p]; ok && k == OpEdit {
		return errors.New("both edited and deleted in this change set")
	}
	if c.dirs[p] || c.dirs[""] {
		return errors.New("is also synced; sync already deletes what the local files lack")
	}
	if other, ok := c.delUp[p]; ok {
		return fmt.Errorf("overlaps another Delete in this change set (%q is under it)", other)
	}
	if e, ok := c.edits[p]; ok {
		return fmt.Errorf("deletes %q, which this change set edits", e)
	}
	for _, a := range Ancestors(p) {
		if c.deletes[a] {
			return fmt.Errorf("overlaps another Delete in this change set (%q is deleted)", a)
		}
		if _, ok := c.files[a]; ok {
			return fmt.Errorf("is under %q, which this change set writes as a file", a)
		}
		if c.dirs[a] {
			return fmt.Errorf("is inside the synced directory %q; sync owns everything under it", a)
		}
	}
	if _, ok := c.under[p]; ok {
		for d := range c.dirs {
			if strings.HasPrefix(d, p+"/") {
				return fmt.Errorf("contains the synced directory %q", d)
			}
		}
	}
	c.deletes[p] = true
	for _, a := range Ancestors(p) {
		if _, ok := c.delUp[a]; !ok {
			c.delUp[a] = p
		}
	}
	return nil
}
