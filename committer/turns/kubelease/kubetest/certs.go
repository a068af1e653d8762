package kubetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// secrets are the files the API server reads at start, all written into one
// directory of the run: a serving certificate for 127.0.0.1 (its own CA), the
// service-account key pair, and a token file with one admin token.
type secrets struct {
	certFile, keyFile   string // serving certificate and key (PEM)
	caPEM               []byte // the certificate clients trust
	saPublic, saPrivate string // service-account key pair (PEM)
	tokenFile           string // --token-auth-file
	token               string // the admin's bearer token
}

// writeSecrets makes every key in Go (no openssl) and writes them into dir.
func writeSecrets(dir string) (*secrets, error) {
	s := &secrets{
		certFile:  filepath.Join(dir, "serving.crt"),
		keyFile:   filepath.Join(dir, "serving.key"),
		saPublic:  filepath.Join(dir, "sa.pub"),
		saPrivate: filepath.Join(dir, "sa.key"),
		tokenFile: filepath.Join(dir, "tokens.csv"),
	}
	if err := s.writeServing(); err != nil {
		return nil, err
	}
	if err := s.writeServiceAccountKeys(); err != nil {
		return nil, err
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	s.token = hex.EncodeToString(tok)
	// token,user,uid,"groups": system:masters passes every authorizer.
	line := fmt.Sprintf("%s,kubetest-admin,kubetest-admin,\"system:masters\"\n", s.token)
	if err := os.WriteFile(s.tokenFile, []byte(line), 0o600); err != nil {
		return nil, err
	}
	return s, nil
}

// writeServing writes a self-signed certificate for 127.0.0.1 and
// localhost, valid for a day.
func (s *secrets) writeServing() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "kubetest-apiserver"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	s.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(s.certFile, s.caPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(s.keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// writeServiceAccountKeys writes the RSA pair that signs service-account
// tokens (the API server refuses to start without one).
func (s *secrets) writeServiceAccountKeys() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(s.saPublic, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		return err
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return os.WriteFile(s.saPrivate, priv, 0o600)
}
