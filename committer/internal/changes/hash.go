package changes

import (
	"crypto/sha1"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
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
