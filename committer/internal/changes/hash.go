package changes

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"

	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
)

// BlobSHA returns the git object ID of a blob holding data: the hex SHA-1 of
// "blob <len>\x00" followed by data, exactly as `git hash-object` computes it.
func BlobSHA(data []byte) string {
	h := newBlobHash(int64(len(data)))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// blobSHAReader hashes a blob of the given size from r without holding it in
// memory. It fails if r does not yield exactly size bytes.
func blobSHAReader(r io.Reader, size int64) (string, error) {
	h := newBlobHash(size)
	n, err := io.Copy(h, r)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", io.ErrUnexpectedEOF
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func newBlobHash(size int64) hash.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// SizeError is the refusal of content over the 100 MB blob limit (limit
// MaxFileSize) or over the largest Git LFS object.
func sizeError(size, limit int64) error {
	if limit > MaxFileSize {
		return fmt.Errorf("%d bytes is over GitHub's largest Git LFS file limit (%d bytes)", size, limit)
	}
	return fmt.Errorf("%d bytes is over GitHub's 100 MB file limit", size)
}

// LFSObject is the content's Git LFS object, hashed (streamed) on the
// first call and kept.
func (s *Source) LFSObject() (lfs.Object, error) {
	if s.OID256 == "" {
		rc, err := s.Reader()
		if err != nil {
			return lfs.Object{}, err
		}
		defer rc.Close()
		o, err := lfs.Hash(io.LimitReader(rc, s.Size))
		if err != nil {
			return lfs.Object{}, err
		}
		if o.Size != s.Size {
			return lfs.Object{}, fmt.Errorf("content is not %d bytes long as declared (changed while committing?)", s.Size)
		}
		s.OID256 = o.OID
	}
	return lfs.Object{OID: s.OID256, Size: s.Size}, nil
}
