package tree

import (
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// dir is a directory's entries by name.
type dir map[string]object.TreeEntry

// Cache holds immutable git objects by SHA, shared by every commit of
// one Committer, so that a directory or blob is read once however many
// attempts and commits need it. It is bounded: when full it is emptied.
type Cache struct {
	mu       sync.Mutex
	dirs     map[string]dir
	blobs    map[string][]byte
	blobSize int64
	uploaded map[string]bool             // blob SHAs known to exist on GitHub
	trees    map[string]string           // subtree content key -> tree SHA
	paths    map[string]map[string]known // root tree SHA -> path -> what is there
	npaths   int                         // entries in paths
}

const (
	maxCachedDirs      = 4096
	maxCachedBlobBytes = 64 << 20
)

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{dirs: map[string]dir{}, blobs: map[string][]byte{}, uploaded: map[string]bool{}, trees: map[string]string{}, paths: map[string]map[string]known{}}
}

func (c *Cache) dir(sha string) (dir, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[sha]
	return d, ok
}

func (c *Cache) putDir(sha string, d dir) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dirs) >= maxCachedDirs {
		c.dirs = map[string]dir{}
	}
	c.dirs[sha] = d
}

func (c *Cache) blob(sha string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.blobs[sha]
	return b, ok
}

func (c *Cache) putBlob(sha string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(b)) > maxCachedBlobBytes/4 {
		return
	}
	if c.blobSize+int64(len(b)) > maxCachedBlobBytes {
		c.blobs, c.blobSize = map[string][]byte{}, 0
	}
	c.blobs[sha] = b
	c.blobSize += int64(len(b))
}

// IsUploaded reports whether the blob sha is known to exist on GitHub.
func (c *Cache) IsUploaded(sha string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.uploaded[sha]
}

// MarkUploaded records that the blob sha exists on GitHub.
func (c *Cache) MarkUploaded(sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.uploaded) > 1<<16 {
		c.uploaded = map[string]bool{}
	}
	c.uploaded[sha] = true
}

func (c *Cache) tree(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sha, ok := c.trees[key]
	return sha, ok
}

func (c *Cache) putTree(key, sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.trees) > 1<<12 {
		c.trees = map[string]string{}
	}
	c.trees[key] = sha
}
