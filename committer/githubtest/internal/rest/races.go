package rest

import (
	"strings"
	"sync"
)

// Races holds what runs inside the next contents writes' (or GraphQL
// mutations') window between reading the head and moving the branch.
type Races struct {
	mu    sync.Mutex
	hooks []race
}

type race struct {
	repo, ref string
	fn        func()
}

// Add makes fn run inside the next window for repoName's (owner/name) ref.
func (c *Races) Add(repoName, ref string, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = append(c.hooks, race{repo: repoName, ref: ref, fn: fn})
}

// Run runs and removes the hooks for repo's ref. It runs without any lock.
func (c *Races) Run(repoName, ref string) {
	c.mu.Lock()
	var due []func()
	keep := c.hooks[:0]
	for _, h := range c.hooks {
		if strings.EqualFold(h.repo, repoName) && h.ref == ref {
			due = append(due, h.fn)
		} else {
			keep = append(keep, h)
		}
	}
	c.hooks = keep
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}
