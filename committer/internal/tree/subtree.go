package tree

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// BuildSubtrees creates the directories that r writes whole (see subtree),
// all in one tree request without a base, one top-level entry per subtree,
// and sets each subtree's entry SHA from the reply. Their blobs are uploaded
// first. A subtree built before (in an earlier attempt) is not built again.
func (rv *Resolver) BuildSubtrees(ctx context.Context, r *Resolved) error {
	var todo []*Subtree
	for _, st := range r.Subtrees {
		if sha, ok := rv.Cache.tree(st.key()); ok {
			st.entry.SHA = sha
			continue
		}
		todo = append(todo, st)
	}
	if len(todo) == 0 {
		return nil
	}
	if err := rv.Writer.Upload(ctx, r.Uploads); err != nil {
		return err
	}
	var entries []*object.TreeEntry
	for i, st := range todo {
		for _, e := range st.entries {
			cp := *e
			cp.Path = strconv.Itoa(i) + "/" + e.Path
			entries = append(entries, &cp)
		}
	}
	t, err := rv.Writer.CreateTree(ctx, "", entries)
	if err != nil {
		return fmt.Errorf("create tree of the replaced paths: %w", err)
	}
	shas := map[string]string{}
	for _, e := range t.Entries {
		if e.Type == "tree" {
			shas[e.Path] = e.SHA
		}
	}
	for i, st := range todo {
		sha := shas[strconv.Itoa(i)]
		if !object.IsSHA(sha) {
			return fmt.Errorf("create tree of the replaced paths: reply has no tree %d for %q", i, st.path)
		}
		st.entry.SHA = sha
		rv.Cache.putTree(st.key(), sha)
	}
	return nil
}

// Bounds on one create-tree request. GitHub times big ones out with a 422
// ("Consider building the tree incrementally"); what it has to process in
// time is the content sent inline, so a request carries at most
// maxChunkInlineBytes of it in at most maxChunkInlineEntries entries (the
// reports put the edge near 2.5 MB, or 200-250 inline files: see
// githubtest.DefaultTreeTimeoutBytes), and at most maxTreeChunk entries of
// any kind (entries that carry a blob's SHA, or delete a path).
const (
	maxChunkInlineBytes   = 1_000_000
	maxChunkInlineEntries = 200
	maxTreeChunk          = 1000
)

// Chunks splits entries into the requests of one create-tree, in order,
// each within the bounds above.
func Chunks(entries []*object.TreeEntry) [][]*object.TreeEntry {
	var chunks [][]*object.TreeEntry
	start, inline, bytes := 0, 0, 0
	for i, e := range entries {
		n, b := 0, 0
		if e.Content != nil {
			n, b = 1, len(e.Inline())
		}
		if i > start && (i-start+1 > maxTreeChunk || inline+n > maxChunkInlineEntries || bytes+b > maxChunkInlineBytes) {
			chunks = append(chunks, entries[start:i])
			start, inline, bytes = i, 0, 0
		}
		inline, bytes = inline+n, bytes+b
	}
	return append(chunks, entries[start:])
}
